package connect

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/keeper"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/shellwords"
)

// Resolve finds the server a run talks to and merges its settings: exactly
// one of --url, --server and the words after -- (server), else MCPV_URL or
// MCPV_SERVER. A config entry is looked up, checked for trust and
// expanded; -H @FILE, --client-secret and --id-token are read. Warnings
// about the entry go to log.
func Resolve(f Flags, explicit map[string]bool, server []string, env Env, log *slog.Logger) (*Settings, error) {
	return resolve(f, explicit, server, env, log, nil)
}

// resolve is Resolve; entry, when set, is the config entry of f.Server,
// found by the caller.
func resolve(f Flags, explicit map[string]bool, server []string, env Env, log *slog.Logger, entry *config.Server) (*Settings, error) {
	given := 0
	for _, set := range []bool{f.URL != "", f.Server != "", len(server) > 0, f.Session != ""} {
		if set {
			given++
		}
	}
	if given > 1 {
		return nil, errkind.Usagef("give one server: --url URL, --server NAME, -- COMMAND or --session NAME")
	}
	from := "--session"
	if given == 0 && env.Getenv("MCPV_SESSION") != "" {
		f.Session, from = env.Getenv("MCPV_SESSION"), "MCPV_SESSION"
	} else if given == 0 {
		u, s := env.Getenv("MCPV_URL"), env.Getenv("MCPV_SERVER")
		if u != "" && s != "" {
			return nil, errkind.Usagef("MCPV_URL and MCPV_SERVER are both set; unset one, or give --url or --server")
		}
		f.URL, f.Server = u, s
	}
	if f.Session != "" {
		if err := keeper.CheckName(f.Session); err != nil {
			return nil, errkind.Usagef("%s: %v", from, err)
		}
		return Merge(f, explicit, Source{Session: f.Session}, env)
	}
	src := Source{URL: f.URL, Command: server}
	if f.Server != "" {
		x, untrusted, err := lookup(f, env, log, entry)
		if err != nil {
			return nil, err
		}
		src.Entry, src.Untrusted = x, untrusted
	}
	var err error
	if src.Headers, err = readHeaders(f.Header, env); err != nil {
		return nil, err
	}
	if !src.Untrusted {
		if src.ClientSecret, err = secretFlag("--client-secret", f.ClientSecret, "MCPV_CLIENT_SECRET", env); err != nil {
			return nil, err
		}
		if src.IDToken, err = secretFlag("--id-token", f.IDToken, "MCPV_ID_TOKEN", env); err != nil {
			return nil, err
		}
		if src.Assertion, err = secretFlag("--assertion", f.Assertion, "MCPV_ASSERTION", env); err != nil {
			return nil, err
		}
	}
	return Merge(f, explicit, src, env)
}

// lookup finds --server in the config files (unless s is its entry,
// found already), checks trust and expands it.
func lookup(f Flags, env Env, log *slog.Logger, s *config.Server) (*config.Expanded, bool, error) {
	cenv := env.Config(env.Path(f.Config))
	if s == nil {
		var skipped []*config.FileError
		var err error
		s, skipped, err = config.Find(cenv, f.Server)
		WarnSkipped(log, skipped)
		if err != nil {
			return nil, false, &errkind.ConfigError{Err: err}
		}
	}
	untrusted := false
	if s.File.Kind == config.Project {
		// Trust is kept for the path as found, not the file a symbolic
		// link points to: a trusted file reached from another directory
		// would run that directory's programs.
		trusted, err := env.TrustStore().Trusted(s.File.Path, s.File.Data)
		if err != nil && !errors.As(err, new(*safedir.Error)) {
			err = fmt.Errorf("reading the trust store: %w", err)
		}
		if err != nil {
			return nil, false, err
		}
		if !trusted {
			if err := checkShadow(cenv, env, s); err != nil {
				return nil, false, err
			}
			if untrusted, err = checkUntrusted(f, env, s); err != nil {
				return nil, false, err
			}
		}
	}
	x, err := s.Expand(cenv)
	if err != nil {
		return nil, false, &errkind.ConfigError{Err: err}
	}
	for _, w := range s.Warnings {
		log.Warn(fmt.Sprintf("%s: server %q: %s", s.Where(), s.Name, safetext.Line(w)))
	}
	if f.Verbose {
		log.Info(fmt.Sprintf("server %q from %s (%s)", s.Name, s.Where(), s.File.Label))
	}
	return x, untrusted, nil
}

// WarnSkipped warns about the config files of other programs that could not
// be read.
func WarnSkipped(log *slog.Logger, skipped []*config.FileError) {
	for _, fe := range skipped {
		log.Warn(fmt.Sprintf("skipping another program's config file: %v", fe))
	}
}

