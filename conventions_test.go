package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// productSources calls fn with every Go file of the module that is not a
// test: the files a reader of the code reads, in this module alone.
func productSources(t *testing.T, fn func(path string, lines []string)) {
	t.Helper()
	goSources(t, false, fn)
}

// goSources calls fn with every Go file of the module, its tests too when
// tests is set.
func goSources(t *testing.T, tests bool, fn func(path string, lines []string)) {
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
		if !strings.HasSuffix(path, ".go") || (!tests && strings.HasSuffix(path, "_test.go")) {
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

// goroutineRow is a row of docs/ARCHITECTURE.md's goroutine table: the
// names its first cell gives, and whether net/http starts it (no go
// statement of the module does).
type goroutineRow struct {
	line  int
	names []string
	byNet bool
}

// goroutineStart is where product code starts a goroutine: a go
// statement, or a WaitGroup's Go (must name a row), or time.AfterFunc,
// whose function runs on a goroutine of its own (mostly a timer's
// moment of work: it need not name a row, but may, for a row it starts).
type goroutineStart struct {
	where string // path:line
	note  string // the comment on its line and the comment lines directly above
	must  bool
	stmt  bool // a go statement
}

// goroutineRows reads the table under "## Goroutines, and what stops each".
// A row's names are its first cell, backticks and parenthetical parts
// removed, split on ", ".
func goroutineRows(doc string) []goroutineRow {
	var rows []goroutineRow
	in := false
	paren := regexp.MustCompile(`\s*\([^)]*\)`)
	for i, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "## ") {
			in = strings.HasPrefix(line, "## Goroutines")
			continue
		}
		if !in || !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) < 3 || cells[0] == "goroutine" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		first := paren.ReplaceAllString(strings.ReplaceAll(cells[0], "`", ""), "")
		var names []string
		for n := range strings.SplitSeq(first, ", ") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		rows = append(rows, goroutineRow{line: i + 1, names: names, byNet: strings.Contains(cells[1], "`net/http`")})
	}
	return rows
}

// goroutineStarts finds where the Go file at path starts goroutines.
func goroutineStarts(path string, src string) ([]goroutineStart, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(src, "\n")
	noteAt := func(pos token.Pos) string {
		line := fset.Position(pos).Line
		var note []string
		for _, g := range f.Comments {
			start, end := fset.Position(g.Pos()).Line, fset.Position(g.End()).Line
			alone := strings.HasPrefix(strings.TrimSpace(lines[start-1]), "//") // not the end of a line of code above
			if start == line || end == line-1 && alone {
				note = append(note, g.Text())
			}
		}
		return strings.Join(note, "\n")
	}
	var starts []goroutineStart
	ast.Inspect(f, func(n ast.Node) bool {
		var at token.Pos
		must, stmt := true, false
		switch n := n.(type) {
		case *ast.GoStmt:
			at, stmt = n.Pos(), true
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			switch x, _ := sel.X.(*ast.Ident); {
			case sel.Sel.Name == "Go" && len(n.Args) == 1: // sync.WaitGroup's
				at = n.Pos()
			case sel.Sel.Name == "AfterFunc" && x != nil && x.Name == "time":
				at, must = n.Pos(), false
			default:
				return true
			}
		default:
			return true
		}
		starts = append(starts, goroutineStart{where: fmt.Sprintf("%s:%d", path, fset.Position(at).Line), note: noteAt(at), must: must, stmt: stmt})
		return true
	})
	return starts, nil
}

// goroutineFindings says which starts name no row, and which rows no
// start names.
func goroutineFindings(rows []goroutineRow, starts []goroutineStart) []string {
	var out []string
	named := make([]bool, len(rows))
	for _, s := range starts {
		note := strings.ToLower(s.note)
		found := false
		for i, r := range rows {
			for _, n := range r.names {
				if strings.Contains(note, strings.ToLower(n)) {
					named[i], found = true, true
				}
			}
		}
		if s.must && !found {
			out = append(out, fmt.Sprintf("%s: a goroutine whose comment names no row of docs/ARCHITECTURE.md's goroutine table: name its row in a comment, or add a row to docs/ARCHITECTURE.md's goroutine table", s.where))
		}
	}
	for i, r := range rows {
		if !named[i] && !r.byNet {
			out = append(out, fmt.Sprintf("docs/ARCHITECTURE.md:%d: no goroutine's comment names the row %q: name it in the comment where the goroutine starts, or remove the row", r.line, strings.Join(r.names, ", ")))
		}
	}
	return out
}

