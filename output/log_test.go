package output

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLogger(t *testing.T) {
	var b bytes.Buffer
	l := NewLogger(&b)
	l.Warn("skipped a line")
	l.Info("the session expired; starting a new one")
	l.Debug("not shown")
	l.With("server", "demo").Error("failed", slog.Int("status", 500))
	want := "mcpv: warning: skipped a line\n" +
		"mcpv: the session expired; starting a new one\n" +
		"mcpv: warning: failed server=demo status=500\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
