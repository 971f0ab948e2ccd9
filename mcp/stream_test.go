package mcp

import (
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// Junk lines on a stream are warned about as on a server's stdout: a
// bounded number of warnings, then one saying the rest go unreported.
func TestStreamTransportJunkWarningsAreBounded(t *testing.T) {
	var diag mcptest.Buffer
	in := strings.Repeat("junk\n", 1000) + `{"jsonrpc":"2.0","method":"x"}` + "\n"
	st := NewStreamTransport(strings.NewReader(in), nil, nil, lineLogger(&diag))
	msg, err := st.Read()
	if err != nil || string(msg) != `{"jsonrpc":"2.0","method":"x"}` {
		t.Fatalf("Read = %q, %v", msg, err)
	}
	warnings := strings.Split(strings.TrimSpace(diag.String()), "\n")
	if len(warnings) != maxJunkWarnings+1 || !strings.Contains(warnings[maxJunkWarnings], "no longer reporting") {
		t.Errorf("%d warnings for 1000 junk lines, want %d, the last saying the rest go unreported:\n%s", len(warnings), maxJunkWarnings+1, diag.String())
	}
}