// checkShadow refuses an untrusted project file's server whose name one of
// the user's own files also defines: a repository must not be able to put
// its URL or program behind a name the user already relies on.
func checkShadow(cenv config.Env, env Env, s *config.Server) error {
	defs, _, err := config.Definitions(cenv, s.Name)
	if err != nil {
		return &errkind.ConfigError{Err: err}
	}
	for _, d := range defs {
		if d.File.Kind == config.User {
			rel := relPath(s.File.Path, env.Cwd)
			return errkind.Configf("%s, which is not trusted, defines server %q, which %s defines too; mcpv will not let it replace yours: "+
				"rename it there, or review the file and run: mcpv trust %s", rel, s.Name, d.Where(), shellwords.Quote(rel))
		}
	}
	return nil
}

// checkUntrusted refuses an untrusted project file's server that would run
// a command, or send the user's environment somewhere, until the user
// trusts the file. An untrusted HTTP entry that carries nothing of the
// user's is allowed: untrusted says so.
func checkUntrusted(f Flags, env Env, s *config.Server) (untrusted bool, err error) {
	rel := relPath(s.File.Path, env.Cwd)
	refuse := func(what string) error {
		return errkind.Configf("%s is not trusted; its server %q would %s; review the file, then run: mcpv trust %s",
			rel, s.Name, what, shellwords.Quote(rel))
	}
	if s.Transport == "stdio" {
		return false, refuse("run: " + DescribeCommand(s))
	}
	// An untrusted HTTP entry may be used only when nothing of the user's
	// would reach its URL: no variables, no OAuth client, no credentials
	// from the command line.
	u := redact.URL(s.URL)
	switch {
	case len(s.References()) > 0:
		return false, refuse(fmt.Sprintf("send ${%s} to %s", strings.Join(s.References(), "}, ${"), u))
	case s.OAuth != (config.OAuth{}):
		return false, refuse("authenticate an OAuth client at " + u)
	case len(f.Header) > 0 || f.ClientID != "" || f.ClientSecret != "" || f.ClientKey != "" || f.IDToken != "" || f.Assertion != "":
		return false, refuse("receive your --header or OAuth credentials at " + u)
	}
	return true, nil
}

// DescribeCommand shows an entry's command line as written, secrets masked.
func DescribeCommand(s *config.Server) string {
	words := append([]string{s.Command}, redact.Args(s.Args)...)
	for i, w := range words {
		words[i] = shellwords.Quote(w)
	}
	out := strings.Join(words, " ")
	if s.Cwd != "" {
		out = "(in " + shellwords.Quote(s.Cwd) + ") " + out
	}
	if len(s.Env) > 0 {
		var env []string
		for _, v := range s.Env {
			env = append(env, v.Name+"="+shellwords.Quote(redact.ConfigValue(v.Name, v.Value)))
		}
		out = "env " + strings.Join(env, " ") + " " + out
	}
	return safetext.Line(out) // a config file's words, shown on a terminal
}

func relPath(path, cwd string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// readHeaders gathers the -H flags, reading @FILE ones (one header per
// line, blank lines and # comments skipped).
func readHeaders(flags []string, env Env) ([][2]string, error) {
	var out [][2]string
	for _, f := range flags {
		lines := []string{f}
		if path, ok := strings.CutPrefix(f, "@"); ok {
			data, err := env.readFile(env.Path(path))
			if err != nil {
				return nil, errkind.Usagef("--header: %v", err)
			}
			lines = nil
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
					lines = append(lines, l)
				}
			}
		}
		for _, l := range lines {
			kv, err := parseHeader(l)
			if err != nil {
				return nil, errkind.Usage(err)
			}
			out = append(out, kv)
		}
	}
	return out, nil
}

// parseHeader reads one "Name: value" header.
func parseHeader(s string) ([2]string, error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return [2]string{}, fmt.Errorf("--header %q: want 'Name: value'", clipSecret(s))
	}
	return [2]string{name, strings.TrimSpace(value)}, nil
}

// clipSecret shows a header in an error without its value: a malformed
// header may well be a bare token.
func clipSecret(s string) string {
	if name, _, ok := strings.Cut(s, ":"); ok {
		return name + ": …"
	}
	return fmt.Sprintf("(%d characters)", len(s))
}

// secretFlag is a secret given as a flag's value, @FILE, or an environment
// variable.
func secretFlag(name, value, envName string, env Env) (string, error) {
	if path, ok := strings.CutPrefix(value, "@"); ok {
		data, err := env.readFile(env.Path(path))
		if err != nil {
			return "", errkind.Usagef("%s: %v", name, err)
		}
		return strings.TrimSpace(string(data)), nil
	}
	return cmp.Or(value, env.Getenv(envName)), nil
}
