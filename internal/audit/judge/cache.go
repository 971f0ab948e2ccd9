package judge

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/safefile"
)

// cached is the verdict kept for key, if there is one to trust: a regular
// file of the user's alone in the cache directory, not a link, of a
// cached answer's size, the directory and the one above it checked as
// keep checks them (another user who can write in either could have put
// an answer there).
func (j *Judge) cached(key string) (Verdict, bool) {
	if j.CacheDir == "" || safedir.Check(filepath.Dir(j.CacheDir), j.CacheDir) != nil {
		return Verdict{}, false
	}
	data, err := safefile.ReadMine(filepath.Join(j.CacheDir, key), maxCacheFile)
	if err != nil {
		return Verdict{}, false
	}
	var v Verdict
	if json.Unmarshal(data, &v) != nil || v.Verdict != "poisoned" && v.Verdict != "honest" {
		return Verdict{}, false
	}
	return v, true
}

// keep keeps v for key, in a directory of the user's alone (made 0700,
// each directory above it checked), as a file of the user's alone put in
// place by a rename (never written through what was there); then the
// oldest answers go while there are more than MaxCacheEntries. A cache
// that cannot be written is done without.
func (j *Judge) keep(key string, v Verdict) {
	if j.CacheDir == "" {
		return
	}
	if err := safedir.MkdirAll(filepath.Dir(j.CacheDir), j.CacheDir); err != nil {
		return
	}
	data, _ := json.Marshal(v)
	if err := safefile.Replace(filepath.Join(j.CacheDir, key), data); err != nil {
		return
	}
	prune(j.CacheDir, MaxCacheEntries)
}

// prune removes the oldest files of dir while it holds more than n.
func prune(dir string, n int) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= n {
		return
	}
	type aged struct {
		name string
		fi   fs.FileInfo
	}
	var files []aged
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && !e.IsDir() {
			files = append(files, aged{e.Name(), fi})
		}
	}
	slices.SortFunc(files, func(a, b aged) int { return a.fi.ModTime().Compare(b.fi.ModTime()) })
	for _, f := range files[:max(0, len(files)-n)] {
		os.Remove(filepath.Join(dir, f.name))
	}
}
