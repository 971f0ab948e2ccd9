package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mockInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// TestMockServesARecording: serve --record writes the two files, and mock
// answers from them what the server answered.
func TestMockServesARecording(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.env.Cwd = t.TempDir() // what the commands write stays out of the package
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}` + "\n"
	r := w.mcpv(t, mockInit+call, args([]string{"serve", "--record", "rec.json"}, demo())...)
	if r.code != 0 || !strings.Contains(r.stderr, "mcpv: recorded rec.json and rec.responses.json") {
		t.Fatalf("serve --record: exit %d\n%s", r.code, r.stderr)
	}
	for _, f := range []string{"rec.json", "rec.responses.json"} {
		if _, err := os.Stat(filepath.Join(w.env.Cwd, f)); err != nil {
			t.Fatal(err)
		}
	}
	var want string
	for line := range strings.Lines(r.stdout) { // answered in any order
		if strings.HasPrefix(line, `{"jsonrpc":"2.0","id":2,`) {
			want = line
		}
	}
	bad := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":7}}}` + "\n"
	m := w.mcpv(t, mockInit+call+bad, "mock", "rec.json")
	if m.code != 0 || want == "" || !strings.Contains(m.stdout, want) {
		t.Errorf("mock: exit %d, stdout:\n%s\nwant the line\n%s\nstderr: %s", m.code, m.stdout, want, m.stderr)
	}
	if !strings.Contains(m.stdout, `"id":3,"error":{"code":-32602,"message":"invalid arguments for tool \"echo\": /message:`) {
		t.Errorf("mock: invalid arguments not refused:\n%s", m.stdout)
	}
}

func TestMockUsage(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.env.Cwd = t.TempDir() // what the commands write stays out of the package
	os.WriteFile(filepath.Join(w.env.Cwd, "s.json"), []byte(`{"mcpvSnapshot":1,"tools":[],"prompts":[],"resourceTemplates":[]}`), 0o644)
	os.WriteFile(filepath.Join(w.env.Cwd, "bad.yaml"), []byte("tools:\n  - name: x\n"), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"mock", "none.json"}, "mcpv: none.json: open "},
		{[]string{"mock", "s.json", "--responses", "bad.yaml"}, "mcpv: bad.yaml: tools[0]: give one of result, result-jq and error (see mcpv mock --help)\n"},
		{[]string{"mock"}, "mcpv: mock: give a snapshot FILE, or tools with --tool NAME=TEXT (see mcpv mock --help)\n"},
		{[]string{"mock", "--tool", "a b=x"}, "mcpv: mock: --tool \"a b\": a tool's name is 1 to 128 letters"},
		{[]string{"mock", "--tool", "a:=[1]"}, "mcpv: mock: --tool a: the result after := must be a JSON object"},
		{[]string{"mock", "s.json", "--responses", "none.yaml"}, "mcpv: none.yaml: open "},
		{[]string{"mock", "s.json", "--http-token", "x"}, "mcpv: mock: --http-token and --allow-remote go with --http (see mcpv mock --help)\n"},
		{[]string{"mock", "s.json", "--", "./server"}, "mcpv: mock takes no server command"},
		{[]string{"serve", "--record", "r.json", "--http", "127.0.0.1:0", "--isolate", "--", "./server"}, "mcpv: serve: --record goes without --isolate: it records the one shared session (see mcpv serve --help)\n"},
	} {
		r := w.mcpv(t, "", tt.args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}
