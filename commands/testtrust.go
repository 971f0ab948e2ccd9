package commands

// Test files are code: one can start any command, send the environment's
// values to a URL of its choosing, and drive the user's own servers. A
// test file mcpv test finds by itself (no FILE given) runs only when the
// user has trusted its content, as a project config file's server; a file
// or directory named on the command line is the user's choice, and runs.

import (
	"fmt"

	"github.com/mcpv/mcpv/config"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/trust"
)

// trustPath is the path trust is given to for a test file: as found, not
// what a link leads to, as for config files.
func trustPath(env connect.Env, path string) string {
	return config.FileSource(path, env.Cwd, "").Path
}

// checkFoundTrusted refuses a test file found without being named whose
// content (data) the user has not trusted.
func checkFoundTrusted(env connect.Env, path string, data []byte) error {
	ok, err := env.TrustStore().Trusted(trustPath(env, path), data)
	if err != nil {
		return fmt.Errorf("reading the trust store: %w", err)
	}
	if ok {
		return nil
	}
	shown := safetext.Line(path) // a cloned repository names its files
	q := shellwords.Quote(shown)
	return connect.Configf("%s is not trusted: a test file found without being named runs only once trusted; review it, then run: mcpv trust %s (or name it: mcpv test %s)", shown, q, q)
}

// trustTestFile records the current content of a test file as trusted,
// once it reads as YAML, and prints what it trusted.
func trustTestFile(out *console, env connect.Env, store trust.Store, path string) error {
	abs := trustPath(env, path)
	data, err := safefile.Read(abs)
	if err != nil {
		return usageError(err)
	}
	if _, fe := testfile.ParseYAML(data, "a test file"); fe != nil {
		fe.File = path
		return &connect.ConfigError{Err: fe}
	}
	if err := store.Trust(abs, data); err != nil {
		return err
	}
	return out.print(mustJSON(map[string]any{"file": abs, "sha256": trust.Hash(data), "test": true}))
}
