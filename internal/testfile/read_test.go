package testfile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/config"
)

// world is what a test file is read with: a directory of files, the
// command line's checks as the test gives them, and an environment.
type world struct {
	dir    string
	env    map[string]string
	line   func(words []string) (Line, error)
	server func(words []string) error
	trust  func(path string, data []byte) error
}

func newWorld(t *testing.T, files map[string]string) *world {
	t.Helper()
	w := &world{dir: t.TempDir(), env: map[string]string{"HOME": "/home/ada", "API_TOKEN": "s3cret", "WHO": "ada"}}
	for name, content := range files {
		path := filepath.Join(w.dir, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// sessionFlags are a few of the command line's session flags, as a server
// section may give them.
var sessionFlags = map[string]Flag{"url": {}, "server": {}, "session": {}, "timeout": {}, "quiet": {Bool: true}, "root": {Slice: true},
	"header": {Slice: true}, "env": {Slice: true}, "cwd": {}, "answers": {}, "events": {}, "client-secret": {}, "config": {}}

func (w *world) options() *Options {
	lookup := func(k string) (string, bool) { v, ok := w.env[k]; return v, ok }
	o := &Options{
		Path:        func(p string) string { return filepath.Join(w.dir, p) },
		Vars:        config.Env{Getenv: func(k string) string { return w.env[k] }, Lookup: lookup, Home: "/home/ada"},
		Flags:       sessionFlags,
		CheckServer: func([]string) error { return nil },
		CheckLine:   func([]string, map[string]json.RawMessage) (Line, error) { return Line{}, nil },
		Trusted:     w.trust,
	}
	if w.server != nil {
		o.CheckServer = w.server
	}
	if w.line != nil {
		o.CheckLine = func(words []string, _ map[string]json.RawMessage) (Line, error) { return w.line(words) }
	}
	return o
}

// read reads t.yaml (or name) of the world: the file, and its mistakes as
// one text.
func (w *world) read(name string) (*File, string) {
	f, errs := Read(w.options(), name)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return f, strings.Join(msgs, "\n")
}

const server = "server: {command: [./srv]}\n"

// Each mistake in a file is found when it is read, at its line and
// column, with what would be right.
func TestFileMistakes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, file, want string }{
		{"not a mapping", "- ping\n", "t.yaml:1:1: the file must be a mapping, not an array"},
		{"an empty list of steps", server + "steps: []\n", "t.yaml:2:8: steps is empty"},
		{"a step not a mapping", server + "steps: [ping]\n", "t.yaml:2:9: a step must be a mapping, such as {call: echo message=hi}, not a string"},
		{"an empty run", server + "steps:\n  - run: ''\n", "t.yaml:3:10: run: give an mcpv command line"},
		{"a run not a string", server + "steps:\n  - run: [ping]\n", "t.yaml:3:10: run must be a string, not an array"},
		{"a line that does not split", server + "steps:\n  - run: call 'x\n", "t.yaml:3:10: unterminated"},
		{"skip not a string", server + "steps:\n  - ping:\n    skip: [a]\n", "t.yaml:4:11: skip must be a string, not an array"},
		{"a name not a string", server + "steps:\n  - ping:\n    name: {a: 1}\n", "t.yaml:4:11: name must be a string, not an object"},
		{"a snapshot without a file", server + "steps:\n  - snapshot: ''\n", "t.yaml:3:15: snapshot: give the snapshot file's path"},
		{"a snapshot out of the tree", server + "steps:\n  - snapshot: ../s.json\n", "t.yaml:3:15: snapshot: "},
		{"a lint of the wrong shape", server + "steps:\n  - lint: 3\n", "t.yaml:3:11: lint: give true, or {ignore: [RULE...]}"},
		{"a lint with an unknown key", server + "steps:\n  - lint: {ignor: [x]}\n", "t.yaml:3:12: unknown key \"ignor\" in lint; did you mean \"ignore\"?"},
		{"captures not a mapping", server + "steps:\n  - ping:\n    capture: .x\n", "t.yaml:4:14: capture must be a mapping of names to jq expressions"},
		{"a capture named as jq's", server + "steps:\n  - ping:\n    capture: {ENV: .}\n", "t.yaml:4:15: capture name \"ENV\" is taken by jq ($ENV)"},
		{"a capture used where it cannot be", "server: {command: ['{{x}}']}\nsteps:\n  - ping:\n", "t.yaml:1:20: {{x}}: captured values cannot be used here"},
		{"exit out of range", server + "steps:\n  - ping:\n    expect: {exit: 300}\n", "t.yaml:4:20: exit: an exit code is between 0 and 255"},
		{"exit not an integer", server + "steps:\n  - ping:\n    expect: {exit: one}\n", "t.yaml:4:20: exit must be an integer, not a string"},
		{"is-error not a boolean", server + "steps:\n  - ping:\n    expect: {is-error: yes please}\n", "t.yaml:4:24: is-error must be true or false, not a string"},
		{"error-code and exit 1", server + "steps:\n  - ping:\n    expect: {exit: 1, error-code: -32602}\n", "t.yaml:4:20: error-code means exit 3 (a JSON-RPC error), not 1"},
		{"is-error and error-code", server + "steps:\n  - ping:\n    expect: {is-error: true, error-code: -32602}\n", "t.yaml:4:42: a step ends with a tool error (is-error) or a JSON-RPC error (error-code), not both"},
		{"a bad error-message", server + "steps:\n  - ping:\n    expect: {error-message: '['}\n", "t.yaml:4:29: error-message: error parsing regexp"},
		{"equals and equals-file", server + "steps:\n  - ping:\n    expect: {equals: 1, equals-file: v.json}\n", "t.yaml:4:38: give equals or equals-file, not both"},
		{"schema not a schema", server + "steps:\n  - ping:\n    expect: {schema: [1]}\n", "t.yaml:4:22: schema must be a JSON Schema (a mapping, or true or false), not an array"},
		{"schema and schema-file", server + "steps:\n  - ping:\n    expect: {schema: true, schema-file: s.json}\n", "t.yaml:4:41: give schema or schema-file, not both"},
		{"a schema-file that is no schema", server + "steps:\n  - ping:\n    expect: {schema-file: bad-schema.json}\n", "t.yaml:4:27: schema-file bad-schema.json: not a usable JSON Schema"},
		{"output-schema not a boolean", server + "steps:\n  - ping:\n    expect: {output-schema: 1}\n", "t.yaml:4:29: output-schema must be true or false, not a number"},
		{"output-schema for no call", server + "steps:\n  - ping:\n    expect: {output-schema: true}\n", "t.yaml:4:13: output-schema: the step calls no tool"},
		{"jq not a string", server + "steps:\n  - ping:\n    expect: {jq: {a: 1}}\n", "t.yaml:4:18: jq must be a string or a list of strings, not an object"},
		{"a call without its tool", server + "steps:\n  - call: {args: {a: 1}}\n", "t.yaml:3:11: call: give its tool"},
		{"args not a mapping", server + "steps:\n  - call: {tool: add, args: [1]}\n", "t.yaml:3:29: args must be a mapping of argument names to values"},
		{"params not a mapping", server + "steps:\n  - request: {method: ping, params: 1}\n", "t.yaml:3:37: params must be a mapping"},
		{"context not a mapping", server + "steps:\n  - complete: {prompt: p, arg: a=b, context: x}\n", "t.yaml:3:46: context must be a mapping of argument names to values"},
		{"an unknown part", server + "steps:\n  - read: {uri: x, flag: -q}\n", "t.yaml:3:20: unknown key \"flag\" in read; did you mean \"flags\"?"},
		{"a server with no command", "server: {command: []}\nsteps:\n  - ping:\n", "t.yaml:1:19: command: give the server's program and its arguments"},
		{"a flag of the wrong kind", "server: {command: [x], timeout: {a: 1}}\nsteps:\n  - ping:\n", "t.yaml:1:33: timeout must be a string, not an object"},
		{"answers out of the tree", "server: {command: [x], answers: ../a.json}\nsteps:\n  - ping:\n", "t.yaml:1:33: answers: "},
		{"a number JSON cannot hold", server + "steps:\n  - ping:\n    expect: {equals: .inf}\n", "t.yaml:4:22: .inf is not a number JSON can hold"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, map[string]string{"t.yaml": tt.file, "v.json": "1", "s.json": "true", "bad-schema.json": `{"type":3}`})
			w.line = func(words []string) (Line, error) { return Line{}, nil }
			_, got := w.read("t.yaml")
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("got:\n%s\nwant it to start with:\n%s", got, tt.want)
			}
		})
	}
}

