package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/commands"
)

// docs/ARCHITECTURE.md is the map of the code: a line for every package
// under "## Packages", and under "## Who imports whom" a line for every
// package that imports others of the module. This test keeps the map true:
// a package or an import without its line, or a line for one that is gone,
// fails, with the line to write.

const (
	mapFile        = "docs/ARCHITECTURE.md"
	packagesTable  = "## Packages"
	importsTable   = "## Who imports whom"
	modulePath     = "github.com/mcpv/mcpv"
	rootPackageTag = "main" // the map's name for the module's root package
)

// mapOSes are the systems whose builds the map covers: an import made on
// one of them only (a Windows file's) is on the map too.
var mapOSes = []string{"linux", "darwin", "windows"}

func TestArchitectureMapIsTrue(t *testing.T) {
	doc, err := os.ReadFile(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]*mapPackage{}
	for _, goos := range mapOSes {
		if err := listPackages(goos, pkgs); err != nil {
			t.Fatalf("reading the packages as %s builds them: %v", goos, err)
		}
	}
	for _, problem := range checkMap(doc, pkgs) {
		t.Error(problem)
	}
}

// mapPackage is what the map says of a package.
type mapPackage struct {
	doc     string          // its doc comment's first sentence
	code    bool            // it has files other than tests
	imports map[string]bool // the module's packages its code imports, on any of mapOSes
}

// listPackages adds the module's packages, as goos builds them, to pkgs:
// the packages "go list ./..." names, read with go/build, which opens every
// directory and file it reads, so that go test's cache of this test's
// result ends when a package or an import is added.
func listPackages(goos string, pkgs map[string]*mapPackage) error {
	ctx := build.Default
	ctx.GOOS = goos
	ctx.CgoEnabled = false
	ctx.BuildTags = append(ctx.BuildTags, "e2e") // the long tier's files: e2e has no other
	return filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if base := d.Name(); dir != "." && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && dir != "." {
			return filepath.SkipDir // another module
		}
		p, err := ctx.ImportDir(dir, 0)
		var none *build.NoGoError
		if errors.As(err, &none) {
			return nil
		} else if err != nil {
			return err
		}
		name, _ := mapName(path.Join(modulePath, filepath.ToSlash(dir)))
		mp := pkgs[name]
		if mp == nil {
			mp = &mapPackage{doc: p.Doc, imports: map[string]bool{}}
			pkgs[name] = mp
		}
		mp.code = mp.code || len(p.GoFiles) > 0
		for _, imp := range p.Imports {
			if n, ours := mapName(imp); ours {
				mp.imports[n] = true
			}
		}
		return nil
	})
}

// Every package but a test-only one says in its doc comment what it holds:
// what go doc shows a newcomer first, and what the map's line starts from.
func TestEveryPackageHasADocComment(t *testing.T) {
	pkgs := map[string]*mapPackage{}
	for _, goos := range mapOSes {
		if err := listPackages(goos, pkgs); err != nil {
			t.Fatalf("reading the packages as %s builds them: %v", goos, err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(pkgs)) {
		if p := pkgs[name]; p.code && p.doc == "" {
			t.Errorf("package %s has no doc comment: say what it holds, and what it never does, in a \"// Package ...\" comment", name)
		}
	}
}

// mapName is the map's name for an import path: the path in the module,
// or "main" for its root.
func mapName(importPath string) (string, bool) {
	if importPath == modulePath {
		return rootPackageTag, true
	}
	rest, ours := strings.CutPrefix(importPath, modulePath+"/")
	return rest, ours
}

// mapRow is a line of one of the map's tables.
type mapRow struct {
	line  int    // in the file
	cells string // what follows the package's cell
}

var (
	rowPattern  = regexp.MustCompile("^\\|\\s*`([^`]+)`\\s*\\|(.*)\\|\\s*$")
	namePattern = regexp.MustCompile("`([^`]+)`")
)

// mapTable reads the table under heading: its rows by package, and the
// problems of a row that is no package's or a package's second.
func mapTable(doc []byte, heading string) (map[string]mapRow, []string) {
	rows := map[string]mapRow{}
	var problems []string
	in, started := false, false
	sc := bufio.NewScanner(bytes.NewReader(doc))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == heading
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			if started {
				return rows, problems
			}
			continue
		}
		started = true
		m := rowPattern.FindStringSubmatch(line)
		if m == nil {
			if !strings.HasPrefix(line, "| package |") && !strings.HasPrefix(line, "| --- |") {
				problems = append(problems, fmt.Sprintf("%s:%d: under %q, a line that names no package: %s", mapFile, n, heading, line))
			}
			continue
		}
		if first, dup := rows[m[1]]; dup {
			problems = append(problems, fmt.Sprintf("%s:%d: under %q, a second line for %s (the first is on line %d); keep one", mapFile, n, heading, m[1], first.line))
			continue
		}
		rows[m[1]] = mapRow{line: n, cells: m[2]}
	}
	if !started {
		problems = append(problems, fmt.Sprintf("%s: no table under %q", mapFile, heading))
	}
	return rows, problems
}

