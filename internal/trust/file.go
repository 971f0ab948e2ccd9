package trust

// Trusting a file, as mcpv does it: a project config file's content, or that of a test file mcpv test finds by itself,
// recorded as trusted under the path as found (not what a link leads to),
// the trust revoked, and a found test file refused until its content is
// trusted.
//
// Test files are code: one can start any command, send the environment's
// values to a URL of its choosing, and drive the user's own servers. A
// test file mcpv test finds by itself (no FILE given) runs only when the
// user has trusted its content, as a project config file's server; a file
// or directory named on the command line is the user's choice, and runs.

import (
	"errors"
	"fmt"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/servefile"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testfile"
)

// Path is the path trust is given to for a file named from cwd: as found,
// not what a link leads to.
func Path(cwd, path string) string {
	return config.FileSource(path, cwd, "").Path
}

// CheckFound refuses a test file found without being named whose content
// (data) the user has not trusted.
func CheckFound(store Store, cwd, path string, data []byte) error {
	ok, err := store.Trusted(Path(cwd, path), data)
	if err != nil {
		return fmt.Errorf("reading the trust store: %w", err)
	}
	if ok {
		return nil
	}
	shown := safetext.Line(path) // a cloned repository names its files
	q := shellwords.Quote(shown)
	return errkind.Configf("%s is not trusted: a test file found without being named runs only once trusted; review it, then run: mcpv trust %s (or name it: mcpv test %s)", shown, q, q)
}

// Trust records the current content of the file at path (from cwd) as
// trusted, and returns what it trusted, to show: a test file mcpv test
// would find, once it reads as YAML ({"file","sha256","test":true}), or a
// config file, once it reads as one ({"file","sha256","servers"}). With
// revoke it forgets the trust instead ({"file","revoked"}).
func Trust(store Store, cwd, path string, revoke bool) (map[string]any, error) {
	if !revoke && testfile.Findable(Path(cwd, path)) {
		return trustTestFile(store, cwd, path)
	}
	src := config.FileSource(path, cwd, "trust")
	abs := src.Path // as found: trust belongs to the path, not what it links to
	if revoke {
		had, err := store.Revoke(abs)
		if err != nil {
			return nil, err
		}
		return map[string]any{"file": abs, "revoked": had}, nil
	}
	f, err := config.Load(src)
	if err != nil {
		// A serve file is no config file, but says what runs as one does.
		if sf, serr := servefile.Read(path, cwd); serr == nil {
			return trustServeFile(store, abs, sf)
		}
		// A test file that mcpv test would not find by its name (a load
		// scenario, browse.yaml) is trusted as a test file.
		if isTestFile(abs) {
			return trustTestFile(store, cwd, path)
		}
		if errors.As(err, new(*config.FileError)) {
			return nil, &errkind.ConfigError{Err: err}
		}
		return nil, err
	}
	if err := store.Trust(abs, f.Data); err != nil {
		return nil, err
	}
	names := []string{}
	for _, s := range f.Servers {
		names = append(names, s.Name)
	}
	return map[string]any{"file": abs, "sha256": Hash(f.Data), "servers": names}, nil
}

// trustServeFile records the current content of a serve file (mcpv
// serve FILE) as trusted.
func trustServeFile(store Store, abs string, f *servefile.File) (map[string]any, error) {
	data, err := safefile.Read(abs)
	if err != nil {
		return nil, errkind.Usage(err)
	}
	if err := store.Trust(abs, data); err != nil {
		return nil, err
	}
	names := []string{}
	for _, s := range f.Servers {
		names = append(names, s.Name)
	}
	return map[string]any{"file": abs, "sha256": Hash(data), "servers": names}, nil
}

// trustTestFile records the current content of a test file as trusted,
// once it reads as YAML.
func trustTestFile(store Store, cwd, path string) (map[string]any, error) {
	abs := Path(cwd, path)
	data, err := safefile.Read(abs)
	if err != nil {
		return nil, errkind.Usage(err)
	}
	if _, fe := testfile.ParseYAML(data, "a test file"); fe != nil {
		fe.File = path
		return nil, &errkind.ConfigError{Err: fe}
	}
	if err := store.Trust(abs, data); err != nil {
		return nil, err
	}
	return map[string]any{"file": abs, "sha256": Hash(data), "test": true}, nil
}

// isTestFile says whether the file at abs reads as a test file: a YAML
// mapping with steps at its top.
func isTestFile(abs string) bool {
	data, err := safefile.Read(abs)
	if err != nil {
		return false
	}
	root, fe := testfile.ParseYAML(data, "a test file")
	return fe == nil && root.Get("steps") != nil
}
