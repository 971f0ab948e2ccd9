package connect

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/trust"
	"github.com/mcpv/mcpv/mcp"
)

// Env is the world a run sees: its environment variables, its working
// directory and its operating system. main takes it from the process once;
// tests build their own, so nothing below reads the process's environment
// or working directory.
type Env struct {
	Environ []string // KEY=VALUE; a later entry for a key wins
	Cwd     string   // absolute
	GOOS    string
	// ReadFile reads a file a flag names (--answers, --client-key, @FILE
	// of --header and of the secrets); nil is safefile.Read. A test
	// file's server reads the files its section names through its tree.
	ReadFile func(path string) ([]byte, error)
	// Ask asks the user for a config file's ${input:ID} on the terminal;
	// nil when there is none (see config.Env.Ask).
	Ask func(s *config.Server, in config.Input) (string, error)
	// Grace is how long a stdio server is given at each step of its
	// shutdown; zero is mcp.DefaultGrace. Tests make it long, to tell a
	// shutdown cut short from one waited out without a race against the
	// clock.
	Grace time.Duration
	// ExportWait, when set, is how long an OTLP export may take, in place
	// of what the OTLP variables say (at most otel.MaxTimeout): tests
	// make it long, so that a loaded machine's slow collector is not
	// taken for a dead one.
	ExportWait time.Duration
	// AfterFunc starts the timers of the bounds a run keeps itself (the
	// connect timeout's clocks, each request's --timeout and
	// --max-timeout, the checks of a tool's schemas); nil is
	// time.AfterFunc. Tests give a clock of their own, which fires when
	// they say, to show what stops a bound by events rather than by how
	// fast a machine is.
	AfterFunc func(d time.Duration, f func()) Timer
	// StartServer starts the stdio server behind "--"; nil is
	// mcp.StartCommand, a process of its own. Tests serve their fake in
	// the test process through it (pipeclient.StartServer sets
	// mcp.CommandOptions.Serve), keeping a process where the process is
	// the subject.
	StartServer mcp.Starter
	// Keychain is the system's keychain, where tokens are kept
	// (MCPV_TOKEN_STORE); nil keeps them in files. System sets it; a
	// test gives a keyring of its own, never the developer's.
	Keychain *oauth.Keychain
}

// Timer is a running bound's timer: a *time.Timer, or a test's.
type Timer = mcp.Timer

// afterFunc runs f after d on the run's clock.
func (e Env) afterFunc(d time.Duration, f func()) Timer {
	if e.AfterFunc != nil {
		return e.AfterFunc(d, f)
	}
	return time.AfterFunc(d, f)
}

// Bound is ctx ending with cause once d has passed on the run's clock (as
// context.WithTimeoutCause, which it is without Env.AfterFunc).
func (e Env) Bound(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	if e.AfterFunc == nil {
		return context.WithTimeoutCause(ctx, d, cause)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	t := e.AfterFunc(d, func() { cancel(cause) })
	return ctx, func() { t.Stop(); cancel(nil) }
}

// System is the process's own Env.
func System() (Env, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return Env{}, err
	}
	e := Env{Environ: os.Environ(), Cwd: cwd, GOOS: runtime.GOOS}
	e.Keychain = oauth.SystemKeychain(e.GOOS, e.Getenv)
	return e, nil
}

// Lookup returns a variable's value and whether it is set at all. Names
// are compared without regard to case on Windows, as Windows does.
func (e Env) Lookup(key string) (string, bool) {
	if e.GOOS == "windows" || key == "" || strings.IndexByte(key, '=') >= 0 {
		for i := len(e.Environ) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(e.Environ[i], "="); ok && (k == key || e.GOOS == "windows" && strings.EqualFold(k, key)) {
				return v, true
			}
		}
		return "", false
	}
	// The same answer without cutting every entry: a run looks up a dozen
	// names or more in an environment of dozens.
	n := len(key)
	for i := len(e.Environ) - 1; i >= 0; i-- {
		if kv := e.Environ[i]; len(kv) > n && kv[n] == '=' && kv[:n] == key {
			return kv[n+1:], true
		}
	}
	return "", false
}

// Getenv returns a variable's value, or "" when it is unset.
func (e Env) Getenv(key string) string {
	v, _ := e.Lookup(key)
	return v
}

// Home is the user's home directory: HOME, else what the system says.
func (e Env) Home() string {
	if h := e.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Path makes a path the user gave absolute, relative to Cwd.
func (e Env) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.Cwd, p)
}

// readFile reads a file a flag names, by ReadFile or else by
// safefile.Read's rule: a regular file, opened without blocking, bounded,
// so that a FIFO or /dev/zero named by mistake neither hangs mcpv nor
// fills its memory.
func (e Env) readFile(path string) ([]byte, error) {
	if e.ReadFile != nil {
		return e.ReadFile(path)
	}
	return safefile.Read(path)
}

// Config is what the config lookup may know, with --config as flag.
func (e Env) Config(flag string) config.Env {
	return config.Env{Getenv: e.Getenv, Lookup: e.Lookup, Cwd: e.Cwd, Home: e.Home(), GOOS: e.GOOS, Flag: flag, Ask: e.Ask}
}

// TrustStore is where trusted project files are recorded.
func (e Env) TrustStore() trust.Store {
	dir, root := e.stateDir("trusted")
	return trust.Store{Dir: dir, Root: root}
}

// OAuthStore is where tokens are kept.
func (e Env) OAuthStore() *oauth.Store {
	dir, root := e.stateDir("oauth")
	return &oauth.Store{Dir: dir, Root: root, Keychain: e.Keychain, Where: e.Getenv("MCPV_TOKEN_STORE")}
}

// SessionLogDir is where session keepers write their logs: sessions under
// the state directory, which outlives a login (the runtime directory does
// not), and the state root above.
func (e Env) SessionLogDir() (dir, root string) { return e.stateDir("sessions") }

// stateDir is sub, a directory under the state directory, and the state
// root above, from which every directory must be the user's alone.
func (e Env) stateDir(sub string) (dir, root string) {
	state := trust.StateDir(e.Getenv, e.Home(), e.GOOS)
	return filepath.Join(state, sub), filepath.Dir(state)
}

// SessionDir is where session keepers put their sockets: $XDG_RUNTIME_DIR/mcpv,
// else sessions under the state directory. root is the directory above,
// from which every directory must be the user's alone.
func (e Env) SessionDir() (dir, root string) {
	if rt := e.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		return filepath.Join(rt, "mcpv"), rt
	}
	return e.SessionLogDir()
}
