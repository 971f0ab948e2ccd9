package serverstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/listcache"
	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/safefile"
)

// MaxFileBytes bounds a state file: what a save would write beyond it is
// left out, the largest lists first. MaxDirBytes bounds the directory:
// beyond it the files least recently written go.
const (
	MaxFileBytes = 4 << 20
	MaxDirBytes  = 64 << 20
)

// pathOf is the state file of the server whose identity is server (a hex
// digest).
func pathOf(dir, server string) string {
	name := server
	if len(name) > 32 {
		name = name[:32]
	}
	return filepath.Join(dir, name+".json")
}

// read reads the state file at path, or says why it is not to be trusted
// ("" with no file: there is none yet).
func read(root, dir, path string) (*file, string) {
	if err := safedir.Check(root, dir); err != nil {
		return nil, err.Error()
	}
	f, err := openPrivate(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		return nil, err.Error()
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err.Error()
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Sprintf("%s is larger than %d MiB", path, MaxFileBytes>>20)
	}
	var out file
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Sprintf("%s is damaged: %v", path, err)
	}
	return &out, ""
}

// openPrivate opens path for reading when it is a regular file, not a
// link, the user's and readable by nobody else; it never blocks (a FIFO
// put in its place).
func openPrivate(path string) (*os.File, error) {
	f, err := safefile.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", path)
	}
	if err == nil {
		err = judgePrivate(f, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// write writes f at path: a new file, the user's alone, renamed into
// place; then the directory is brought under dirBytes.
func write(root, dir, path string, f file, dirBytes int64) error {
	data, err := encode(f)
	if err != nil {
		return err
	}
	if err := safedir.MkdirAll(root, dir); err != nil {
		return err
	}
	// A new file, the user's alone, renamed into place: it replaces a
	// link or another's file at path, never writes through it.
	if err := safefile.Replace(path, data); err != nil {
		return err
	}
	prune(dir, path, dirBytes)
	return nil
}

// encode is f as JSON, its lists cut, the largest first, until it fits in
// MaxFileBytes: each measured once, as a walk may have kept thousands of
// small pages (a file encoded again for each one cut took hours).
func encode(f file) ([]byte, error) {
	slices.SortFunc(f.Lists, func(a, b listcache.Kept) int { return len(a.Result) - len(b.Result) })
	lists := f.Lists
	f.Lists = nil
	data, err := json.Marshal(f)
	if err == nil && len(data) > MaxFileBytes {
		err = fmt.Errorf("the state of one server is larger than %d MiB", MaxFileBytes>>20)
	}
	for i, size := 0, len(data)+len(`,"lists":[]`); err == nil && i < len(lists); i++ {
		var k []byte
		if k, err = json.Marshal(lists[i]); size+len(k)+1 > MaxFileBytes {
			break
		}
		size, f.Lists = size+len(k)+1, lists[:i+1]
	}
	if err != nil || f.Lists == nil {
		return data, err
	}
	return json.Marshal(f)
}

// prune removes the state files of dir least recently written, other
// than keep, until what is left is under max bytes. Left-over temporary
// files of a save that was cut short count, and go first once an hour old.
func prune(dir, keep string, max int64) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type kept struct {
		path string
		size int64
		mod  time.Time
	}
	var files []kept
	var total int64
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".tmp") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, ".tmp") && time.Since(fi.ModTime()) > time.Hour {
			os.Remove(p)
			continue
		}
		files = append(files, kept{p, fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	slices.SortFunc(files, func(a, b kept) int { return a.mod.Compare(b.mod) })
	for _, f := range files {
		if total <= max {
			return
		}
		if f.path == keep || strings.HasSuffix(f.path, ".tmp") {
			continue
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}

// judgePrivate refuses a file that is not the user's, or that others may
// read (its mode on Unix, its access list on Windows).
func judgePrivate(f *os.File, fi os.FileInfo) error {
	why, _, err := safefile.Judge(f.Name(), f, fi, safefile.Mine|safefile.Unread)
	if err == nil && why != "" {
		err = fmt.Errorf("%s %s", f.Name(), why)
	}
	return err
}
