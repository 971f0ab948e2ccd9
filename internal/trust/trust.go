// Package trust remembers which files the user has approved, by the
// SHA-256 of their content, the way direnv remembers allowed .envrc files:
// a project config file, or a test file mcpv test finds by itself, that
// changes must be trusted again before its servers run (file.go).
package trust

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/safefile"
)

// Store keeps one small file per trusted config file in Dir, named by the
// hash of the config file's path and holding the hash of its content. Root
// is the state root above Dir: every directory from Root down to Dir must be
// the user's alone (internal/safedir), or the store is not used.
type Store struct{ Dir, Root string }

func (s Store) root() string { return cmp.Or(s.Root, s.Dir) }

// StateDir is mcpv's state directory on goos: $XDG_STATE_HOME/mcpv when
// that is set (on every OS), else on Windows %LOCALAPPDATA%\mcpv, on macOS
// ~/Library/Application Support/mcpv (or ~/.local/state/mcpv where an
// earlier mcpv made it, so its tokens and trust stay), elsewhere
// ~/.local/state/mcpv.
func StateDir(getenv func(string) string, home, goos string) string {
	if d := getenv("XDG_STATE_HOME"); safedir.IsAbs(goos, d) {
		return safedir.Join(goos, d, "mcpv")
	}
	xdg := safedir.Join(goos, home, ".local", "state", "mcpv")
	switch goos {
	case "windows":
		if d := getenv("LOCALAPPDATA"); safedir.IsAbs(goos, d) {
			return safedir.Join(goos, d, "mcpv")
		}
		return safedir.Join(goos, home, "AppData", "Local", "mcpv")
	case "darwin":
		if _, err := os.Stat(xdg); err == nil {
			return xdg
		}
		return safedir.Join(goos, home, "Library", "Application Support", "mcpv")
	}
	return xdg
}

// Hash is the content hash trust is given to.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func (s Store) entry(path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:16]))
}

// Trusted reports whether data is the content trusted for path (absolute).
func (s Store) Trusted(path string, data []byte) (bool, error) {
	if err := safedir.Check(s.root(), s.Dir); err != nil {
		return false, err
	}
	// A record is a regular file of the store's, read without following
	// a link planted in its place, and bounded.
	rec, err := safefile.Tree{Dir: s.Dir}.Read(filepath.Base(s.entry(path)))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	hash, recPath, _ := strings.Cut(strings.TrimSpace(string(rec)), " ")
	return recPath == path && hash == Hash(data), nil
}

// Trust records data as the trusted content of path, replacing any earlier
// record. The store is private to the user (0700, files 0600).
func (s Store) Trust(path string, data []byte) error {
	if err := safedir.MkdirAll(s.root(), s.Dir); err != nil {
		return err
	}
	return safefile.Replace(s.entry(path), fmt.Appendf(nil, "%s %s\n", Hash(data), path))
}

// Revoke forgets path; it reports whether there was anything to forget.
func (s Store) Revoke(path string) (bool, error) {
	if err := safedir.Check(s.root(), s.Dir); err != nil {
		return false, err
	}
	err := os.Remove(s.entry(path))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}