// What the command line says of a step's line or of the server section is
// a mistake at the step, or at the server key it names; a step's refusals
// and the files it reads are checked as the file is read.
func TestCommandLineChecks(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"t.yaml": "server:\n  command: [x]\n  timeout: soon\nsteps:\n  - call: a @in.json\n  - call: b @../out.json\n  - call: c --text\n    expect: {output-schema: true}\n  - run: watch x\n  - call: d @dir\n",
		"in.json": "{}", "dir/keep": ""})
	w.server = func(words []string) error {
		for _, word := range words {
			if word == "--timeout=soon" {
				return errors.New(`--timeout: "soon" is not a duration`)
			}
		}
		return nil
	}
	w.line = func(words []string) (Line, error) {
		switch words[0] + " " + words[1] {
		case "call a":
			return Line{Calls: true, Files: []string{"in.json"}}, nil
		case "call b":
			return Line{Calls: true, Files: []string{"../out.json"}}, nil
		case "call c":
			return Line{Calls: true, Text: true}, nil
		case "call d":
			return Line{Calls: true, Files: []string{"dir"}}, nil
		}
		return Line{Refusals: []string{"watch cannot be a test step"}}, errors.New("never mind")
	}
	_, got := w.read("t.yaml")
	want := strings.Join([]string{
		`t.yaml:3:12: server: --timeout: "soon" is not a duration`,
		"t.yaml:6:11: @../out.json: ../out.json leads out of " + w.dir,
		"t.yaml:8:13: output-schema needs the JSON result: drop --text",
		"t.yaml:9:5: never mind",
		"t.yaml:10:11: @dir: dir is not a regular file",
	}, "\n")
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// A file the user has not trusted is refused before it is parsed, with
// the trust check's own message; a file that is not there says so at its
// first line.
func TestUntrustedAndMissingFiles(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"t.yaml": "not: even: yaml"})
	w.trust = func(path string, data []byte) error {
		return errors.New("t.yaml is not trusted: run mcpv trust t.yaml")
	}
	if _, got := w.read("t.yaml"); got != "t.yaml is not trusted: run mcpv trust t.yaml" {
		t.Errorf("untrusted: %q", got)
	}
	if _, got := w.read("none.yaml"); !strings.HasPrefix(got, "none.yaml:1:1: ") {
		t.Errorf("missing: %q", got)
	}
}

