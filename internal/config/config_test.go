package config

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// world is a home directory, a config directory and a project directory in
// a temporary tree, and an environment for them.
type world struct {
	home, project string
	vars          map[string]string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{home: filepath.Join(root, "home"), project: filepath.Join(root, "proj"), vars: map[string]string{}}
	for _, d := range []string{w.home, w.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *world) env(goos string) Env {
	return Env{
		Getenv: func(k string) string { return w.vars[k] },
		Lookup: func(k string) (string, bool) { v, ok := w.vars[k]; return v, ok },
		Cwd:    w.project,
		Home:   w.home,
		GOOS:   goos,
	}
}

func put(t *testing.T, path, fixture string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		data = []byte(fixture) // inline content
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFormats(t *testing.T) {
	w := newWorld(t)
	put(t, filepath.Join(w.home, ".config", "Claude", "claude_desktop_config.json"), "claude_desktop_config.json")
	put(t, filepath.Join(w.home, ".cursor", "mcp.json"), "cursor_mcp.json")
	put(t, filepath.Join(w.project, ".vscode", "mcp.json"), "vscode_mcp.json")
	put(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers.yaml")
	put(t, filepath.Join(w.home, ".config", "Code", "User", "mcp.json"), "vscode_mcp.json") // VS Code's user file, same format

	type view struct {
		Transport, Command, URL, Cwd, From string
		Args                               []string
		Env, Headers                       []Var
		Line                               int
		Timeout                            time.Duration
		Protocol                           string
	}
	files, _, err := All(w.env("linux"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]view{}
	var order []string
	for _, f := range files {
		for _, s := range f.Servers {
			order = append(order, f.Label+"/"+s.Name)
			got[f.Label+"/"+s.Name] = view{s.Transport, s.Command, s.URL, s.Cwd, s.File.Label, s.Args, s.Env, s.Headers, s.Line, s.Timeout, s.ProtocolVersion}
		}
	}
	wantOrder := []string{
		"project (VS Code)/memory", "project (VS Code)/web", "project (VS Code)/api",
		"mcpv catalog/demo", "mcpv catalog/remote",
		"Claude Desktop/filesystem", "Claude Desktop/github",
		"VS Code/memory", "VS Code/web", "VS Code/api",
		"Cursor/remote", "Cursor/local",
	}
	if diff := cmp.Diff(wantOrder, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	want := map[string]view{
		"project (VS Code)/memory": {Transport: "stdio", Command: "node", Args: []string{"${workspaceFolder}/server.js"}, Cwd: "sub", From: "project (VS Code)", Line: 5},
		"project (VS Code)/web":    {Transport: "sse", URL: "http://127.0.0.1:9/sse", From: "project (VS Code)", Line: 12},
		"project (VS Code)/api":    {Transport: "streamable-http", URL: "http://127.0.0.1:9/mcp", Headers: []Var{{"X-Api-Key", "${env:API_KEY}"}}, From: "project (VS Code)", Line: 13},
		"mcpv catalog/demo": {Transport: "stdio", Command: "./demo-server", Args: []string{"--verbose"}, Env: []Var{{"DEMO_TOKEN", "literal-secret-value"}},
			Cwd: "/tmp", From: "mcpv catalog", Line: 4, Timeout: 30 * time.Second, Protocol: "2025-06-18"},
		"mcpv catalog/remote": {Transport: "streamable-http", URL: "https://user:hunter22@example.com/mcp?api_key=k3y&x=1",
			Headers: []Var{{"Cookie", "session=abc123"}}, From: "mcpv catalog", Line: 13, Timeout: 90 * time.Second},
		"Claude Desktop/filesystem": {Transport: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"}, From: "Claude Desktop", Line: 3},
		"Claude Desktop/github": {Transport: "stdio", Command: "docker", Args: []string{"run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"},
			Env: []Var{{"GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_plantedSecret123"}}, From: "Claude Desktop", Line: 7},
		"VS Code/memory": {Transport: "stdio", Command: "node", Args: []string{"${workspaceFolder}/server.js"}, Cwd: "sub", From: "VS Code", Line: 5},
		"VS Code/web":    {Transport: "sse", URL: "http://127.0.0.1:9/sse", From: "VS Code", Line: 12},
		"VS Code/api":    {Transport: "streamable-http", URL: "http://127.0.0.1:9/mcp", Headers: []Var{{"X-Api-Key", "${env:API_KEY}"}}, From: "VS Code", Line: 13},
		"Cursor/remote":  {Transport: "auto", URL: "https://example.com/mcp", Headers: []Var{{"Authorization", "Bearer ${API_TOKEN}"}}, From: "Cursor", Line: 3},
		"Cursor/local":   {Transport: "stdio", Command: "python", Args: []string{"server.py"}, Env: []Var{{"LOG_LEVEL", "debug"}}, From: "Cursor", Line: 7},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

func TestSourceOrder(t *testing.T) {
	w := newWorld(t)
	entry := func(cmd string) string { return `{"mcpServers":{"s":{"command":"` + cmd + `"}}}` }
	explicit := filepath.Join(w.home, "explicit.json")
	fromEnv := filepath.Join(w.home, "env.json")
	layers := []struct {
		path, cmd string
		set       func()
	}{
		{explicit, "explicit", nil},
		{fromEnv, "env", nil},
		{filepath.Join(w.project, ".mcp.json"), "project", nil},
		{filepath.Join(w.project, ".vscode", "mcp.json"), "vscode", nil},
		{filepath.Join(w.project, ".cursor", "mcp.json"), "cursor-project", nil},
		{filepath.Join(w.home, "xdg", "mcpv", "servers.yaml"), "catalog-yaml", nil},
		{filepath.Join(w.home, "xdg", "mcpv", "servers.json"), "catalog-json", nil},
		{filepath.Join(w.home, ".claude.json"), "claude-code", nil},
		{filepath.Join(w.home, "xdg", "Claude", "claude_desktop_config.json"), "claude-desktop", nil},
		{filepath.Join(w.home, "xdg", "Code", "User", "mcp.json"), "vscode-user", nil},
		{filepath.Join(w.home, ".cursor", "mcp.json"), "cursor", nil},
	}
	for _, l := range layers {
		put(t, l.path, entry(l.cmd))
	}
	w.vars["XDG_CONFIG_HOME"] = filepath.Join(w.home, "xdg")
	w.vars["MCPV_CONFIG"] = fromEnv
	env := w.env("linux")
	env.Flag = explicit
	// Remove the winner each round: the next layer must answer.
	for _, l := range layers {
		s, _, err := Find(env, "s")
		if err != nil {
			t.Fatalf("%s: %v", l.cmd, err)
		}
		if s.Command != l.cmd || RealPath(s.File.Path) != RealPath(l.path) {
			t.Fatalf("want %s from %s, got %s from %s", l.cmd, l.path, s.Command, s.File.Path)
		}
		switch l.path {
		case explicit:
			env.Flag = ""
		case fromEnv:
			delete(w.vars, "MCPV_CONFIG")
		default:
			os.Remove(l.path)
		}
	}
	_, _, err := Find(env, "s")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !strings.Contains(err.Error(), `no server named "s"`) {
		t.Fatalf("after removing every layer: %v", err)
	}
}

func TestDarwinAndClaudeCodeProjects(t *testing.T) {
	w := newWorld(t)
	put(t, filepath.Join(w.home, "Library", "Application Support", "Claude", "claude_desktop_config.json"), `{"mcpServers":{"mac":{"command":"m"}}}`)
	claude, _ := os.ReadFile("testdata/claude.json")
	put(t, filepath.Join(w.home, ".claude.json"), strings.ReplaceAll(string(claude), "/work/proj", w.project))
	files, _, err := All(w.env("darwin"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		for _, s := range f.Servers {
			names = append(names, s.Name+"="+s.Command+s.URL)
		}
	}
	want := []string{"local-only=proj-server", "shared=from-project", "user-wide=http://127.0.0.1:1/mcp", "mac=m"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRequiredFilesMustExist(t *testing.T) {
	w := newWorld(t)
	w.vars["MCPV_CONFIG"] = filepath.Join(w.home, "missing.json")
	_, _, err := Find(w.env("linux"), "x")
	if err == nil || !strings.Contains(err.Error(), "missing.json") || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("got %v", err)
	}
}

func TestParseErrorsHaveLineAndColumn(t *testing.T) {
	cases := []struct {
		name, file, content, want string
	}{
		{"json syntax", "a.json", "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"a\",}\n    \"y\": 1\n  }\n}\n", ":4:5: invalid character '\"' after object key:value pair"},
		{"json type", "a.json", "{\"mcpServers\": {\n  \"x\": {\"command\": \"a\", \"args\": \"-v\"}}}", `:2:33: server "x": args must be an array of strings, not a string`},
		{"json not an object", "a.json", `{"mcpServers": {"x": 3}}`, `:1:22: server "x": want an object, found a number`},
		{"json both", "a.json", `{"mcpServers": {"x": {"command": "a", "url": "http://h/"}}}`, `:1:22: server "x": has both a command and a URL`},
		{"json neither", "a.json", `{"mcpServers": {"x": {"args": []}}}`, `:1:22: server "x": needs a command (or a url)`},
		{"json bad type", "a.json", `{"servers": {"x": {"type": "ws", "url": "ws://h"}}}`, `:1:28: server "x": unknown type "ws"`},
		{"json env type", "a.json", "{\"servers\": {\"x\": {\"command\": \"a\",\n \"env\": {\"A\": {}}}}}", `:2:15: server "x": env.A must be a string, not an object`},
		{"json unicode column", "a.json", `{"mcpServers": {"é": 1}}`, `:1:22: server "é": want an object`},
		{"yaml syntax", "a.yaml", "servers:\n  a:\n    command: x\n   args: [1\n", ":4:4: did not find expected key"},
		{"yaml tab", "a.yaml", "servers:\n\tx: 1\n", ":2:1: found character that cannot start any token"},
		{"yaml duplicate", "a.yaml", "servers:\n  a: {command: x}\n  a: {command: y}\n", `:3:3: "a" is already defined on line 2`},
		{"yaml timeout", "a.yaml", "servers:\n  a:\n    command: x\n    timeout: soon\n", `:4:14: server "a": timeout "soon" is not a duration: want e.g. 30s, 1m30s or a number of seconds`},
		{"yaml http", "a.yaml", "servers:\n  a:\n    transport: sse\n    http: [1]\n", `:4:11: server "a": http must be an object, not an array`},
		{"yaml transport", "a.yaml", "servers:\n  a:\n    transport: websocket\n    command: x\n", `:3:16: server "a": unknown transport "websocket"`},
		{"yaml framing", "a.yaml", "servers:\n  a:\n    command: x\n    framing: lsp\n", `:4:14: server "a": unknown framing "lsp" (want auto, lines or content-length)`},
		{"yaml framing for http", "a.yaml", "servers:\n  a:\n    url: http://h/\n    framing: lines\n", `:4:14: server "a": framing is for stdio servers`},
		{"yaml guard key", "a.yaml", "servers:\n  a:\n    command: x\n    guard: {allow: [x]}\n", `:4:13: server "a": unknown guard key "allow"`},
		{"yaml guard read_only", "a.yaml", "servers:\n  a:\n    command: x\n    guard: {read_only: yes please}\n", `server "a": guard.read_only must be true or false, not a string`},
		{"yaml guard empty", "a.yaml", "servers:\n  a:\n    command: x\n    guard: {deny_tools: [\"\"]}\n", `server "a": guard.deny_tools: an empty pattern matches nothing`},
		{"yaml guard blank", "a.yaml", "servers:\n  a:\n    command: x\n    guard: {allow_tools: [a, \"  \"]}\n", `server "a": guard.allow_tools: an empty pattern matches nothing`},
		{"yaml root", "a.yaml", "- 1\n", `:1:1: want a mapping with "servers", found an array`},
		// After a byte-order mark, positions are those an editor shows.
		{"json BOM", "a.json", "\xEF\xBB\xBF{\"mcpServers\": {\"x\": 3}}", `:1:22: server "x": want an object, found a number`},
		{"json syntax BOM", "a.json", "\xEF\xBB\xBF{\"mcpServers\": {\"x\": {\"command\": \"a\",} \"y\": 1}}", ":1:40: invalid character '\"' after object key:value pair"},
		{"yaml syntax BOM", "a.yaml", "\xEF\xBB\xBFservers: [1\n", ":2:1: did not find expected ',' or ']'"},
		{"yaml BOM", "a.yaml", "\xEF\xBB\xBFservers:\n  a:\n    transport: websocket\n    command: x\n", `:3:16: server "a": unknown transport "websocket"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			put(t, path, c.content)
			_, err := Load(Source{Path: path, Required: true, YAML: strings.HasSuffix(c.file, ".yaml")})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got  %q\nwant %s%s…", err, path, c.want)
			}
		})
	}
}

func TestGuardEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.yaml")
	put(t, path, "servers:\n  a:\n    url: http://h/\n    guard:\n      allow_tools: [read_*, list_*]\n      deny_resources: ['file:///secret/*']\n      read_only: true\n")
	f, err := Load(Source{Path: path, Required: true, YAML: true})
	if err != nil {
		t.Fatal(err)
	}
	want := &Guard{AllowTools: []string{"read_*", "list_*"}, DenyResources: []string{"file:///secret/*"}, ReadOnly: true}
	if d := cmp.Diff(want, f.Servers[0].Guard); d != "" {
		t.Fatalf("guard (-want +got):\n%s", d)
	}
}

func TestJSONCKeepsPositions(t *testing.T) {
	in := "{ // c\n \"a\": [1, 2,], /* x\n y */ \"b\": \"// not a comment\", }"
	out := stripJSONC([]byte(in))
	if len(out) != len(in) || strings.Count(string(out), "\n") != strings.Count(in, "\n") {
		t.Fatalf("length or lines changed: %q", out)
	}
	if !strings.Contains(string(out), `"// not a comment"`) {
		t.Fatalf("a string was blanked: %q", out)
	}
	if _, err := checkJSON([]byte(in)); err != nil {
		t.Fatal(err)
	}
}

func TestExpand(t *testing.T) {
	w := newWorld(t)
	w.vars["TOKEN"] = "tok-123456"
	w.vars["EMPTY"] = ""
	w.vars["HOST"] = "127.0.0.1"
	path := filepath.Join(w.project, ".vscode", "mcp.json")
	put(t, path, `{"servers": {
  "s": {"command": "${userHome}/bin/srv", "args": ["--root=${workspaceFolder}", "--host", "${env:HOST}", "--level=${LEVEL:-info}", "e=${EMPTY}"],
        "env": {"API_KEY": "${TOKEN}", "PLAIN": "x"}, "cwd": "data"},
  "h": {"url": "https://u:pw-secret@${HOST}/mcp?token=${TOKEN}", "headers": {"Authorization": "Bearer ${TOKEN}", "X-Trace": "${HOST}"}},
  "unset": {"command": "x", "args": ["${NOPE}"]},
  "bad": {"command": "${input:key}"}
}}`)
	f, err := Load(Source{Path: path, Folder: w.project})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Server{}
	for _, s := range f.Servers {
		byName[s.Name] = s
	}
	x, err := byName["s"].Expand(w.env("linux"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"--root=" + w.project, "--host", "127.0.0.1", "--level=info", "e="}, x.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if x.Command != w.home+"/bin/srv" || x.Cwd != filepath.Join(w.project, "data") {
		t.Errorf("command %q cwd %q", x.Command, x.Cwd)
	}
	if diff := cmp.Diff([]Var{{"API_KEY", "tok-123456"}, {"PLAIN", "x"}}, x.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	h, err := byName["h"].Expand(w.env("linux"))
	if err != nil {
		t.Fatal(err)
	}
	if h.URL != "https://u:pw-secret@127.0.0.1/mcp?token=tok-123456" {
		t.Errorf("url %q", h.URL)
	}
	for _, s := range []string{"tok-123456", "pw-secret"} {
		found := false
		for _, sec := range append(x.Secrets, h.Secrets...) {
			found = found || sec == s
		}
		if !found {
			t.Errorf("secret %q not collected: %q %q", s, x.Secrets, h.Secrets)
		}
	}
	for _, sec := range h.Secrets {
		if sec == "127.0.0.1" {
			t.Errorf("a plain value was taken for a secret: %q", h.Secrets)
		}
	}
	_, err = byName["unset"].Expand(w.env("linux"))
	var ue *UnsetError
	if !errors.As(err, &ue) || ue.Var != "NOPE" || !strings.Contains(err.Error(), "environment variable NOPE is not set") || !strings.Contains(err.Error(), path+":5:12:") {
		t.Errorf("unset: %v", err)
	}
	if _, err := byName["bad"].Expand(w.env("linux")); err == nil || !strings.Contains(err.Error(), `${input:key}: the file declares no such input under "inputs"; set MCPV_INPUT_KEY`) {
		t.Errorf("input variable: %v", err)
	}
	if diff := cmp.Diff([]string{"NOPE"}, byName["unset"].References()); diff != "" {
		t.Errorf("references: %s", diff)
	}
}

func TestProjectKind(t *testing.T) {
	w := newWorld(t)
	if err := os.Mkdir(filepath.Join(w.project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(w.project, "sub")
	os.MkdirAll(sub, 0o755)
	inRepo := filepath.Join(w.project, "conf", "servers.json")
	outside := filepath.Join(w.home, "servers.json")
	put(t, inRepo, `{}`)
	put(t, outside, `{}`)
	env := w.env("linux")
	env.Cwd = sub
	kinds := map[string]Kind{}
	env.Flag = inRepo
	w.vars["MCPV_CONFIG"] = outside
	for _, s := range Sources(env) {
		kinds[s.Label] = s.Kind
	}
	if kinds["--config"] != Project || kinds["MCPV_CONFIG"] != User || kinds["project"] != Project || kinds["mcpv catalog"] != User {
		t.Fatalf("kinds: %v", kinds)
	}
	// The same file named twice keeps the stricter kind.
	env.Cwd = filepath.Join(w.project, "conf")
	env.Flag = filepath.Join(env.Cwd, ".mcp.json")
	n := 0
	for _, s := range Sources(env) {
		if s.Path == env.Flag {
			n++
			if s.Kind != Project {
				t.Errorf("%s: kind %v", s.Path, s.Kind)
			}
		}
	}
	if n != 1 {
		t.Errorf(".mcp.json listed %d times", n)
	}
}

func TestCursorAgreesWithLineCol(t *testing.T) {
	data := []byte("{\n  \"é\": [1,\n\n 2], \"ü\": \"x\"\n}\n")
	c := &cursor{data: data}
	offsets := []int{0, 3, 5, 9, 12, 13, 14, 20, len(data), 2, 7} // forwards, then back
	naive := func(off int) (line, col int) {                      // counted character by character
		line, col = 1, 1
		for _, r := range string(data[:off]) {
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return line, col
	}
	for _, off := range offsets {
		l1, c1 := naive(off)
		l2, c2 := c.at(off)
		if l1 != l2 || c1 != c2 {
			t.Errorf("offset %d: counted %d:%d, cursor %d:%d", off, l1, c1, l2, c2)
		}
	}
}

// Project files are found in the directory mcpv runs in and at the top of
// its repository; the nearer one wins, and ${workspaceFolder} is the
// directory holding the file.
func TestProjectFilesFromTheRepositoryRoot(t *testing.T) {
	w := newWorld(t)
	os.Mkdir(filepath.Join(w.project, ".git"), 0o755)
	sub := filepath.Join(w.project, "a", "b")
	os.MkdirAll(sub, 0o755)
	put(t, filepath.Join(w.project, ".mcp.json"), `{"mcpServers":{"top":{"command":"${workspaceFolder}/t"},"both":{"command":"root"}}}`)
	put(t, filepath.Join(sub, ".cursor", "mcp.json"), `{"mcpServers":{"both":{"command":"near"}}}`)
	env := w.env("linux")
	env.Cwd = sub
	top, _, err := Find(env, "top")
	if err != nil || top.File.Kind != Project || top.File.Folder != w.project {
		t.Fatalf("top: %+v, %v", top, err)
	}
	x, err := top.Expand(env)
	if err != nil || x.Command != filepath.Join(w.project, "t") {
		t.Errorf("expanded command %q, %v", x.Command, err)
	}
	defs, _, err := Definitions(env, "both")
	if err != nil || len(defs) != 2 || defs[0].Command != "near" || defs[1].Command != "root" {
		t.Errorf("definitions of both: %v, %v", defs, err)
	}
}

// Another program's broken file is skipped, and said so; mcpv's own is an
// error.
func TestBrokenForeignFilesAreSkipped(t *testing.T) {
	w := newWorld(t)
	put(t, filepath.Join(w.home, ".claude.json"), `{"mcpServers": {`)
	put(t, filepath.Join(w.home, ".cursor", "mcp.json"), `{"mcpServers":{"s":{"command":"from-cursor"}}}`)
	s, skipped, err := Find(w.env("linux"), "s")
	if err != nil || s.Command != "from-cursor" {
		t.Fatalf("Find = %v, %v", s, err)
	}
	if len(skipped) != 1 || !strings.HasSuffix(skipped[0].Path, ".claude.json") {
		t.Errorf("skipped %v", skipped)
	}
	put(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers: [")
	if _, _, err := Find(w.env("linux"), "s"); err == nil || !strings.Contains(err.Error(), "servers.yaml") {
		t.Errorf("a broken catalog: %v", err)
	}
}

// Where each OS keeps the files mcpv reads, for a user who has them all.
func TestSourcesPerOS(t *testing.T) {
	paths := func(env Env) map[string][]string {
		out := map[string][]string{}
		for _, s := range Sources(env) {
			if s.Kind == User {
				out[s.Label] = append(out[s.Label], s.Path)
			}
			if s.Label == "VS Code" && (!s.Foreign || s.Kind != User) {
				t.Errorf("VS Code's user file is the user's, written by another program: %+v", s)
			}
		}
		return out
	}
	// want lists the user's files for a home, the directories the catalog
	// is looked for in, and where desktop programs keep their settings.
	want := func(sep, home, apps string, catalogs ...string) map[string][]string {
		j := func(elem ...string) string { return strings.Join(elem, sep) }
		m := map[string][]string{
			"Claude Code":    {j(home, ".claude.json")},
			"Claude Desktop": {j(apps, "Claude", "claude_desktop_config.json")},
			"VS Code":        {j(apps, "Code", "User", "mcp.json")},
			"Cursor":         {j(home, ".cursor", "mcp.json")},
		}
		for _, dir := range catalogs {
			for _, name := range []string{"servers.yaml", "servers.yml", "servers.json"} {
				m["mcpv catalog"] = append(m["mcpv catalog"], j(dir, "mcpv", name))
			}
		}
		return m
	}
	get := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	const winHome, roaming, macApps = `C:\Users\me`, `C:\Users\me\AppData\Roaming`, "/Users/me/Library/Application Support"
	tests := []struct {
		name string
		vars map[string]string
		env  Env
		want map[string][]string
	}{
		{"windows", map[string]string{"APPDATA": roaming}, Env{GOOS: "windows", Home: winHome},
			want(`\`, winHome, roaming, roaming)},
		{"windows without APPDATA", nil, Env{GOOS: "windows", Home: winHome},
			want(`\`, winHome, roaming, roaming)},
		// mcpv's catalog follows an XDG_CONFIG_HOME set on purpose, as gh
		// does; the desktop programs' files stay under %APPDATA%.
		{"windows with XDG_CONFIG_HOME", map[string]string{"APPDATA": roaming, "XDG_CONFIG_HOME": `D:\cfg`}, Env{GOOS: "windows", Home: winHome},
			want(`\`, winHome, roaming, `D:\cfg`)},
		{"darwin (a relative XDG_CONFIG_HOME is ignored)", map[string]string{"XDG_CONFIG_HOME": "relative"}, Env{GOOS: "darwin", Home: "/Users/me"},
			want("/", "/Users/me", macApps, "/Users/me/.config", macApps)},
		{"darwin with XDG_CONFIG_HOME", map[string]string{"XDG_CONFIG_HOME": "/cfg"}, Env{GOOS: "darwin", Home: "/Users/me"},
			want("/", "/Users/me", macApps, "/cfg")},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "/cfg"}, Env{GOOS: "linux", Home: "/home/me"},
			want("/", "/home/me", "/cfg", "/cfg")},
		{"linux without XDG_CONFIG_HOME (a relative one is ignored)", map[string]string{"XDG_CONFIG_HOME": "cfg"}, Env{GOOS: "linux", Home: "/home/me"},
			want("/", "/home/me", "/home/me/.config", "/home/me/.config")},
	}
	for _, tt := range tests {
		if runtime.GOOS == "windows" && tt.env.GOOS != "windows" {
			continue // Unix paths, which Windows would join its own way
		}
		tt.env.Getenv, tt.env.Cwd = get(tt.vars), "/w"
		if tt.env.GOOS == "windows" {
			tt.env.Cwd = `C:\work`
		}
		if d := cmp.Diff(tt.want, paths(tt.env)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

// PowerShell 5.1 writes UTF-8 files with a byte-order mark: every config
// file is read with or without one, and trust covers the bytes as they are.
func TestByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"a.json":    "\xEF\xBB\xBF{\"mcpServers\": {\"x\": {\"command\": \"npx\", \"args\": [\"-y\", \"pkg\"]}}}\r\n",
		"vs.json":   "\xEF\xBB\xBF{\"servers\": {\"x\": {\"type\": \"stdio\", \"command\": \"npx\", \"args\": [\"-y\", \"pkg\"]}}}",
		"b.yaml":    "\xEF\xBB\xBFservers:\r\n  x:\r\n    command: npx\r\n    args: [-y, pkg]\r\n",
		"plain.yml": "servers:\n  x:\n    command: npx\n    args: [-y, pkg]\n",
	} {
		path := filepath.Join(dir, name)
		put(t, path, content)
		f, err := Load(Source{Path: path, Required: true, YAML: !strings.HasSuffix(name, ".json")})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(f.Servers) != 1 || f.Servers[0].Command != "npx" || strings.Join(f.Servers[0].Args, " ") != "-y pkg" {
			t.Errorf("%s: %+v", name, f.Servers)
		}
		if string(f.Data) != content {
			t.Errorf("%s: Data is not the file's bytes", name)
		}
	}
}