// TestGoroutinesHaveRows holds docs/ARCHITECTURE.md's goroutine table to
// the code: each goroutine product code starts names its row (what
// starts it, what stops it) in the comment where it starts, and each row
// is named somewhere. Test-support packages are left out.
func TestGoroutinesHaveRows(t *testing.T) {
	doc, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := goroutineRows(string(doc))
	if len(rows) < 30 {
		t.Fatalf("found %d rows in docs/ARCHITECTURE.md's goroutine table; the reading is broken", len(rows))
	}
	var starts []goroutineStart
	goStmts := 0
	productSources(t, func(path string, lines []string) {
		slash := filepath.ToSlash(path)
		for _, skip := range []string{"/mcptest/", "/oauthtest/", "/servetest/"} {
			if strings.Contains("/"+slash, skip) {
				return
			}
		}
		for _, skip := range []string{"scripts/", "examples/", "k6/"} {
			if strings.HasPrefix(slash, skip) {
				return
			}
		}
		found, err := goroutineStarts(path, strings.Join(lines, "\n"))
		if err != nil {
			t.Error(err)
			return
		}
		for _, s := range found {
			if s.stmt {
				goStmts++
			}
		}
		starts = append(starts, found...)
	})
	if goStmts < 40 {
		t.Errorf("found %d go statements in product code; the walk misses files", goStmts)
	}
	for _, f := range goroutineFindings(rows, starts) {
		t.Error(f)
	}
}

// TestGoroutineFindings: the check sees a go statement or a WaitGroup's
// Go with no row, a row no one names, and what each says to do.
func TestGoroutineFindings(t *testing.T) {
	doc := "## Goroutines, and what stops each\n\n| goroutine | started by | stops when |\n| --- | --- | --- |\n" +
		"| session reader | `mcp` | Read fails |\n" + // line 5
		"| load monitor, `shared`-session watcher (one per run) | `load` | the run ends |\n" +
		"| HTTP request | `net/http`, per POST | answered |\n" +
		"| orphan | nothing | never |\n" + // line 8
		"| silence probe | `time.AfterFunc` | settled |\n\n## Next\n\n| a | b | c |\n"
	rows := goroutineRows(doc)
	if len(rows) != 5 || !slices.Equal(rows[1].names, []string{"load monitor", "shared-session watcher"}) || !rows[2].byNet {
		t.Fatalf("rows: %+v", rows)
	}
	src := `package p

func f() {
	go read() // Session Reader: stops when Read fails
	go again() // ends some day
	// the shared-session watcher:
	// ends with the run
	go watch()
	go other() // ends some day

	go func() {
	}()
	wg.Go(close)
	time.AfterFunc(d, fire)
	time.AfterFunc(d, w.probe) // the silence probe
}
`
	starts, err := goroutineStarts("p/p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(starts) != 8 {
		t.Fatalf("starts: %+v", starts)
	}
	got := goroutineFindings(rows, starts)
	want := []string{
		"p/p.go:5: a goroutine whose comment names no row of docs/ARCHITECTURE.md's goroutine table: name its row in a comment, or add a row to docs/ARCHITECTURE.md's goroutine table",
		"p/p.go:9: a goroutine whose comment names no row of docs/ARCHITECTURE.md's goroutine table: name its row in a comment, or add a row to docs/ARCHITECTURE.md's goroutine table",
		"p/p.go:11: a goroutine whose comment names no row of docs/ARCHITECTURE.md's goroutine table: name its row in a comment, or add a row to docs/ARCHITECTURE.md's goroutine table",
		"p/p.go:13: a goroutine whose comment names no row of docs/ARCHITECTURE.md's goroutine table: name its row in a comment, or add a row to docs/ARCHITECTURE.md's goroutine table",
		`docs/ARCHITECTURE.md:8: no goroutine's comment names the row "orphan": name it in the comment where the goroutine starts, or remove the row`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// A variable of a package is not made by sync.OnceValue, OnceValues or
// OnceFunc: each allocates at init, which every command, --version
// included, pays. internal/lazy's Value and Regexp are laid out by the
// linker and built on first use (TestStartupInitCost counts the whole).
func TestNoOnceAtInit(t *testing.T) {
	fset := token.NewFileSet()
	lazyOnes := 0
	productSources(t, func(path string, lines []string) {
		f, err := parser.ParseFile(fset, path, strings.Join(lines, "\n"), parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			ast.Inspect(g, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.FuncLit:
					return false // what runs later, not at init
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok {
						switch {
						case id.Name == "sync" && strings.HasPrefix(x.Sel.Name, "Once") && x.Sel.Name != "Once":
							t.Errorf("%s: a package's variable made by sync.%s at init; declare a lazy.Value", fset.Position(x.Pos()), x.Sel.Name)
						case id.Name == "lazy":
							lazyOnes++
						}
					}
				}
				return true
			})
		}
	})
	if lazyOnes < 40 {
		t.Errorf("found %d lazy values; the walk misses files", lazyOnes)
	}
}

