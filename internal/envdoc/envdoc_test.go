package envdoc

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The list says what the code reads: every variable mcpv's own code reads
// by name is listed, every listed one is read (or by a library), and the
// README lists them all.
func TestVarsAreWhatTheCodeReads(t *testing.T) {
	// A read by name; a name in mcpv's own namespace anywhere (such as
	// passed to a function that reads it); a kong env tag.
	read := regexp.MustCompile(`(?:[gG]etenv|Lookup|LookupEnv|forced)\("([A-Za-z_][A-Za-z0-9_]*)"\)|"(MCPV_[A-Z0-9_]+)"|env:"([A-Z][A-Z0-9_]*)"`)
	found := map[string]string{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "examples" || path == filepath.Join(root, "internal", "wintest") || path == filepath.Join(root, "internal", "envdoc")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if strings.Contains(path, filepath.Join("mcp", "mcptest")) || strings.Contains(path, "oauthtest") {
			return nil // test servers
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range read.FindAllStringSubmatch(string(src), -1) {
			found[m[1]+m[2]+m[3]] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, v := range Vars {
		listed[v.Name] = true
		if _, ok := found[v.Name]; !ok && !v.Library {
			t.Errorf("%s is listed but nothing reads it", v.Name)
		}
	}
	for name, path := range found {
		if !listed[name] {
			t.Errorf("%s (read in %s) is not in envdoc.Vars", name, path)
		}
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Vars {
		if !strings.Contains(string(readme), "`"+v.Name+"`") {
			t.Errorf("the README does not list %s", v.Name)
		}
	}
	if len(found) < 10 {
		t.Errorf("found only %v: the pattern misses the reads", found)
	}
}
