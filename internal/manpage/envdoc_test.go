package manpage

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the table of docs/guide/environment.md")

// The table of the environment guide is made from Vars: go generate (or
// go test -run TestEnvironmentGuide -update) writes it.
//
//go:generate go test -run ^TestEnvironmentGuide -update .

// The list says what the code reads: every variable mcpv's own code reads
// by name is listed, and every listed one is read (or by a library).
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
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "examples" || path == filepath.Join(root, "scripts", "wintest") || path == filepath.Join(root, "internal", "manpage")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		if strings.Contains(path, filepath.Join("mcp", "mcptest")) || strings.Contains(path, "oauthtest") || strings.Contains(path, "servetest") {
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
		name, _, _ := strings.Cut(v.Name, "<") // a family is read by its prefix
		listed[name] = true
		if _, ok := found[name]; !ok && !v.Library {
			t.Errorf("%s is listed but nothing reads it", v.Name)
		}
	}
	for name, path := range found {
		if !listed[name] {
			t.Errorf("%s (read in %s) is not in manpage.Vars", name, path)
		}
	}
	if len(found) < 10 {
		t.Errorf("found only %v: the pattern misses the reads", found)
	}
}

const (
	guideFile  = "docs/guide/environment.md"
	tableStart = "<!-- The table below is made from internal/manpage/envdoc.go by go generate ./...; do not edit it. -->\n"
	tableEnd   = "<!-- The end of the generated table. -->\n"
)

// guideTable is the Markdown table of Vars.
func guideTable() string {
	var b strings.Builder
	b.WriteString("| variable | what mcpv does with it |\n| --- | --- |\n")
	for _, v := range Vars {
		fmt.Fprintf(&b, "| `%s` | %s |\n", v.Name, strings.ReplaceAll(v.Help, "|", `\|`))
	}
	return b.String()
}

// The environment guide lists every variable, as Vars says, between its
// markers; the test fails, naming the file, when the table is stale.
func TestEnvironmentGuide(t *testing.T) {
	path := filepath.Join("..", "..", filepath.FromSlash(guideFile))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	before, rest, ok1 := strings.Cut(doc, tableStart)
	table, after, ok2 := strings.Cut(rest, tableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no generated table: put the lines %q and %q where it goes, then run go generate ./internal/manpage", guideFile, tableStart, tableEnd)
	}
	want := "\n" + guideTable() + "\n"
	if *update && table != want {
		if err := os.WriteFile(path, []byte(before+tableStart+want+tableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := cmp.Diff(table, want); d != "" {
		t.Errorf("%s is stale; go generate ./internal/manpage rewrites it (-file +generated):\n%s", guideFile, d)
	}
}
