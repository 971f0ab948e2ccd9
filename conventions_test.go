package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// productSources calls fn with every Go file of the module that is not a
// test: the files a reader of the code reads, in this module alone.
func productSources(t *testing.T, fn func(path string, lines []string)) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			base := d.Name()
			if path != "." && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		var lines []string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if err := sc.Err(); err != nil {
			return err
		}
		fn(path, lines)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// mutexDecl is a line that declares a mutex: a field, an embedded one or
// a variable (not an expression such as new(sync.Mutex)).
var mutexDecl = regexp.MustCompile(`^\s*(?:var\s+)?(?:[A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*\s+)?\*?sync\.(?:RW)?Mutex\b\s*(?://.*)?$`)

// Every mutex says what it guards, on its line or in the comment just
// above: a lock whose reach is unwritten is one the next change takes too
// little or too much of.
func TestEveryMutexSaysWhatItGuards(t *testing.T) {
	found := 0
	productSources(t, func(path string, lines []string) {
		for i, line := range lines {
			if !mutexDecl.MatchString(line) {
				continue
			}
			found++
			note := line
			for j := i - 1; j >= 0 && strings.HasPrefix(strings.TrimSpace(lines[j]), "//"); j-- {
				note += "\n" + lines[j]
			}
			if !strings.Contains(note, "guards") {
				t.Errorf("%s:%d: a mutex with no note of what it guards (\"// guards …\"): %s", path, i+1, strings.TrimSpace(line))
			}
		}
	})
	if found < 50 {
		t.Errorf("found %d mutexes; the walk misses files", found)
	}
}
