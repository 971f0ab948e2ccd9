package commands

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/config"
	"github.com/mcpv/mcpv/redact"
	"github.com/mcpv/mcpv/trust"
)

// target is the one server a run talks to: a command to start, or a URL.
type target struct {
	url    string
	header http.Header // from the config entry; -H adds to it
	mode   string      // the HTTP transport: auto, streamable-http or sse

	command []string
	env     []string // the server's whole environment
	dir     string

	entry   *config.Expanded // when the server came from config
	secrets []string         // values never to be written out
}

// noServer is a command that talks to no server (servers, trust, completions).
type noServer interface{ needsNoServer() }

// resolveTarget picks the server: exactly one of --url, --server and
// -- COMMAND, else MCPV_URL or MCPV_SERVER from the environment.
func (a *app) resolveTarget(kctx *kong.Context) error {
	c := a.flags
	given := 0
	for _, set := range []bool{c.URL != "", c.Server != "", len(a.server) > 0} {
		if set {
			given++
		}
	}
	if given > 1 {
		return usageErrorf("give one server: --url URL, --server NAME or -- COMMAND")
	}
	if given == 0 {
		u, s := a.getenv("MCPV_URL"), a.getenv("MCPV_SERVER")
		if u != "" && s != "" {
			return usageErrorf("MCPV_URL and MCPV_SERVER are both set; unset one, or give --url or --server")
		}
		c.URL, c.Server = u, s
	}
	t := &target{}
	switch {
	case c.URL != "":
		t.url, t.mode = c.URL, c.Transport
	case c.Server != "":
		if err := a.configTarget(kctx, t); err != nil {
			return err
		}
	case len(a.server) > 0:
		t.command = a.server
		t.env = append(slices.Clone(a.environ), c.Env...)
	default:
		return usageErrorf("no server given: add -- COMMAND [ARGS...] after the command, --url URL or --server NAME")
	}
	if t.url == "" && (len(c.Header) > 0 || c.CACert != "") {
		return usageErrorf("--header and --cacert are for HTTP servers")
	}
	if t.url != "" && (len(c.Env) > 0 || c.Cwd != "") {
		return usageErrorf("--env and --cwd are for stdio servers")
	}
	if c.Cwd != "" {
		t.dir = c.Cwd
	}
	t.secrets = append(t.secrets, flagSecrets(c)...)
	a.target = t
	return nil
}

// configEnv is what the config lookup may know.
func (a *app) configEnv() (config.Env, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return config.Env{}, err
	}
	home := a.home()
	return config.Env{
		Getenv: a.getenv,
		Lookup: lookupSet(a.environ),
		Cwd:    cwd,
		Home:   home,
		GOOS:   runtime.GOOS,
		Flag:   a.flags.Config,
	}, nil
}

func (a *app) trustStore(env config.Env) trust.Store {
	return trust.Store{Dir: filepath.Join(trust.StateDir(a.getenv, env.Home), "trusted")}
}

// configTarget looks --server up, checks trust and expands the entry.
func (a *app) configTarget(kctx *kong.Context, t *target) error {
	c := a.flags
	env, err := a.configEnv()
	if err != nil {
		return err
	}
	s, err := config.Find(env, c.Server)
	if err != nil {
		return configError{err}
	}
	if s.File.Kind == config.Project {
		if err := a.checkTrust(env, s); err != nil {
			return err
		}
	}
	x, err := s.Expand(env)
	if err != nil {
		return configError{err}
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(a.ios.Err, "mcpv: warning: %s: server %q: %s\n", s.Where(), s.Name, w)
	}
	if c.Verbose {
		fmt.Fprintf(a.ios.Err, "mcpv: server %q from %s (%s)\n", s.Name, s.Where(), s.File.Label)
	}
	t.entry, t.secrets = x, x.Secrets
	explicit := a.explicit
	if s.Timeout > 0 && !explicit["timeout"] {
		c.Timeout = s.Timeout
	}
	if s.ProtocolVersion != "" && !explicit["protocol-version"] {
		c.ProtocolVersion = s.ProtocolVersion
	}
	if s.Transport != "stdio" {
		t.url = x.URL
		t.mode = s.Transport
		if explicit["transport"] {
			t.mode = c.Transport
		}
		t.header = http.Header{}
		for _, h := range x.Headers {
			t.header.Add(h.Name, h.Value)
		}
		return nil
	}
	t.command = append([]string{x.Command}, x.Args...)
	base := minimalEnv(a.environ, runtime.GOOS)
	if c.InheritEnv {
		base = slices.Clone(a.environ)
	}
	for _, v := range x.Env {
		base = append(base, v.Name+"="+v.Value)
	}
	t.env = append(base, c.Env...)
	t.dir = x.Cwd
	if t.dir == "" && s.File.Kind == config.Project {
		t.dir = s.File.Folder // the programs the user trusted, not those of wherever mcpv runs
	}
	return nil
}

