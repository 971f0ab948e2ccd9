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

// TestMockToolAndLog: a one-tool mock needs no file, a mock without a
// responses file says so once, and --log keeps each message and its
// answer in an owner-only file, secrets masked, never through a link.
func TestMockToolAndLog(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.env.Cwd = t.TempDir()
	w.env.Environ = append(w.env.Environ, "DEPLOY_TOKEN=tok-5ecret-77")
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hello","arguments":{"key":"tok-5ecret-77"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{}}}
`
	r := w.mcpv(t, mockInit+call, "mock", "--tool", "hello=hi there", "--tool", `add:={"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}`, "--log", "mock.log")
	if r.code != 0 || !strings.Contains(r.stdout, `"id":2,"result":{"content":[{"type":"text","text":"hi there"}]}`) ||
		!strings.Contains(r.stdout, `"id":3,"result":{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}`) {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "responses") {
		t.Errorf("a mock of --tool alone spoke of a responses file: %s", r.stderr)
	}
	path := filepath.Join(w.env.Cwd, "mock.log")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(path)
	if fi.Mode().Perm() != 0o600 || strings.Contains(string(log), "tok-5ecret-77") || strings.Count(string(log), "\n") != 4 ||
		!strings.Contains(string(log), `"method":"tools/call","params":{"name":"hello","arguments":{"key":"`) ||
		!strings.Contains(string(log), `"result":{"content":[{"type":"text","text":"hi there"}]},"ms":`) {
		t.Errorf("mode %v, log:\n%s", fi.Mode(), log)
	}

	// A snapshot with no responses file beside it: said once, at start.
	os.WriteFile(filepath.Join(w.env.Cwd, "s.json"), []byte(`{"mcpvSnapshot":1,"tools":[],"prompts":[],"resourceTemplates":[]}`), 0o644)
	r = w.mcpv(t, mockInit, "mock", "s.json")
	if r.code != 0 || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "mcpv: no responses file: s.responses.json is not there") {
		t.Errorf("no responses file: exit %d, stderr %q", r.code, r.stderr)
	}

	// Never through a link, nor through a linked directory.
	os.Symlink(filepath.Join(w.env.Cwd, "elsewhere"), filepath.Join(w.env.Cwd, "link.log"))
	os.Symlink(t.TempDir(), filepath.Join(w.env.Cwd, "dir"))
	for _, log := range []string{"link.log", "dir/mock.log"} {
		r = w.mcpv(t, mockInit, "mock", "--tool", "hello", "--log", log)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "mcpv: --log: ") || !strings.Contains(r.stderr, "link") {
			t.Errorf("--log %s: exit %d, stderr %q", log, r.code, r.stderr)
		}
	}
	if _, err := os.Lstat(filepath.Join(w.env.Cwd, "elsewhere")); err == nil {
		t.Error("the log was written through a link")
	}
}