// A server section becomes session flags in the command line's words:
// paths relative to the file's directory, files it names kept in its tree,
// variables expanded (secret ones remembered), a stdio server run in the
// file's directory; reports name the server with its secrets masked.
func TestServerSection(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"answers.json": "{}", "token.txt": "t"})
	for _, tt := range []struct {
		name, section string
		words         []string
		command       []string
		display       string
	}{
		{"a command as a line", "command: './srv --key ${API_TOKEN}'\nquiet: true\nenv: {DEBUG: '1'}\n",
			[]string{"--quiet", "--env=DEBUG=1", "--cwd=" + w.dir}, []string{"./srv", "--key", "s3cret"}, "./srv --key '***'"},
		{"a command as words, flags as lists", "command: [srv, '${WHO}']\nroot: [a, /abs]\nenv: [A=1, B=2]\ncwd: sub\nanswers: answers.json\n",
			[]string{"--root=" + filepath.Join(w.dir, "a"), "--root=/abs", "--env=A=1", "--env=B=2", "--cwd=" + filepath.Join(w.dir, "sub"), "--answers=" + filepath.Join(w.dir, "answers.json")},
			[]string{"srv", "ada"}, "srv ada"},
		{"a URL with headers", "url: 'https://u:pw@h.example/mcp'\nheaders: {Authorization: 'Bearer ${API_TOKEN}', X-A: b}\nclient-secret: '@token.txt'\n",
			[]string{"--url=https://u:pw@h.example/mcp", "--header=Authorization: Bearer s3cret", "--header=X-A: b", "--client-secret=@" + filepath.Join(w.dir, "token.txt")},
			nil, "https://u:***@h.example/mcp"},
		{"headers as a list", "url: http://h/mcp\nheaders: ['X-A: 1', 'X-B: 2']\ntimeout: 30\n",
			[]string{"--url=http://h/mcp", "--header=X-A: 1", "--header=X-B: 2", "--timeout=30"}, nil, "http://h/mcp"},
		{"a config name", "name: github\nconfig: servers.yaml\n", []string{"--server=github", "--config=" + filepath.Join(w.dir, "servers.yaml")}, nil, "server github"},
		{"a session", "session: dev\nquiet: false\n", []string{"--session=dev"}, nil, "session dev"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			os.WriteFile(filepath.Join(w.dir, tt.name+".yaml"), []byte("server:\n  "+strings.ReplaceAll(strings.TrimSuffix(tt.section, "\n"), "\n", "\n  ")+"\nsteps:\n  - ping:\n"), 0o600)
			f, errs := w.read(tt.name + ".yaml")
			if errs != "" {
				t.Fatal(errs)
			}
			if d := cmp.Diff(tt.words, f.Server.Words); d != "" {
				t.Errorf("words (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.command, f.Server.Command); d != "" {
				t.Errorf("command (-want +got):\n%s", d)
			}
			if f.Server.Display != tt.display {
				t.Errorf("display %q, want %q", f.Server.Display, tt.display)
			}
		})
	}
	os.WriteFile(filepath.Join(w.dir, "none.yaml"), []byte("steps:\n  - ping:\n"), 0o600)
	if f, _ := w.read("none.yaml"); f.Server.Display != "the server of MCPV_URL, MCPV_SERVER or MCPV_SESSION" {
		t.Errorf("no server section: %q", f.Server.Display)
	}
}

