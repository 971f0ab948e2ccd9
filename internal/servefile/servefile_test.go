package servefile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/toolargs"
)

// write writes files in a new directory and returns it.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRead reads the example serve file: each kind of server (a config
// server, with what the file adds; one of its own; one renamed), the
// defaults, and the clients.
func TestRead(t *testing.T) {
	data, err := os.ReadFile("../../examples/gateway.serve.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := write(t, map[string]string{"gateway.serve.yaml": string(data)})
	f, err := Read("gateway.serve.yaml", dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Separator != "__" || f.Start != "lazy" || f.ConnectTimeout.String() != "2m0s" || len(f.Servers) != 3 || len(f.Clients) != 2 {
		t.Fatalf("%+v", f)
	}
	gh, notes, docs := f.Servers[0], f.Servers[1], f.Servers[2]
	if gh.Name != "github" || gh.Config != "github" || gh.Entry != nil || gh.Pin != "mcp-pins.json" || gh.Guard == nil || gh.Guard.DenyTools[0] != "delete_*" {
		t.Errorf("github: %+v", gh)
	}
	if notes.Config != "" || notes.Entry == nil || notes.Entry.Command != "notes-server" || notes.Start != "eager" || notes.Entry.Env[0].Name != "NOTES_DIR" {
		t.Errorf("notes: %+v", notes)
	}
	if docs.Config != "docs-prod" || docs.Prefix == nil || *docs.Prefix != "" || !docs.Isolate {
		t.Errorf("docs: %+v", docs)
	}
	ci, desk := f.Clients[0], f.Clients[1]
	if ci.TokenEnv != "CI_GATEWAY_TOKEN" || !slices.Equal(ci.Servers, []string{"github"}) || ci.Guard.AllowTools[0] != "github__list_*" {
		t.Errorf("ci: %+v", ci)
	}
	if desk.TokenFile != filepath.Join(dir, "desktop.token") || desk.Servers != nil {
		t.Errorf("desktop: %+v", desk)
	}
}

// TestMistakes: every mistake is one line naming the file, its line and
// column, and what is wrong; nothing a server reads is guessed.
func TestMistakes(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"servers: {}\n", "1:10: servers: want an object of the servers to serve"},
		{"sever: {a: {}}\n", `1:1: the top of the file: unknown key "sever"`},
		{"servers:\n  a: {prefx: x}\n", `2:7: server "a": unknown key "prefx"; did you mean "prefix"?`},
		{"servers:\n  a: {args: [x]}\n", `2:6: server "a": args and cwd go with a command of its own`},
		{"servers:\n  a: {command: x, server: b}\n", `server "a": unknown key "server"`},
		{"servers:\n  a: {start: soon}\n", `server "a": start must be eager or lazy, not "soon"`},
		{"servers:\n  a: {isolate: yes please}\n", `isolate must be true or false`},
		{"servers:\n  a: {}\nclients:\n  ci: {token_env: X, token_file: y}\n", `client "ci": give its bearer token as token_file`},
		{"servers:\n  a: {}\nclients:\n  ci: {servers: [a]}\n", `client "ci": give its bearer token`},
		{"servers:\n  a: {}\nclients:\n  ci: {token_env: X, servers: [b]}\n", `client "ci": no server "b" here`},
		{"servers:\n  a: {guard: {allow_tool: [x]}}\n", `unknown guard key "allow_tool"`},
		{"servers:\n  a: {command: x, framing: odd}\n", `unknown framing "odd"`},
		{"servers:\n  a: {connect_timeout: -1}\n", `connect_timeout`},
	} {
		dir := write(t, map[string]string{"s.yaml": tc.file})
		_, err := Read("s.yaml", dir)
		if err == nil || !strings.HasPrefix(err.Error(), "s.yaml:") || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want %q", tc.file, err, tc.want)
		}
	}
}

// TestHostileFiles: a serve file from a cloned repository cannot make
// mcpv hang, fill memory or read what it should not.
func TestHostileFiles(t *testing.T) {
	dir := write(t, map[string]string{
		"laughs.yaml": "x-a: &a [1,1,1,1,1,1,1,1,1,1]\nx-b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nx-c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
			"x-d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\nx-e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nx-f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\nservers: {a: {}}\n",
	})
	if _, err := Read("laughs.yaml", dir); err == nil {
		t.Error("a billion laughs was read")
	}
	if _, err := Read("/dev/zero", dir); err == nil {
		t.Error("/dev/zero was read")
	}
	os.Symlink("/etc/passwd", filepath.Join(dir, "tokens.yaml"))
	if _, err := ReadClients("tokens.yaml", dir); err == nil {
		t.Error("a token file that is another user's was read")
	}
}

// TestProjectServeFile: a serve file under the current repository is a
// project file, whose own stdio servers run once it is trusted.
func TestProjectServeFile(t *testing.T) {
	dir := write(t, map[string]string{"s.yaml": "servers: {a: {command: x}}\n"})
	os.Mkdir(filepath.Join(dir, ".git"), 0o700)
	f, err := Read("s.yaml", dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Source.Kind != config.Project || f.Servers[0].Entry.File.Kind != config.Project {
		t.Errorf("kind %v", f.Source.Kind)
	}
}

// TestServeFileSchema: the schema in docs names the keys the parser
// reads, and the example validates against it.
func TestServeFileSchema(t *testing.T) {
	data, err := os.ReadFile("../../docs/mcpv-serve.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]any
		Defs       map[string]struct{ Properties map[string]any } `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	sorted := func(lists ...[]string) []string {
		var all []string
		for _, l := range lists {
			for _, k := range l {
				if !slices.Contains(all, k) {
					all = append(all, k)
				}
			}
		}
		slices.Sort(all)
		return all
	}
	if d := cmp.Diff(sorted(TopKeys), keys(schema.Properties)); d != "" {
		t.Errorf("top keys (-parser +schema):\n%s", d)
	}
	if d := cmp.Diff(sorted(ServeKeys, AddKeys, EntryKeys), keys(schema.Defs["server"].Properties)); d != "" {
		t.Errorf("server keys (-parser +schema):\n%s", d)
	}
	if d := cmp.Diff(sorted(ClientKeys), keys(schema.Defs["client"].Properties)); d != "" {
		t.Errorf("client keys (-parser +schema):\n%s", d)
	}
	v, err := toolargs.Compile(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	example, _ := os.ReadFile("../../examples/gateway.serve.yaml")
	root, err := config.ParseYAML(example, "a serve file")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := json.Marshal(root)
	if err := v.Validate(context.Background(), doc); err != nil {
		t.Errorf("the example does not validate: %v", err)
	}
}