// checkTrust refuses a project file's server that would run a command, or
// send the user's environment somewhere, until the user trusts the file.
func (a *app) checkTrust(env config.Env, s *config.Server) error {
	// Trust is kept for the path as found, not the file a symbolic link
	// points to: a trusted file reached from another directory would run
	// that directory's programs.
	ok, err := a.trustStore(env).Trusted(s.File.Path, s.File.Data)
	if err != nil {
		return fmt.Errorf("reading the trust store: %w", err)
	}
	if ok {
		return nil
	}
	rel := relPath(s.File.Path, env.Cwd)
	refuse := func(what string) error {
		return configErrorf("%s is not trusted; its server %q would %s; review the file, then run: mcpv trust %s",
			rel, s.Name, what, quoteWord(rel))
	}
	if s.Transport == "stdio" {
		return refuse("run: " + describeCommand(s))
	}
	// An untrusted HTTP entry may be used only when nothing of the user's
	// would reach its URL: no variables, no OAuth client, no credentials
	// from the command line.
	url := redact.URL(s.URL)
	switch f := a.flags; {
	case len(s.References()) > 0:
		return refuse(fmt.Sprintf("send ${%s} to %s", strings.Join(s.References(), "}, ${"), url))
	case s.OAuth != (config.OAuth{}):
		return refuse("authenticate an OAuth client at " + url)
	case len(f.Header) > 0 || f.ClientID != "" || f.ClientSecret != "" || f.ClientKey != "" || f.IDToken != "":
		return refuse("receive your --header or OAuth credentials at " + url)
	}
	a.untrusted = true
	return nil
}

// describeCommand shows an entry's command line as written, secrets masked.
func describeCommand(s *config.Server) string {
	words := append([]string{s.Command}, redact.Args(s.Args)...)
	for i, w := range words {
		words[i] = quoteWord(w)
	}
	out := strings.Join(words, " ")
	if s.Cwd != "" {
		out = "(in " + quoteWord(s.Cwd) + ") " + out
	}
	if len(s.Env) > 0 {
		var env []string
		for _, v := range s.Env {
			env = append(env, v.Name+"="+quoteWord(maskValue(v.Name, v.Value)))
		}
		out = "env " + strings.Join(env, " ") + " " + out
	}
	return out
}

// maskValue hides a secret-named value, unless it only names variables
// ("${GITHUB_TOKEN}", "Bearer ${TOKEN}"): then the secret is not in the file.
func maskValue(name, value string) string {
	if !redact.Name(name) {
		return value
	}
	rest := value
	if scheme, after, ok := strings.Cut(value, " "); ok && !strings.Contains(scheme, "$") {
		rest = after
	}
	for _, part := range strings.Fields(rest) {
		if !strings.HasPrefix(part, "${") || !strings.HasSuffix(part, "}") || strings.Count(part, "${") != 1 {
			return redact.HeaderValue(name, value)
		}
	}
	return value
}

// minimalEnv is the environment a server from config starts with: enough to
// find programs and behave like a login shell, nothing of the user's tokens.
func minimalEnv(environ []string, goos string) []string {
	keep := []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR"}
	if goos == "darwin" {
		keep = append(keep, "__CF_USER_TEXT_ENCODING")
	}
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(keep, k) || strings.HasPrefix(k, "LC_") {
			out = append(out, kv)
		}
	}
	return out
}

// flagSecrets are the secrets given on the command line: secret-named --env
// values, -H header values and --client-secret.
func flagSecrets(c *cli) []string {
	var out []string
	for _, s := range []string{c.ClientSecret, c.IDToken} {
		if s != "" && !strings.HasPrefix(s, "@") {
			out = append(out, s)
		}
	}
	for _, kv := range c.Env {
		if k, v, _ := strings.Cut(kv, "="); redact.Name(k) {
			out = append(out, v)
		}
	}
	for _, h := range c.Header {
		if kv, err := parseHeader(h); err == nil && redact.Name(kv[0]) {
			out = append(out, kv[1])
			if _, cred, ok := strings.Cut(kv[1], " "); ok {
				out = append(out, cred)
			}
		}
	}
	return out
}

// explicitFlags are the flags given on the command line (not defaults).
func explicitFlags(kctx *kong.Context) map[string]bool {
	set := map[string]bool{}
	if kctx == nil {
		return set
	}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			set[p.Flag.Name] = true
		}
	}
	return set
}

func relPath(path, cwd string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// quoteWord quotes a word for a POSIX shell when it needs it.
func quoteWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// home is the user's home directory: HOME, else what the system says.
func (a *app) home() string {
	if h := a.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

func lookupSet(environ []string) func(string) (string, bool) {
	return func(key string) (string, bool) {
		for i := len(environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(environ[i], "="); ok && k == key {
				return v, true
			}
		}
		return "", false
	}
}

func (c *completionsCmd) needsNoServer() {}
