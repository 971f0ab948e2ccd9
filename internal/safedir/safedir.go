// Package safedir checks that the directories mcpv keeps its state in (the
// trusted project files, the OAuth tokens and their lock files) belong to
// the user alone. Another user who can write to one of them could plant a
// trust record, or a lock file that is a symbolic link to a file of the
// user's; so each directory, from the state root down, must be a real
// directory (not a symbolic link), owned by the user, and writable by
// nobody else. A directory that does not exist yet is fine: mcpv creates it
// private.
package safedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpv/mcpv/internal/safefile"
)

// Error is a state directory mcpv will not use, and how to fix it.
type Error struct {
	Path string
	Why  string
	Fix  string // a command that fixes it
}

func (e *Error) Error() string {
	return fmt.Sprintf("the state directory %s %s; fix it with: %s", e.Path, e.Why, e.Fix)
}

// Check checks root and every directory below it down to dir (dir must be
// root or inside it) that exists.
func Check(root, dir string) error {
	for _, d := range chain(root, dir) {
		fi, err := os.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // nor does anything below it
		}
		if err != nil {
			return err
		}
		if err := checkOne(d, fi); err != nil {
			return err
		}
	}
	return nil
}

// MkdirAll creates what is missing of dir (mode 0700) and checks the chain.
func MkdirAll(root, dir string) error {
	if err := Check(root, dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return Check(root, dir)
}

// chain is root, then each directory down to dir.
func chain(root, dir string) []string {
	root, dir = filepath.Clean(root), filepath.Clean(dir)
	out := []string{root}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		if dir != root {
			out = append(out, dir)
		}
		return out
	}
	cur := root
	for part := range strings.SplitSeq(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}

func checkOne(d string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &Error{Path: d, Why: "is a symbolic link", Fix: removeCommand(d) + " (mcpv makes it again)"}
	case !fi.IsDir():
		return &Error{Path: d, Why: "is not a directory", Fix: removeCommand(d)}
	}
	why, fix, err := notPrivate(d, fi)
	if err != nil {
		return err
	}
	if why != "" {
		return &Error{Path: d, Why: why, Fix: fix}
	}
	return nil
}

// notPrivate says why directory d is not the user's alone (another user
// owns it, or others may write in it), and the command that fixes it; ""
// when it is.
func notPrivate(d string, fi fs.FileInfo) (why, fix string, err error) {
	why, failed, err := safefile.Judge(d, nil, fi, safefile.Mine|safefile.Unwritten)
	switch {
	case err != nil:
		return "", "", fmt.Errorf("the state directory %w", err)
	case why == "":
		return "", "", nil
	case failed == safefile.Mine:
		return why, ownFix(d), nil
	}
	return why, writeFix(d), nil
}
