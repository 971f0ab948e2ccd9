package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/output"
)

// serveSession is what a stdio client of serve sends: initialize, then
// each request, numbered from 1.
func serveSession(requests ...string) string {
	var b strings.Builder
	b.WriteString(serveInit)
	for i, r := range requests {
		method, params, _ := strings.Cut(r, " ")
		if params == "" {
			params = "{}"
		}
		b.WriteString(`{"jsonrpc":"2.0","id":` + itoa(i+1) + `,"method":"` + method + `","params":` + params + "}\n")
	}
	return b.String()
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// answerOf is the answer to request id in serve's stdout.
func answerOf(t *testing.T, stdout string, id int) string {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(line), &m) == nil && string(m.ID) == itoa(id) && !strings.Contains(line, `"method"`) {
			return line
		}
	}
	t.Fatalf("no answer to %d in:\n%s", id, stdout)
	return ""
}

// TestServeSeveral: -s given more than once serves those config servers
// behind one endpoint on stdin and stdout, their tools and prompts named
// by server, each call reaching its own.
func TestServeSeveral(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers:\n  demo: "+demoEntry()+"\n  fake: "+fakeEntry("plain")+"\n")
	stdin := serveSession(`tools/list`, `tools/call {"name":"demo__echo","arguments":{"message":"through"}}`, `prompts/list`, `tools/call {"name":"fake__x","arguments":{}}`)
	r := w.mcpv(t, stdin, "serve", "-s", "demo", "-s", "fake")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	// Every server's tools in the first page, for a client that reads
	// that page alone.
	tools := answerOf(t, r.stdout, 1)
	for _, want := range []string{`"demo__echo"`, `"demo__ask"`, `"fake__x"`} {
		if !strings.Contains(tools, want) {
			t.Errorf("tools/list: %s, want %s", tools, want)
		}
	}
	if got := answerOf(t, r.stdout, 2); !strings.Contains(got, "through") {
		t.Errorf("demo__echo: %s", got)
	}
	if got := answerOf(t, r.stdout, 3); !strings.Contains(got, `"demo__greet"`) || !strings.Contains(got, `"fake__p"`) {
		t.Errorf("prompts: %s", got)
	}
	if got := answerOf(t, r.stdout, 4); !strings.Contains(got, `"result"`) {
		t.Errorf("fake__x: %s", got)
	}
}