// checkMap compares the map in doc with the packages go list found.
func checkMap(doc []byte, pkgs map[string]*mapPackage) []string {
	jobs, problems := mapTable(doc, packagesTable)
	imports, more := mapTable(doc, importsTable)
	problems = append(problems, more...)
	names := slices.Sorted(maps.Keys(pkgs))

	for _, name := range names {
		if _, ok := jobs[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s: package %s has no line under %q; add one:\n\t| `%s` | %s |",
				mapFile, name, packagesTable, name, jobHint(pkgs[name].doc)))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(jobs)) {
		if pkgs[name] == nil {
			problems = append(problems, fmt.Sprintf("%s:%d: under %q, %s is no package of the module (on %s); remove its line",
				mapFile, jobs[name].line, packagesTable, name, strings.Join(mapOSes, ", ")))
		}
	}

	for _, name := range names {
		want := slices.Sorted(maps.Keys(pkgs[name].imports))
		row, listed := imports[name]
		var got []string
		for _, m := range namePattern.FindAllStringSubmatch(row.cells, -1) {
			got = append(got, m[1])
		}
		slices.Sort(got)
		switch {
		case !listed && len(want) == 0:
		case !listed:
			problems = append(problems, fmt.Sprintf("%s: %s imports %s, and has no line under %q; add one:\n\t%s",
				mapFile, name, strings.Join(want, ", "), importsTable, importsRow(name, want)))
		case len(want) == 0:
			problems = append(problems, fmt.Sprintf("%s:%d: under %q, %s imports no package of the module; remove its line",
				mapFile, row.line, importsTable, name))
		case !slices.Equal(got, want):
			problems = append(problems, fmt.Sprintf("%s:%d: under %q, the line for %s %s; write it as:\n\t%s",
				mapFile, row.line, importsTable, name, importsDiff(got, want), importsRow(name, want)))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(imports)) {
		if pkgs[name] == nil {
			problems = append(problems, fmt.Sprintf("%s:%d: under %q, %s is no package of the module; remove its line",
				mapFile, imports[name].line, importsTable, name))
		}
	}
	return problems
}

// importsRow is the line of the imports table for name.
func importsRow(name string, imports []string) string {
	quoted := make([]string, len(imports))
	for i, imp := range imports {
		quoted[i] = "`" + imp + "`"
	}
	return fmt.Sprintf("| `%s` | %s |", name, strings.Join(quoted, ", "))
}

