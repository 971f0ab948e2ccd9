package serverstate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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

// A state file is the SHA-256 of its JSON, in hex, on a line of its own,
// then its JSON: a file mcpv did not write whole (edited by hand, cut
// short, written by another program) does not match its digest, and is
// not used. The digest is no secret: whoever may write the file (the
// user alone, by its owner and mode) may write its digest too; it tells
// mcpv's writing from any other, and owner and mode tell the user from
// another.

// read reads the state file at path, or says why it is not to be trusted
// ("" with no file: there is none yet). sum is its digest.
func read(root, dir, path string) (f *file, sum []byte, why string) {
	if err := safedir.Check(root, dir); err != nil {
		return nil, nil, err.Error()
	}
	data, err := safefile.ReadMine(path, MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, ""
	}
	if err != nil {
		return nil, nil, err.Error()
	}
	sum, body, _ := bytes.Cut(data, []byte("\n"))
	if !bytes.Equal(sum, digest(body)) {
		return nil, nil, path + " was not written by mcpv, or was changed since"
	}
	var out file
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, nil, fmt.Sprintf("%s is damaged: %v", path, err)
	}
	return &out, sum, ""
}

// digest is the line a state file's JSON, data, is written after.
func digest(data []byte) []byte {
	sum := sha256.Sum256(data)
	return hex.AppendEncode(nil, sum[:])
}

// write writes f at s.path, unless that is what the file holds already:
// a new file, the user's alone, renamed into place; then the directory
// is brought under s.dirBytes.
func (s *Store) write(f file) error {
	data, err := encode(f)
	if err != nil {
		return err
	}
	sum := digest(data)
	if bytes.Equal(sum, s.sum) {
		return nil
	}
	if err := safedir.MkdirAll(s.root, s.dir); err != nil {
		return err
	}
	// A new file, the user's alone, renamed into place: it replaces a
	// link or another's file at path, never writes through it.
	if err := safefile.Replace(s.path, slices.Concat(sum, []byte("\n"), data)); err != nil {
		return err
	}
	s.sum = sum
	prune(s.dir, s.path, s.dirBytes)
	return nil
}

// sumLine is what a file's digest adds to it: its hex and a newline.
const sumLine = 2*sha256.Size + 1

// encode is f as JSON, its lists cut, the largest first, until it fits in
// MaxFileBytes with its digest's line: each measured once, as a walk may
// have kept thousands of small pages (a file encoded again for each one
// cut took hours).
func encode(f file) ([]byte, error) {
	slices.SortStableFunc(f.Lists, func(a, b listcache.Kept) int { return len(a.Result) - len(b.Result) })
	lists := f.Lists
	f.Lists = nil
	data, err := json.Marshal(f)
	if err == nil && len(data)+sumLine > MaxFileBytes {
		err = fmt.Errorf("the state of one server is larger than %d MiB", MaxFileBytes>>20)
	}
	for i, size := 0, sumLine+len(data)+len(`,"lists":[]`); err == nil && i < len(lists); i++ {
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