// The files a server section names are read through the file's tree; any
// other file by the safe reader's rule.
func TestServerReadFile(t *testing.T) {
	t.Parallel()
	w := newWorld(t, map[string]string{"t.yaml": "server: {command: [x], answers: a.json}\nsteps:\n  - ping:\n", "a.json": `{"a":1}`, "other.json": "2"})
	f, errs := w.read("t.yaml")
	if errs != "" {
		t.Fatal(errs)
	}
	if b, err := f.Server.ReadFile(filepath.Join(w.dir, "a.json")); err != nil || string(b) != `{"a":1}` {
		t.Errorf("a named file: %q, %v", b, err)
	}
	if b, err := f.Server.ReadFile(filepath.Join(w.dir, "other.json")); err != nil || string(b) != "2" {
		t.Errorf("another file: %q, %v", b, err)
	}
	os.Remove(filepath.Join(w.dir, "a.json"))
	os.Symlink(filepath.Join(w.dir, "other.json"), filepath.Join(w.dir, "a.json"))
	if _, err := f.Server.ReadFile(filepath.Join(w.dir, "a.json")); err == nil {
		t.Error("a named file replaced by a link was followed")
	}
}

// A step's command, written as a line, a list of words or a mapping of
// its parts, becomes the command line's words, in the order of the
// command's grammar; a JSON argument keeps a capture's type; the step is
// named as it was written; a file's name and steps' names are clipped.
func TestStepWords(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 300)
	w := newWorld(t, map[string]string{"t.yaml": server + "name: " + long + "\nsteps:\n" +
		"  - call: make\n    capture: {id: .id, n: .n}\n" +
		"  - call: {tool: add, args: {a: '{{n}}', b: 'id {{id}}', c: [1, '{{id}}']}, flags: [-q, .sum]}\n" +
		"  - get-prompt: {name: greet, args: {who: '${WHO}', n: 2}, flags: -r}\n" +
		"  - read: {uri: 'demo://{{id}}'}\n" +
		"  - request: {method: tools/list, params: {cursor: '{{id}}'}}\n" +
		"  - complete: {template: 'x:///{a}', arg: {a: b}, context: {c: d}}\n" +
		"  - complete: {prompt: p, arg: a=b}\n" +
		"  - list-tools: [--max-pages, 2]\n" +
		"  - info:\n" +
		"  - run: call echo 'a b'\n    name: " + long + "\n"})
	f, errs := w.read("t.yaml")
	if errs != "" {
		t.Fatal(errs)
	}
	if f.Name != long[:200]+"…" {
		t.Errorf("file name %q", f.Name)
	}
	caps := map[string]json.RawMessage{"id": json.RawMessage(`"x1"`), "n": json.RawMessage(`7`)}
	var got [][]string
	var names []string
	for _, st := range f.Steps {
		got = append(got, st.Fill(caps))
		names = append(names, st.Name)
	}
	want := [][]string{
		{"call", "make"},
		{"call", "add", "--args", `{"a":7,"b":"id x1","c":[1,"x1"]}`, "-q", ".sum"},
		{"get-prompt", "greet", "who=ada", "n=2", "-r"},
		{"read", "demo://x1"},
		{"request", "tools/list", `{"cursor":"x1"}`},
		{"complete", "--template", "x:///{a}", "--arg", "a=b", "--context", "c=d"},
		{"complete", "--prompt", "p", "--arg", "a=b"},
		{"list-tools", "--max-pages", "2"},
		{"info"},
		{"call", "echo", "a b"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("words (-want +got):\n%s", d)
	}
	wantNames := []string{"call make", `call add --args '{"a":"{{n}}","b":"id {{id}}","c":[1,"{{id}}"]}' -q .sum`,
		"get-prompt greet who=${WHO} n=2 -r", "read demo://{{id}}", `request tools/list '{"cursor":"{{id}}"}'`,
		"complete --template x:///{a} --arg a=b --context c=d", "complete --prompt p --arg a=b", "list-tools --max-pages 2", "info", long[:200] + "…"}
	if d := cmp.Diff(wantNames, names); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"id", "n"}, f.Steps[1].Needs); d != "" {
		t.Errorf("the captures step 2 needs (-want +got):\n%s", d)
	}
}

// think: is a duration or a range, read for mcpv load's virtual users.
func TestThink(t *testing.T) {
	w := newWorld(t, map[string]string{"t.yaml": "server: {command: [srv]}\nsteps:\n  - ping:\n    think: 2s\n  - ping:\n    think: 1s..3s\n  - ping:\n"})
	f, errs := w.read("t.yaml")
	if errs != "" {
		t.Fatal(errs)
	}
	got := [][2]time.Duration{f.Steps[0].Think, f.Steps[1].Think, f.Steps[2].Think}
	want := [][2]time.Duration{{2 * time.Second, 2 * time.Second}, {time.Second, 3 * time.Second}, {}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("think (-want +got):\n%s", d)
	}
}