// importsDiff says how the imports a line lists differ from the real ones.
func importsDiff(got, want []string) string {
	var parts []string
	if missing := without(want, got); len(missing) > 0 {
		parts = append(parts, "leaves out "+strings.Join(missing, ", "))
	}
	if gone := without(got, want); len(gone) > 0 {
		parts = append(parts, "lists "+strings.Join(gone, ", ")+", not imported")
	}
	return strings.Join(parts, " and ")
}

// without is a's names that b lacks.
func without(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// jobHint is what a missing line of the package table might say: the
// package's doc comment, or a request for one.
func jobHint(doc string) string {
	if doc == "" {
		return "its one job (the package has no doc comment to start from)"
	}
	return doc
}

// The map's problems name the line to add, change or remove.
func TestArchitectureMapProblems(t *testing.T) {
	doc := []byte("# Map\n\n## Packages\n\n| package | its one job |\n| --- | --- |\n" +
		"| `main` | runs |\n| `gone` | was here |\n| `lib` | works |\n| `lib` | again |\n\n" +
		"## Who imports whom\n\n| package | imports from mcpv |\n| --- | --- |\n" +
		"| `main` | `lib`, `old` |\n| `lib` | `leaf` |\n\n## After\n\n| `x` | not a map table |\n")
	pkgs := map[string]*mapPackage{
		"main": {imports: map[string]bool{"lib": true, "leaf": true}},
		"lib":  {imports: map[string]bool{}},
		"leaf": {doc: "Package leaf grows.", imports: map[string]bool{}},
		"new":  {imports: map[string]bool{"leaf": true}},
	}
	want := []string{
		"docs/ARCHITECTURE.md:10: under \"## Packages\", a second line for lib (the first is on line 9); keep one",
		"docs/ARCHITECTURE.md: package leaf has no line under \"## Packages\"; add one:\n\t| `leaf` | Package leaf grows. |",
		"docs/ARCHITECTURE.md: package new has no line under \"## Packages\"; add one:\n\t| `new` | its one job (the package has no doc comment to start from) |",
		"docs/ARCHITECTURE.md:8: under \"## Packages\", gone is no package of the module (on linux, darwin, windows); remove its line",
		"docs/ARCHITECTURE.md:17: under \"## Who imports whom\", lib imports no package of the module; remove its line",
		"docs/ARCHITECTURE.md:16: under \"## Who imports whom\", the line for main leaves out leaf and lists old, not imported; write it as:\n\t| `main` | `leaf`, `lib` |",
		"docs/ARCHITECTURE.md: new imports leaf, and has no line under \"## Who imports whom\"; add one:\n\t| `new` | `leaf` |",
	}
	if diff := cmp.Diff(want, checkMap(doc, pkgs)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// The map's account of a run names the commands that need no server (they
// run before any server is resolved): they are those the grammar declares
// so (noServer), and a command added to either without the other fails
// here, with the words to write.
func TestArchitectureNoServerCommands(t *testing.T) {
	doc, err := os.ReadFile(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	const intro = "A command that needs no server ("
	_, rest, ok := strings.Cut(string(doc), intro)
	list, _, closed := strings.Cut(rest, ")")
	if !ok || !closed {
		t.Fatalf("%s: no %q...) under \"## A run\"", mapFile, intro)
	}
	var documented []string
	for _, m := range regexp.MustCompile("`([a-z -]+)`").FindAllStringSubmatch(list, -1) {
		documented = append(documented, m[1])
	}
	grammar, err := commands.NoServerCommands()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(slices.Sorted(slices.Values(documented)), slices.Sorted(slices.Values(grammar))) {
		t.Errorf("%s names the commands that need no server as %q; the grammar's are %q: write %s`%s`)",
			mapFile, documented, grammar, intro, strings.Join(grammar, "`, `"))
	}
}

// The top level is the map's "## The top level" table, entry for entry:
// a file or directory put at the top without a reason written there
// fails, and so does a line for one that is gone. What .gitignore names
// at the root (built binaries) is not the tree's.
func TestTopLevelIsTheMaps(t *testing.T) {
	doc, err := os.ReadFile(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "\n## The top level\n")
	if !ok {
		t.Fatalf("%s has no \"## The top level\"", mapFile)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	listed := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(first, -1) {
			listed[m[1]] = true
		}
	}
	ignored, err := os.ReadFile(".gitignore")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" || ignoredAtRoot(string(ignored), name) {
			continue
		}
		if !listed[name] {
			t.Errorf("%s is at the top level with no line in %s's \"## The top level\": move it, or say there why it is there", name, mapFile)
		}
		delete(listed, name)
	}
	for name := range listed {
		t.Errorf("%s: \"## The top level\" lists %s, which is not there", mapFile, name)
	}
}

// ignoredAtRoot reports whether .gitignore's text ignores name at the
// root: a line "/name", "name" or "*suffix".
func ignoredAtRoot(gitignore, name string) bool {
	for _, line := range strings.Split(gitignore, "\n") {
		line = strings.TrimSuffix(strings.TrimSpace(line), "/")
		if ok, _ := path.Match(strings.TrimPrefix(line, "/"), name); ok && line != "" {
			return true
		}
	}
	return false
}

// The mock and its request log stand on serve, not on the session
// opener: serve's upstream opener takes what it uses (serve.Relay), so
// what a mock links is the protocol and the relay, not every package a
// session to a real server needs.
func TestMockDoesNotLinkTheSessionOpener(t *testing.T) {
	pkgs := map[string]*mapPackage{}
	for _, goos := range mapOSes {
		if err := listPackages(goos, pkgs); err != nil {
			t.Fatal(err)
		}
	}
	for _, from := range []string{"internal/mock", "internal/serve"} {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			if seen[p] {
				return
			}
			seen[p] = true
			if mp := pkgs[p]; mp != nil {
				for imp := range mp.imports {
					walk(imp)
				}
			}
		}
		walk(from)
		if seen["internal/connect"] {
			t.Errorf("%s links internal/connect", from)
		}
		if len(seen) < 3 {
			t.Errorf("%s: %d packages reached; the walk is broken", from, len(seen))
		}
	}
}

// lid is a row of docs/ARCHITECTURE.md's lids table: a wing, its
// directories (none: every directory no other wing holds) and the most
// lines it may hold, of Go outside tests and of its rules' text files.
type lid struct {
	wing       string
	dirs       []string
	code, data int
}

var backticked = regexp.MustCompile("`([^`]+)`")

// lids reads the table under "#### Lids" of the architecture document.
func lids(doc string) ([]lid, error) {
	var rows []lid
	in := false
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "#### Lids":
			in = true
		case !in || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| wing ") || strings.HasPrefix(line, "| ---"):
			if in && len(rows) > 0 && !strings.HasPrefix(line, "|") {
				return rows, nil
			}
		default:
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) != 4 {
				return nil, fmt.Errorf("lids: %q: want four cells", line)
			}
			r := lid{wing: strings.TrimSpace(cells[0])}
			for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
				r.dirs = append(r.dirs, m[1])
			}
			var err error
			if r.code, err = count(cells[2]); err == nil {
				r.data, err = count(cells[3])
			}
			if err != nil {
				return nil, fmt.Errorf("lids: the wing %s: %w", r.wing, err)
			}
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("lids: no table under \"#### Lids\"")
	}
	return rows, nil
}

