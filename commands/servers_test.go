package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// cfgWorld is a home directory and a project (a git repository, mcpv's
// working directory) in a temporary tree, with mcpv's environment pointing
// into it and nothing of the real user's configuration visible.
type cfgWorld struct {
	*world
	root, home, proj string
}

func newCfgWorld(t *testing.T) *cfgWorld {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	w := &cfgWorld{world: newWorld(t), root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj")}
	for _, d := range []string{w.home, filepath.Join(w.proj, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.setenv("HOME", w.home)
	// The same layout on every OS: the catalog, Claude Desktop's and VS
	// Code's files under home/.config (APPDATA is where Windows looks).
	w.setenv("XDG_CONFIG_HOME", filepath.Join(w.home, ".config"))
	w.setenv("APPDATA", filepath.Join(w.home, ".config"))
	w.env.Cwd = w.proj
	return w
}

func (w *cfgWorld) write(t *testing.T, path, content string) string {
	t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(w.proj, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// q quotes a string for a JSON or YAML file.
func q(s string) string { b, _ := json.Marshal(s); return string(b) }

// demoEntry is a stdio entry starting the go-sdk demo server.
func demoEntry() string {
	return `{"command": ` + q(os.Args[0]) + `, "env": {"` + demoEnv + `": "1", "GORACE": "atexit_sleep_ms=0"}}`
}

func fakeEntry(behaviour string, args ...string) string {
	a, _ := json.Marshal(append([]string{}, args...))
	return `{"command": ` + q(fakeProgram()) + `, "args": ` + string(a) + `, "env": {"` + mcptest.EnvVar + `": ` + q(behaviour) + `}}`
}

const demoTools = `["add","ask","big","echo","fail","log","roots","sample","slow"]`

func TestServersFromEachFormatDriveListTools(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	streamable := demoHTTP(t, httpModes["json"])
	legacy := demoLegacySSE(t)
	w.write(t, filepath.Join(w.home, ".config", "Claude", "claude_desktop_config.json"),
		`{"mcpServers": {"desktop-stdio": `+demoEntry()+`}, "globalShortcut": ""}`)
	w.write(t, filepath.Join(w.home, ".cursor", "mcp.json"),
		`{"mcpServers": {"cursor-http": {"url": `+q(streamable)+`}, "cursor-stdio": `+demoEntry()+`}}`)
	w.write(t, filepath.Join(w.home, ".claude.json"),
		`{"projects": {`+q(w.proj)+`: {"mcpServers": {"code-project": `+demoEntry()+`}}}, "mcpServers": {"code-http": {"type": "http", "url": `+q(streamable)+`}}}`)
	w.write(t, ".vscode/mcp.json", `{
  // a project file: its stdio server needs trust, its plain HTTP one does not
  "servers": {
    "vscode-http": {"type": "http", "url": `+q(streamable)+`},
    "vscode-sse": {"type": "sse", "url": `+q(legacy)+`},
    "vscode-stdio": {"type": "stdio", "command": `+q(os.Args[0])+`, "env": {"`+demoEnv+`": "1"}},
  },
}`)
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), `servers:
  catalog-stdio:
    transport: stdio
    command: `+q(os.Args[0])+`
    env: {`+demoEnv+`: "1"}
  catalog-http:
    transport: streamable_http
    http: {endpoint: `+q(streamable)+`}
  catalog-sse:
    transport: sse
    http: {endpoint: `+q(legacy)+`}
`)
	if r := w.mcpv(t, "", "trust", ".vscode/mcp.json"); r.code != 0 {
		t.Fatalf("trust: %d %s", r.code, r.stderr)
	}
	for _, name := range []string{"desktop-stdio", "cursor-http", "cursor-stdio", "code-project", "code-http",
		"vscode-http", "vscode-sse", "vscode-stdio", "catalog-stdio", "catalog-http", "catalog-sse"} {
		r := w.mcpv(t, "", "list-tools", "-s", name, "-c", "-q", "[.tools[].name]")
		if r.code != 0 || strings.TrimSpace(r.stdout) != demoTools {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}
	// Questions from the server name it as the user named it.
	if r := w.mcpv(t, "", "call", "-s", "catalog-stdio", "ask", "message=who?"); !strings.Contains(r.stderr, `server "catalog-stdio" asks: who?`) {
		t.Errorf("elicitation names the server: %q", r.stderr)
	}
	w.setenv("MCPV_SERVER", "catalog-http")
	if r := w.mcpv(t, "", "ping"); r.code != 0 || r.stdout != "{}\n" {
		t.Errorf("MCPV_SERVER: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// An explicit target beats the environment's default.
	if r := w.mcpv(t, "", append([]string{"list-tools", "-c", "-q", "[.tools[].name]"}, demo()...)...); r.code != 0 {
		t.Errorf("-- COMMAND with MCPV_SERVER set: exit %d, stderr %q", r.code, r.stderr)
	}
	w.setenv("MCPV_URL", streamable)
	if r := w.mcpv(t, "", "ping"); r.code != 2 || !strings.Contains(r.stderr, "MCPV_URL and MCPV_SERVER are both set") {
		t.Errorf("both set: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestCatalogTimeoutAndProtocolVersion(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), `servers:
  old:
    command: `+q(os.Args[0])+`
    env: {`+demoEnv+`: "1"}
    protocol_version: "2025-06-18"
  slow:
    command: `+q(os.Args[0])+`
    env: {`+demoEnv+`: "1"}
    timeout: 0.3
`)
	if r := w.mcpv(t, "", "info", "-s", "old", "-q", ".protocolVersion"); r.code != 0 || r.stdout != `"2025-06-18"`+"\n" {
		t.Errorf("protocol_version: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := w.mcpv(t, "", "--protocol-version", "2025-11-25", "info", "-s", "old", "-q", ".protocolVersion"); r.stdout != `"2025-11-25"`+"\n" {
		t.Errorf("an explicit --protocol-version must win: %q %q", r.stdout, r.stderr)
	}
	if r := w.mcpv(t, "", "call", "-s", "slow", "slow", "seconds:=5"); r.code != 124 {
		t.Errorf("timeout: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "--timeout", "30s", "call", "-s", "slow", "slow", "seconds:=0.5", "-q", ".isError"); r.code != 0 {
		t.Errorf("an explicit --timeout must win: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestUntrustedProjectFile(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	logPath := filepath.Join(w.root, "started.log")
	entry := `{"command": ` + q(os.Args[0]) + `, "args": ["--api-key=k-0123456789", "serve"], "env": {"` + mcptest.EnvVar + `": "plain", "` + mcptest.EnvLog + `": ` + q(logPath) + `}}`
	w.write(t, ".mcp.json", `{"mcpServers": {"local": `+entry+`}}`)

	r := w.mcpv(t, "", "ping", "-s", "local")
	wantCmd := "would run: env MCPV_FAKE=plain MCPV_FAKE_LOG=" + shellwords.Quote(logPath) + " " + shellwords.Quote(os.Args[0]) + " '--api-key=***' serve; review the file, then run: mcpv trust .mcp.json"
	if r.code != 2 || !strings.Contains(r.stderr, ".mcp.json is not trusted") || !strings.Contains(r.stderr, wantCmd) {
		t.Fatalf("untrusted: exit %d, stderr %q\nwant %q", r.code, r.stderr, wantCmd)
	}
	if strings.Count(r.stderr, "\n") != 1 || strings.Contains(r.stderr, "k-0123456789") {
		t.Errorf("want one line without the key: %q", r.stderr)
	}
	if _, err := os.Stat(logPath); err == nil {
		t.Fatal("the untrusted server was started")
	}
	if r := w.mcpv(t, "", "servers", "local", "-q", ".trusted"); r.stdout != "false\n" {
		t.Errorf("servers shows trusted %q", r.stdout)
	}

	r = w.mcpv(t, "", "trust")
	var got struct {
		File, Sha256 string
		Servers      []string
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); r.code != 0 || err != nil || got.File != filepath.Join(w.proj, ".mcp.json") || len(got.Sha256) != 64 || len(got.Servers) != 1 {
		t.Fatalf("trust: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := w.mcpv(t, "", "ping", "-s", "local"); r.code != 0 {
		t.Fatalf("trusted: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "servers", "local", "-q", ".trusted"); r.stdout != "true\n" {
		t.Errorf("servers shows trusted %q", r.stdout)
	}

	// Any change needs trust again.
	w.write(t, ".mcp.json", `{"mcpServers": {"local": `+entry+`, "other": {"command": "true"}}}`)
	if r := w.mcpv(t, "", "ping", "-s", "local"); r.code != 2 || !strings.Contains(r.stderr, "not trusted") {
		t.Fatalf("changed file: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "trust", ".mcp.json"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := w.mcpv(t, "", "ping", "-s", "local"); r.code != 0 {
		t.Fatalf("re-trusted: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "trust", "--revoke"); r.code != 0 || !strings.Contains(r.stdout, `"revoked":true`) {
		t.Fatalf("revoke: %q %q", r.stdout, r.stderr)
	}
	if r := w.mcpv(t, "", "ping", "-s", "local"); r.code != 2 {
		t.Fatalf("revoked: exit %d", r.code)
	}

	// Any file under the repository is a project file; one outside is the user's.
	inRepo := w.write(t, "conf/servers.json", `{"mcpServers": {"deep": `+fakeEntry("plain")+`}}`)
	if r := w.mcpv(t, "", "--config", inRepo, "ping", "-s", "deep"); r.code != 2 || !strings.Contains(r.stderr, filepath.Join("conf", "servers.json")+" is not trusted") {
		t.Errorf("--config in the repository: exit %d, stderr %q", r.code, r.stderr)
	}
	outside := w.write(t, filepath.Join(w.root, "mine.json"), `{"mcpServers": {"deep": `+fakeEntry("plain")+`}}`)
	if r := w.mcpv(t, "", "--config", outside, "ping", "-s", "deep"); r.code != 0 {
		t.Errorf("--config outside: exit %d, stderr %q", r.code, r.stderr)
	}
	w.setenv("MCPV_CONFIG", inRepo)
	if r := w.mcpv(t, "", "ping", "-s", "deep"); r.code != 2 {
		t.Errorf("MCPV_CONFIG in the repository: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestUntrustedHTTPEntries(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	url := demoHTTP(t, httpModes["json"])
	w.setenv("SOME_TOKEN", "tok-abcdef")
	w.write(t, ".mcp.json", `{"mcpServers": {
  "plain": {"type": "http", "url": `+q(url)+`},
  "leaky": {"type": "http", "url": `+q(url)+`, "headers": {"Authorization": "Bearer ${SOME_TOKEN}"}}}}`)
	if r := w.mcpv(t, "", "ping", "-s", "plain"); r.code != 0 {
		t.Errorf("plain HTTP entry: exit %d, stderr %q", r.code, r.stderr)
	}
	r := w.mcpv(t, "", "ping", "-s", "leaky")
	if r.code != 2 || !strings.Contains(r.stderr, "would send ${SOME_TOKEN} to "+url) || strings.Contains(r.stderr, "tok-abcdef") {
		t.Errorf("untrusted variables: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestConfigServerEnvironment(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.setenv("LEAKY_VAR", "user-private")
	w.setenv("LC_TIME", "C")
	w.setenv("MY_SECRET", "from-the-environment")
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), `servers:
  env:
    command: `+q(os.Args[0])+`
    cwd: data
    env:
      `+mcptest.EnvVar+`: env
      ENTRY_VAR: declared
      ENTRY_TOKEN: ${MY_SECRET}
`)
	os.MkdirAll(filepath.Join(w.home, ".config", "mcpv", "data"), 0o755)
	serverEnv := func(args ...string) (map[string]string, string) {
		t.Helper()
		r := w.mcpv(t, "", append([]string{"call", "x", "-q", ".structuredContent"}, args...)...)
		var got struct {
			Env map[string]string
			Cwd string
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); r.code != 0 || err != nil {
			t.Fatalf("%q: exit %d, %v, stderr %q", args, r.code, err, r.stderr)
		}
		return got.Env, got.Cwd
	}
	env, cwd := serverEnv("-s", "env")
	allowed := map[string]bool{"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TERM": true, "LANG": true, "TMPDIR": true,
		mcptest.EnvVar: true, "ENTRY_VAR": true, "ENTRY_TOKEN": true}
	for k := range env {
		// Windows keeps a list of its own (internal/connect tests it); wine
		// adds its WINE* variables to every process it starts.
		windowsKeeps := runtime.GOOS == "windows" && (len(connect.MinimalEnv([]string{k + "=x"}, "windows")) > 0 || strings.HasPrefix(k, "WINE"))
		if !allowed[k] && !strings.HasPrefix(k, "LC_") && !windowsKeeps {
			t.Errorf("the server received %s", k)
		}
	}
	if env["ENTRY_VAR"] != "declared" || env["ENTRY_TOKEN"] != "from-the-environment" || env["HOME"] != w.home || env["PATH"] == "" || env["LC_TIME"] != "C" {
		t.Errorf("env: %v", env)
	}
	if cwd != filepath.Join(w.home, ".config", "mcpv", "data") {
		t.Errorf("cwd %q: a relative cwd is relative to the config file", cwd)
	}
	env, _ = serverEnv("-s", "env", "--env", "EXTRA=1")
	if env["EXTRA"] != "1" || env["LEAKY_VAR"] != "" {
		t.Errorf("--env: %v", env)
	}
	env, _ = serverEnv("-s", "env", "--inherit-env")
	if env["LEAKY_VAR"] != "user-private" || env["ENTRY_VAR"] != "declared" {
		t.Errorf("--inherit-env: %v", env)
	}
	env, _ = serverEnv(fake("env")...)
	if env["LEAKY_VAR"] != "user-private" {
		t.Errorf("an ad-hoc command must inherit the environment: %v", env)
	}
	w.unsetenv("MY_SECRET")
	r := w.mcpv(t, "", "ping", "-s", "env")
	if r.code != 2 || !strings.Contains(r.stderr, "environment variable MY_SECRET is not set") {
		t.Errorf("unset variable: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestServersListing(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.write(t, ".mcp.json", `{"mcpServers": {"dup": {"command": "project-one", "args": ["--token", "tok-literal-1"]}}}`)
	w.write(t, filepath.Join(w.home, ".cursor", "mcp.json"), `{"mcpServers": {
  "dup": {"command": "cursor-one"},
  "remote": {"url": "https://bob:pw-literal-2@example.com/mcp?api_key=key-literal-3&v=1",
             "headers": {"Authorization": "Bearer tok-literal-4", "X-Team": "blue", "X-Api-Key": "${API_KEY}"}},
  "local": {"command": "srv", "env": {"DB_PASSWORD": "pw-literal-5", "MODE": "fast", "GH_TOKEN": "${GH_TOKEN}"}}}}`)
	r := w.mcpv(t, "", "servers", "-c")
	for _, s := range []string{"tok-literal-1", "pw-literal-2", "key-literal-3", "tok-literal-4", "pw-literal-5"} {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("servers shows %s", s)
		}
	}
	var got struct{ Servers []map[string]any }
	if err := json.Unmarshal([]byte(r.stdout), &got); r.code != 0 || err != nil {
		t.Fatalf("exit %d, %v, %q", r.code, err, r.stderr)
	}
	cursor := filepath.Join(w.home, ".cursor", "mcp.json")
	want := []map[string]any{
		{"name": "dup", "transport": "stdio", "command": "project-one", "args": []any{"--token", "***"}, "source": filepath.Join(w.proj, ".mcp.json"), "line": 1.0, "from": "project", "trusted": false},
		{"name": "dup", "transport": "stdio", "command": "cursor-one", "source": cursor, "line": 2.0, "from": "Cursor", "shadowed": true},
		{"name": "remote", "transport": "auto", "url": "https://bob:***@example.com/mcp?api_key=***&v=1",
			"headers": map[string]any{"Authorization": "Bearer ***", "X-Team": "blue", "X-Api-Key": "${API_KEY}"}, "source": cursor, "line": 3.0, "from": "Cursor"},
		{"name": "local", "transport": "stdio", "command": "srv", "env": map[string]any{"DB_PASSWORD": "***", "MODE": "fast", "GH_TOKEN": "${GH_TOKEN}"}, "source": cursor, "line": 5.0, "from": "Cursor"},
	}
	if diff := cmp.Diff(want, got.Servers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if r := w.mcpv(t, "", "servers", "dup", "-r", "-q", ".command"); r.stdout != "project-one\n" {
		t.Errorf("servers dup: %q %q", r.stdout, r.stderr)
	}
	if r := w.mcpv(t, "", "servers", "nope"); r.code != 2 || !strings.Contains(r.stderr, `no server named "nope" in `+filepath.Join(w.proj, ".mcp.json")+", "+cursor) {
		t.Errorf("unknown: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, argv := range [][]string{{"servers", "remot"}, {"-s", "Remote", "ping"}} {
		if r := w.mcpv(t, "", argv...); r.code != 2 || !strings.HasSuffix(r.stderr, `; did you mean "remote"?`+"\n") {
			t.Errorf("%v: exit %d, stderr %q", argv, r.code, r.stderr)
		}
	}
	// A broken file of another program's is skipped, with a warning that
	// says where it is broken; it does not stop every lookup.
	w.write(t, ".mcp.json", "{\"mcpServers\": {\n  \"x\": {\"command\": 1}}}")
	for _, c := range []struct {
		argv []string
		code int
	}{{[]string{"servers"}, 0}, {[]string{"servers", "remote"}, 0}, {[]string{"ping", "-s", "x"}, 2}} {
		warning := "mcpv: warning: skipping another program's config file: " + filepath.Join(w.proj, ".mcp.json") + `:2:20: server "x": command must be a string, not a number`
		if r := w.mcpv(t, "", c.argv...); r.code != c.code || !strings.Contains(r.stderr, warning) {
			t.Errorf("%q: exit %d, stderr %q", c.argv, r.code, r.stderr)
		}
	}
}

func TestTargetUsage(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.write(t, ".mcp.json", `{"mcpServers": {"h": {"url": "http://127.0.0.1:1/mcp"}, "s": {"command": "x"}}}`)
	tests := []struct {
		args   []string
		errHas string
	}{
		{[]string{"-s", "h", "-u", "http://127.0.0.1:1", "ping"}, "give one server"},
		{[]string{"-s", "h", "ping", "--", "srv"}, "give one server"},
		{[]string{"-s", "h", "--env", "A=1", "ping"}, "--env and --cwd are for stdio servers"},
		{[]string{"ping"}, "--server NAME"},
		{[]string{"servers", "--", "srv"}, "servers takes no server command"},
		{[]string{"--config", "missing.json", "servers"}, "missing.json"},
	}
	for _, tt := range tests {
		r := w.mcpv(t, "", tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.errHas) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.errHas)
		}
	}
}

func TestUntrustedHTTPEntriesGetNothingOfTheUsers(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	url := demoHTTP(t, httpModes["json"])
	w.setenv("MCPV_CLIENT_SECRET", "env-client-secret")
	w.write(t, ".mcp.json", `{"mcpServers": {
  "plain": {"type": "http", "url": `+q(url)+`},
  "where": {"type": "http", "url": `+q(url+"?home=${userHome}")+`},
  "client": {"type": "http", "url": `+q(url)+`, "oauth": {"client_id": "x", "grant": "client_credentials"}}}}`)
	tests := []struct {
		args   []string
		errHas string
	}{
		{[]string{"ping", "-s", "where"}, "would send ${userHome} to"},
		{[]string{"ping", "-s", "client"}, "would authenticate an OAuth client at " + url},
		{[]string{"ping", "-s", "plain", "-H", "Authorization: Bearer user-token-123"}, "would receive your --header or OAuth credentials"},
	}
	for _, tt := range tests {
		r := w.mcpv(t, "", tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.errHas) || strings.Contains(r.stderr, "user-token-123") {
			t.Errorf("%q: exit %d, stderr %q", tt.args, r.code, r.stderr)
		}
	}
	if r := w.mcpv(t, "", "ping", "-s", "plain"); r.code != 0 {
		t.Errorf("plain: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Trust belongs to the path as found: a link to a trusted file from another
// project does not run that project's programs.
func TestTrustDoesNotFollowSymlinks(t *testing.T) {
	unixOnly(t, "symbolic links and a server written in sh")
	t.Parallel()
	w := newCfgWorld(t)
	entry := `{"mcpServers": {"local": {"command": "./server", "env": {"` + mcptest.EnvVar + `": "env"}}}}`
	trusted := w.write(t, filepath.Join(w.root, "trusted", ".mcp.json"), entry)
	if err := os.Symlink(os.Args[0], filepath.Join(w.root, "trusted", "server")); err != nil {
		t.Fatal(err)
	}
	w.env.Cwd = filepath.Dir(trusted)
	if r := w.mcpv(t, "", "trust"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	r := w.mcpv(t, "", "call", "-s", "local", "x", "-q", ".structuredContent.cwd")
	if r.code != 0 || r.stdout != q(filepath.Dir(trusted))+"\n" {
		t.Fatalf("trusted: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	w.env.Cwd = w.proj
	if err := os.Symlink(trusted, filepath.Join(w.proj, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	if r := w.mcpv(t, "", "ping", "-s", "local"); r.code != 2 || !strings.Contains(r.stderr, ".mcp.json is not trusted") {
		t.Fatalf("through a link: exit %d, stderr %q", r.code, r.stderr)
	}
	// A project server runs in its file's directory, so a trusted file read
	// with --config from elsewhere still runs the programs beside it.
	r = w.mcpv(t, "", "--config", trusted, "call", "-s", "local", "x", "-q", ".structuredContent.cwd")
	if r.code != 0 || r.stdout != q(filepath.Dir(trusted))+"\n" {
		t.Fatalf("--config from elsewhere: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// An untrusted repository cannot put its own URL behind a name the user's
// own files define: `mcpv -s notes call ... x=@~/private.txt` must not send
// the file anywhere but the user's notes server.
func TestUntrustedProjectCannotShadowTheUsersServers(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	attacker := newHTTPFake(t, nil) // records whatever reaches it
	catalog := w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers:\n  notes:\n    command: "+q(os.Args[0])+"\n")
	w.write(t, ".mcp.json", `{"mcpServers": {"notes": {"type": "http", "url": `+q(attacker.URL)+`}}}`)
	private := w.write(t, filepath.Join(w.home, "private.txt"), "my private notes")
	r := w.mcpv(t, "", "-s", "notes", "call", "save", "text=@"+private)
	if r.code != 2 || !strings.Contains(r.stderr, `.mcp.json, which is not trusted, defines server "notes", which `+catalog+":") ||
		!strings.Contains(r.stderr, "defines too; mcpv will not let it replace yours") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := requestLog(attacker); got != "" {
		t.Errorf("the project's server was contacted:\n%s", got)
	}
	// Trusted, the project's file may name its own servers as it likes.
	if r := w.mcpv(t, "", "trust"); r.code != 0 {
		t.Fatalf("trust: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "-s", "notes", "ping"); !strings.Contains(requestLog(attacker), "POST initialize") {
		t.Errorf("after trust the project's server was not used: exit %d, stderr %q", r.code, r.stderr)
	}
}

// An untrusted HTTP entry never gets OAuth: not a stored token, not a
// browser flow that could show a look-alike login page.
func TestUntrustedHTTPEntryStartsNoBrowserFlow(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	srv, opened := authWorld(t, w.world)
	w.write(t, ".mcp.json", `{"mcpServers": {"github": {"type": "http", "url": `+q(srv.URL())+`}}}`)
	r := w.mcpv(t, "", "--auth", "auto", "-s", "github", "ping")
	if r.code != 5 {
		t.Errorf("exit %d, want 5 (authorization required); stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(opened); err == nil || srv.Count("authorize") != 0 || srv.Count("register") != 0 {
		t.Error("an untrusted entry started a browser flow")
	}
}

// A state directory another user can write to is not used: neither trust
// nor tokens are read from it, and the message says what to run.
func TestStateDirectoryMustBeTheUsers(t *testing.T) {
	unixOnly(t, "Unix modes; internal/safedir and internal/winacl check Windows ACLs")
	t.Parallel()
	w := newCfgWorld(t)
	state := t.TempDir()
	w.setenv("XDG_STATE_HOME", state)
	w.write(t, ".mcp.json", `{"mcpServers": {"local": `+fakeEntry("plain")+`}}`)
	if r := w.mcpv(t, "", "trust"); r.code != 0 {
		t.Fatalf("trust: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := w.mcpv(t, "", "ping", "-s", "local"); r.code != 0 {
		t.Fatalf("trusted: exit %d, stderr %q", r.code, r.stderr)
	}
	os.Chmod(filepath.Join(state, "mcpv", "trusted"), 0o777)
	want := "mcpv: the state directory " + filepath.Join(state, "mcpv", "trusted") + " can be written by others (mode 0777); fix it with: chmod go-w"
	for _, argv := range [][]string{{"ping", "-s", "local"}, {"trust"}, {"auth", "status", "-u", "http://127.0.0.1:1/mcp"}} {
		r := w.mcpv(t, "", argv...)
		if argv[0] == "auth" {
			os.Chmod(filepath.Join(state, "mcpv", "trusted"), 0o700)
			os.MkdirAll(filepath.Join(state, "mcpv", "oauth"), 0o777)
			os.Chmod(filepath.Join(state, "mcpv", "oauth"), 0o777)
			r = w.mcpv(t, "", argv...)
			want = strings.ReplaceAll(want, "trusted", "oauth")
		}
		if r.code != 2 || !strings.HasPrefix(r.stderr, want) {
			t.Errorf("%q: exit %d, stderr %q", argv, r.code, r.stderr)
		}
	}
}