// sharedPool is a use of the process's one HTTP connection pool, other
// than to copy its settings: by name, or as a client or a reverse proxy
// with no transport of its own (reverseProxy, unless one is given on the
// lines that follow).
var (
	sharedPool   = regexp.MustCompile(`\bhttp\.(DefaultClient|Get|Post|PostForm|Head)\b|\bhttp\.DefaultTransport\b(?:[^.]|$|\.[^(])|&http\.Client\{\}`)
	reverseProxy = regexp.MustCompile(`\bhttputil\.NewSingleHostReverseProxy\(`)
)

// No code, product or test, sends through http.DefaultTransport's pool:
// anything in the process may close its idle connections
// (httptest.Server.Close does, for every server a test ends), and a
// request in flight on one of them fails with "CloseIdleConnections
// called" (a test of serve's failed so, beside others in parallel). A
// copy (http.DefaultTransport.(*http.Transport).Clone()) is the way.
func TestNoRequestThroughTheSharedPool(t *testing.T) {
	files := 0
	goSources(t, true, func(path string, lines []string) {
		files++
		for i, line := range lines {
			code, _, _ := strings.Cut(line, "//")
			if sharedPool.MatchString(code) || reverseProxy.MatchString(code) && !strings.Contains(strings.Join(lines[i:min(i+3, len(lines))], "\n"), ".Transport") {
				t.Errorf("%s:%d: %s: through the process's shared pool; use a copy of its own (testkit.HTTP in a test)", path, i+1, strings.TrimSpace(line))
			}
		}
	})
	if files < 500 {
		t.Errorf("read %d files; the walk misses some", files)
	}
}

// ciFuzz is a line of .ci/run that fuzzes a target: fuzz ./PACKAGE TARGET [TIME].
var ciFuzz = regexp.MustCompile(`(?m)^fuzz (\./\S+) (Fuzz\w+)`)

// Every fuzz target of the module is fuzzed by .ci/run, and every one
// .ci/run names is where it says: a target moved to another package, or
// added without its line, would otherwise be fuzzed by nobody while the
// stage stays green.
func TestEveryFuzzTargetRunsInCI(t *testing.T) {
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range ciFuzz.FindAllStringSubmatch(string(ci), -1) {
		listed = append(listed, m[1]+" "+m[2])
	}
	var found []string
	fset := token.NewFileSet()
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Fuzz") {
				found = append(found, "./"+filepath.ToSlash(filepath.Dir(path))+" "+fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	slices.Sort(found)
	if len(found) < 30 {
		t.Fatalf("found %d fuzz targets; the walk misses files", len(found))
	}
	if diff := cmp.Diff(found, listed); diff != "" {
		t.Errorf(".ci/run's fuzz lines and the tree's fuzz targets differ (-tree +.ci/run):\n%s", diff)
	}
}