// count reads "13,062" (an empty cell is none).
func count(cell string) (int, error) {
	cell = strings.ReplaceAll(strings.TrimSpace(cell), ",", "")
	if cell == "" {
		return 0, nil
	}
	return strconv.Atoi(cell)
}

// wingOf is the row that holds the file at rel: the wing whose directory
// is rel's or above it, else the row with no directories.
func wingOf(rows []lid, rel string) int {
	rest := -1
	dir := filepath.ToSlash(filepath.Dir(rel))
	for i, r := range rows {
		if len(r.dirs) == 0 {
			rest = i
		}
		for _, d := range r.dirs {
			if dir == d || strings.HasPrefix(dir, d+"/") {
				return i
			}
		}
	}
	return rest
}

// overLids names each wing that holds more lines than its lid.
func overLids(rows []lid, code, data []int) []string {
	var over []string
	for i, r := range rows {
		if code[i] > r.code {
			over = append(over, fmt.Sprintf("the wing %s holds %d lines of Go outside tests, over its lid of %d", r.wing, code[i], r.code))
		}
		if data[i] > r.data {
			over = append(over, fmt.Sprintf("the wing %s holds %d lines of rules in text files, over its lid of %d", r.wing, data[i], r.data))
		}
	}
	return over
}

// Every wing of the house holds no more lines than its lid in
// docs/ARCHITECTURE.md, counted as scripts/size.sh counts them: a wing
// grows past its lid only in a commit that raises the lid, with its reason.
func TestWingsUnderTheirLids(t *testing.T) {
	doc, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := lids(string(doc))
	if err != nil {
		t.Fatal(err)
	}
	code, data := make([]int, len(rows)), make([]int, len(rows))
	productSources(t, func(path string, lines []string) {
		if i := wingOf(rows, path); i >= 0 {
			code[i] += len(lines)
		}
	})
	for i, r := range rows {
		for _, d := range r.dirs {
			err := filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if e.IsDir() && e.Name() == "testdata" {
					return filepath.SkipDir
				}
				if !e.IsDir() && strings.HasSuffix(path, ".txt") {
					b, err := os.ReadFile(path)
					data[i] += strings.Count(string(b), "\n")
					if len(b) > 0 && b[len(b)-1] != '\n' {
						data[i]++
					}
					return err
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, o := range overLids(rows, code, data) {
		t.Errorf("%s: take lines out, or raise the lid in docs/ARCHITECTURE.md (\"#### Lids\") and say why", o)
	}
	for i, r := range rows {
		t.Logf("%s: %d of %d lines of Go, %d of %d of rules", r.wing, code[i], r.code, data[i], r.data)
	}
}

// The lids table is read as written, and a wing one line past its lid
// fails.
func TestLidsRead(t *testing.T) {
	rows, err := lids("#### Lids\n\n| wing | directories | lid: Go | lid: rules' text |\n| --- | --- | --- | --- |\n" +
		"| audit | `internal/audit` | 8,692 | 5,079 |\n| two | `a` `b/c` | 10 | |\n| the rest | (all else) | 1,000 | |\n\nafter\n| x | y | z | w |\n")
	if err != nil || len(rows) != 3 {
		t.Fatalf("lids = %+v, %v", rows, err)
	}
	if r := rows[0]; r.wing != "audit" || r.code != 8692 || r.data != 5079 || len(r.dirs) != 1 {
		t.Errorf("row 0 = %+v", r)
	}
	for rel, want := range map[string]int{"internal/audit/x.go": 0, "a/x.go": 1, "b/c/d/x.go": 1, "b/x.go": 2, "x.go": 2, "internal/auditor/x.go": 2} {
		if got := wingOf(rows, rel); got != want {
			t.Errorf("wingOf(%s) = %d, want %d", rel, got, want)
		}
	}
	if over := overLids(rows, []int{8692, 11, 1000}, []int{5079, 0, 0}); len(over) != 1 || !strings.Contains(over[0], "two holds 11 lines of Go outside tests, over its lid of 10") {
		t.Errorf("one line past a lid: %q", over)
	}
	if over := overLids(rows, []int{8692, 10, 1000}, []int{5080, 0, 0}); len(over) != 1 || !strings.Contains(over[0], "5080 lines of rules") {
		t.Errorf("one line of rules past a lid: %q", over)
	}
	if _, err := lids("no table"); err == nil {
		t.Error("a document without the table read")
	}
}