// TestServeAll: --all serves every config server; one that cannot be
// used (a project file's stdio server not trusted) is left out, said
// once, and the others are served.
func TestServeAll(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers:\n  demo: "+demoEntry()+"\n")
	w.write(t, ".mcp.json", `{"mcpServers": {"repo": `+fakeEntry("plain")+`}}`)
	r := w.mcpv(t, serveSession(`tools/list`), "serve", "--all")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if got := answerOf(t, r.stdout, 1); !strings.Contains(got, `"demo__echo"`) || strings.Contains(got, "repo__") {
		t.Errorf("tools/list: %s", got)
	}
	if n := strings.Count(r.stderr, `server "repo" is left out`); n != 1 || !strings.Contains(r.stderr, "mcpv trust") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// TestServeFile: a serve file serves a config server with a guard it
// adds, under a prefix of its own, and a server of its own; a project's
// serve file runs only once trusted.
func TestServeFile(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers:\n  demo: "+demoEntry()+"\n")
	spec, _ := json.Marshal(mcptest.Spec{Tools: []json.RawMessage{json.RawMessage(`{"name":"own","inputSchema":{"type":"object"}}`)}})
	specPath := w.write(t, "own.json", string(spec))
	file := w.write(t, "gateway.yaml", `separator: "."
servers:
  d:
    server: demo
    prefix: demo
    guard: {allow_tools: [echo, add]}
  mine:
    command: `+q(os.Args[0])+`
    env: {`+mcptest.EnvVar+`: `+q("spec="+specPath)+`}
`)
	stdin := serveSession(`tools/list`, `tools/call {"name":"demo.ask","arguments":{}}`, `tools/call {"name":"mine.own","arguments":{}}`)
	r := w.mcpv(t, stdin, "serve", file)
	if r.code != 2 || !strings.Contains(r.stderr, "gateway.yaml is not trusted") || !strings.Contains(r.stderr, "mcpv trust gateway.yaml") {
		t.Fatalf("an untrusted serve file of the project: exit %d:\n%s", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "trust", "gateway.yaml"); r.code != 0 {
		t.Fatalf("trust: %d %s", r.code, r.stderr)
	}
	r = w.mcpv(t, stdin, "serve", "gateway.yaml")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if got := answerOf(t, r.stdout, 1); !strings.Contains(got, `"demo.echo"`) || !strings.Contains(got, `"demo.add"`) || strings.Contains(got, `"demo.ask"`) || !strings.Contains(got, `"mine.own"`) {
		t.Errorf("tools/list: %s", got)
	}
	if got := answerOf(t, r.stdout, 2); !strings.Contains(got, `"error"`) {
		t.Errorf("a tool the file's guard hides: %s", got)
	}
	if got := answerOf(t, r.stdout, 3); !strings.Contains(got, "called own") {
		t.Errorf("the file's own server: %s", got)
	}
}

// TestServeSeveralUsage: mistakes with several servers are usage errors,
// found before any server starts.
func TestServeSeveralUsage(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers:\n  a: "+fakeEntry("plain")+"\n  b: "+fakeEntry("plain")+"\n  a_: "+fakeEntry("plain")+"\n  bad name: "+fakeEntry("plain")+"\n")
	w.write(t, "bad.yaml", "servers: {a: {prefx: x}}\n")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--all", "x.yaml"}, "give a serve FILE or --all, not both"},
		{[]string{"serve", "-s", "a", "-s", "b", "--record", "r.json"}, "--record records one server"},
		{[]string{"serve", "-s", "a", "--separator", "-"}, "--separator and --start go with several servers"},
		{[]string{"serve", "-s", "a", "-s", "b", "--separator", "ab"}, "--separator: separator \"ab\": it needs one of -._"},
		{[]string{"serve", "-s", "a", "-s", "b", "--start", "soon"}, `--start "soon": give eager or lazy`},
		{[]string{"serve", "-s", "a", "-s", "a"}, "-s a is given twice"},
		{[]string{"serve", "-s", "a", "-s", "a_"}, `servers "a" and "a_": a name of "a_" starts as one of "a"`},
		{[]string{"serve", "-s", "a", "-s", "bad name"}, "a server's name here holds letters, digits and -._ alone"},
		{[]string{"serve", "-s", "a", "-s", "nope"}, `no server named "nope"`},
		{[]string{"serve", "bad.yaml"}, `bad.yaml:1:15: server "a": unknown key "prefx"`},
		{[]string{"serve", "-s", "a", "-s", "b", "--http-tokens", "t.yaml"}, "--http-tokens go with --http"},
	} {
		r := w.mcpv(t, "", tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}

// TestServeClientTokenMistakes: a client of --http-tokens whose token
// cannot be had, or is another's, or that names a server not served, is a
// usage error before anything is served, naming the client and never the
// token.
func TestServeClientTokenMistakes(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers:\n  a: "+fakeEntry("plain")+"\n  b: "+fakeEntry("plain")+"\n")
	w.write(t, "empty.token", "\n")
	w.write(t, "desk.token", "desk-s3cret\n")
	w.write(t, "huge.token", strings.Repeat("t", 5<<10))
	for _, f := range []string{"empty.token", "desk.token", "huge.token"} {
		os.Chmod(filepath.Join(w.proj, f), 0o600)
	}
	for _, tt := range []struct {
		name, clients, want string
	}{
		{"a variable not set", "ci: {token_env: MCPV_TEST_UNSET_TOKEN}", `client "ci": its token variable MCPV_TEST_UNSET_TOKEN is not set`},
		{"an empty token file", "ci: {token_file: empty.token}", `client "ci": ` + filepath.Join(w.proj, "empty.token") + " is empty"},
		{"a token file too large", "ci: {token_file: huge.token}", `client "ci": token_file: ` + filepath.Join(w.proj, "huge.token") + " is larger than 4 KiB"},
		{"a token file that is not there", "ci: {token_file: gone.token}", `client "ci": token_file: `},
		{"two clients, one token", "ci: {token_file: desk.token}\n  desk: {token_file: desk.token}", "its token is another client's too"},
		{"a server not served", "ci: {token_file: desk.token, servers: [c]}", `client "ci": no server "c" is served`},
	} {
		w.write(t, "clients.yaml", "clients:\n  "+tt.clients+"\n")
		// A mistake let through would serve: the minute is a hang guard.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var stderr bytes.Buffer
		code := run(ctx, []string{"serve", "--http", "127.0.0.1:0", "-s", "a", "-s", "b", "--http-tokens", "clients.yaml"},
			output.NewStreams(strings.NewReader(""), &bytes.Buffer{}, &stderr), w.env)
		cancel()
		if got := stderr.String(); code != 2 || !strings.Contains(got, tt.want) || strings.Count(got, "\n") != 1 || strings.Contains(got, "s3cret") {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", tt.name, code, got, tt.want)
		}
	}
}

// TestServeFilePin: a serve file's server held to a pin file (its pin:)
// has what moved withheld from the endpoint's clients, as serve --pin
// withholds it from one server's, its moves said once on stderr naming
// the server; the other server is served whole.
func TestServeFilePin(t *testing.T) {
	t.Parallel()
	w, server, _ := servePinned(t)
	spec := strings.TrimPrefix(server[1], mcptest.EnvVar+"=")
	file := filepath.Join(w.env.Cwd, "gateway.yaml")
	// Held to its entry in the pin file, by its name here (as mcpv pin
	// --all names each config server's).
	if err := os.WriteFile(file, []byte(`servers:
  pinned-server:
    prefix: pinned
    command: `+q(os.Args[0])+`
    env: {`+mcptest.EnvVar+`: `+q(spec)+`}
    pin: pins.json
  other:
    command: `+q(os.Args[0])+`
    env: {`+mcptest.EnvVar+`: plain}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	stdin := serveSession(`tools/list`, `tools/call {"name":"pinned__add","arguments":{"a":1}}`, `tools/call {"name":"pinned__sub","arguments":{}}`, `tools/call {"name":"other__x","arguments":{}}`)
	r := w.mcpv(t, stdin, "serve", file)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if got := answerOf(t, r.stdout, 1); !strings.Contains(got, `"pinned__sub"`) || strings.Contains(got, `"pinned__add"`) || strings.Contains(got, "dd\"") || !strings.Contains(got, `"other__x"`) {
		t.Errorf("tools/list: %s", got)
	}
	if got := answerOf(t, r.stdout, 2); !strings.Contains(got, "it moved since it was pinned in pins.json") {
		t.Errorf("pinned__add: %s", got)
	}
	if got := answerOf(t, r.stdout, 3); !strings.Contains(got, "called sub") {
		t.Errorf("pinned__sub: %s", got)
	}
	if got := answerOf(t, r.stdout, 4); !strings.Contains(got, `"result"`) {
		t.Errorf("other__x: %s", got)
	}
	if n := strings.Count(r.stderr, `mcpv: serve: server "pinned-server": tool "add" moved since it was pinned in pins.json`); n != 1 {
		t.Errorf("the move said %d times:\n%s", n, r.stderr)
	}
}

// TestServeFileRecord: a serve file's server with record: FILE has what
// passes through it recorded, when serving ends, as --record records one
// server's: its own names, not the endpoint's.
func TestServeFileRecord(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers:\n  demo: "+demoEntry()+"\n")
	file := filepath.Join(w.home, "gateway.yaml")
	if err := os.WriteFile(file, []byte("servers:\n  demo: {record: rec.json}\n  fake:\n    command: "+q(os.Args[0])+"\n    env: {"+mcptest.EnvVar+": plain}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := w.mcpv(t, serveSession(`tools/call {"name":"demo__echo","arguments":{"message":"kept"}}`), "serve", file)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	snap, err := os.ReadFile(filepath.Join(w.home, "rec.json"))
	if err != nil || !strings.Contains(string(snap), `"echo"`) || strings.Contains(string(snap), "demo__") {
		t.Errorf("the snapshot: %v %.300s", err, snap)
	}
	resp, err := os.ReadFile(filepath.Join(w.home, "rec.responses.json"))
	if err != nil || !strings.Contains(string(resp), "kept") {
		t.Errorf("the responses: %v %.300s", err, resp)
	}
}

// TestServeFileConnectTimeout: a serve file's connect_timeout is each
// server's own: a server that takes longer to start than its own is
// marked down, said on stderr, while the one beside it, under the file's
// longer bound, is served.
func TestServeFileConnectTimeout(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	spec, _ := json.Marshal(mcptest.Spec{Tools: []json.RawMessage{json.RawMessage(`{"name":"own","inputSchema":{"type":"object"}}`)}})
	specPath := w.write(t, "own.json", string(spec))
	file := w.write(t, filepath.Join(w.home, "gateway.yaml"), `connect_timeout: 5m
servers:
  slow:
    command: `+q(os.Args[0])+`
    env: {`+mcptest.EnvVar+`: "slow-start=600000"}
    connect_timeout: 200ms
  fast:
    command: `+q(os.Args[0])+`
    env: {`+mcptest.EnvVar+`: `+q("spec="+specPath)+`}
`)
	r := w.mcpv(t, serveSession(`tools/list`, `tools/call {"name":"slow__x","arguments":{}}`), "serve", file)
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if got := answerOf(t, r.stdout, 1); !strings.Contains(got, `"fast__own"`) || strings.Contains(got, `"slow__`) {
		t.Errorf("tools/list: %s", got)
	}
	if got := answerOf(t, r.stdout, 2); !strings.Contains(got, `server \"slow\" is down`) {
		t.Errorf("a call to the server that did not start in its time: %s", got)
	}
	if !strings.Contains(r.stderr, `server "slow" is down`) || strings.Contains(r.stderr, `server "fast" is down`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// TestServeFileRecordConfined: a project's serve file (one a cloned
// repository brings) records inside the project alone: a record: path
// that leads out of it, written absolute or through "..", is refused
// before anything starts, even once the file is trusted, as its pin:
// paths are, so that a recording never lands on a file of the user's
// such as ~/.bashrc.
func TestServeFileRecordConfined(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	victim := filepath.Join(w.home, ".bashrc")
	w.write(t, victim, "# the user's own\n")
	for _, rec := range []string{victim, "../home/.bashrc"} {
		w.write(t, "gateway.yaml", "servers:\n  fake:\n    command: "+q(os.Args[0])+"\n    env: {"+mcptest.EnvVar+": plain}\n    record: "+q(rec)+"\n")
		if r := w.mcpv(t, "", "trust", "gateway.yaml"); r.code != 0 {
			t.Fatalf("trust: %d %s", r.code, r.stderr)
		}
		r := w.mcpv(t, serveSession(`tools/list`), "serve", "gateway.yaml")
		if r.code != 2 || !strings.Contains(r.stderr, "leads out of") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("record: %s: exit %d, stderr %q; want 2 and the path refused", rec, r.code, r.stderr)
		}
		if b, _ := os.ReadFile(victim); string(b) != "# the user's own\n" {
			t.Fatalf("record: %s wrote the user's file: %q", rec, b)
		}
	}
}
