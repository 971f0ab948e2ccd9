package serverstate

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
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

// A state file is its signature, a line, then its JSON: the signature is
// an HMAC-SHA256 of the JSON under the key of its directory (keyFile), so
// that a file mcpv did not write there (edited by hand, written whole by
// another program, copied from another state directory) is told from one
// it did, and not used.
const keyFile = "key"

// read reads the state file at path, signed with key (nil: there is no
// key, and no file to trust), or says why it is not to be trusted (""
// with no file: there is none yet). sig is its signature.
func read(root, dir, path string, key []byte) (f *file, sig []byte, why string) {
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
	sig, body, _ := bytes.Cut(data, []byte("\n"))
	if key == nil || !hmac.Equal(sig, sign(key, body)) {
		return nil, nil, path + " was not written by mcpv, or was changed since"
	}
	var out file
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, nil, fmt.Sprintf("%s is damaged: %v", path, err)
	}
	return &out, sig, ""
}

// readKey is the key the state files of dir are signed with, nil when
// there is none to trust.
func readKey(dir string) []byte {
	key, err := safefile.ReadMine(filepath.Join(dir, keyFile), sha256.Size)
	if err != nil || len(key) != sha256.Size {
		return nil
	}
	return key
}

// makeKey makes dir's key, unless another run made one first, which is
// then the key; one there not to be trusted is replaced.
func makeKey(dir string) ([]byte, error) {
	key, name := make([]byte, sha256.Size), make([]byte, 8)
	rand.Read(key)
	rand.Read(name)
	path := filepath.Join(dir, keyFile)
	tmp := path + "." + hex.EncodeToString(name) + ".tmp"
	if err := safefile.Replace(tmp, key); err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	err := os.Link(tmp, path) // whole, and never over another run's
	if errors.Is(err, fs.ErrExist) {
		if theirs := readKey(dir); theirs != nil {
			return theirs, nil
		}
		err = os.Rename(tmp, path)
	}
	return key, err
}

// sign is the signature of a state file's JSON, data, under key.
func sign(key, data []byte) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write(data)
	return hex.AppendEncode(nil, mac.Sum(nil))
}

// write writes f at s.path, signed with the key of s.dir (made if need
// be), unless that is what the file holds already: a new file, the
// user's alone, renamed into place; then the directory is brought under
// s.dirBytes.
func (s *Store) write(f file) error {
	data, err := encode(f)
	if err != nil {
		return err
	}
	if err := safedir.MkdirAll(s.root, s.dir); err != nil {
		return err
	}
	if s.key == nil {
		if s.key, err = makeKey(s.dir); err != nil {
			return err
		}
	}
	sig := sign(s.key, data)
	if bytes.Equal(sig, s.sig) {
		return nil
	}
	// A new file, the user's alone, renamed into place: it replaces a
	// link or another's file at path, never writes through it.
	if err := safefile.Replace(s.path, slices.Concat(sig, []byte("\n"), data)); err != nil {
		return err
	}
	s.sig = sig
	prune(s.dir, s.path, s.dirBytes)
	return nil
}

// sigLine is what a file's signature adds to it: its hex and a newline.
const sigLine = 2*sha256.Size + 1

// encode is f as JSON, its lists cut, the largest first, until it fits in
// MaxFileBytes with its signature's line: each measured once, as a walk may have kept thousands of
// small pages (a file encoded again for each one cut took hours).
func encode(f file) ([]byte, error) {
	slices.SortStableFunc(f.Lists, func(a, b listcache.Kept) int { return len(a.Result) - len(b.Result) })
	lists := f.Lists
	f.Lists = nil
	data, err := json.Marshal(f)
	if err == nil && len(data)+sigLine > MaxFileBytes {
		err = fmt.Errorf("the state of one server is larger than %d MiB", MaxFileBytes>>20)
	}
	for i, size := 0, sigLine+len(data)+len(`,"lists":[]`); err == nil && i < len(lists); i++ {
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
