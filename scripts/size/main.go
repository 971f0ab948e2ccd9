// Command size measures how large mcpv's Go is, as docs/ARCHITECTURE.md
// records it ("How large the house is"): lines of Go outside tests and in
// them, functions longer than 80 lines and files longer than 500, each
// counted over the main module alone (a directory with a go.mod of its
// own, testdata and hidden directories are left out). It needs Go alone:
//
//	scripts/size.sh [-list] [-wings] [DIR]
//
// -wings adds the lines of each wing of docs/ARCHITECTURE.md's lids
// table, whose lids a test of the main module holds and each issue names.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// The bounds the house holds to (CONTRIBUTING.md, STYLE.md).
const (
	longFunc = 80
	longFile = 500
)

// wing is a part of the house whose size is recorded on its own: a name
// and the directories it holds (each with those under it), as
// docs/ARCHITECTURE.md's lids table lists them (its row without a
// directory, the rest of the house, is not a wing here). A wing's lines
// are its Go outside tests, and the text files its rules are written in
// (the audit's lexicons), counted apart.
type wing struct {
	name string
	dirs []string
}

var wings []wing

// readWings reads the wings from the lids table of root's architecture
// document.
func readWings(root string) error {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		return err
	}
	_, table, ok := strings.Cut(string(doc), "\n#### Lids\n")
	if !ok {
		return fmt.Errorf("docs/ARCHITECTURE.md: no lids table")
	}
	tick := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || strings.HasPrefix(line, "| wing ") || strings.HasPrefix(line, "| ---") {
			if len(wings) > 0 && !strings.HasPrefix(line, "|") {
				break
			}
			continue
		}
		w := wing{name: strings.TrimSpace(cells[1])}
		for _, m := range tick.FindAllStringSubmatch(cells[2], -1) {
			w.dirs = append(w.dirs, m[1])
		}
		if len(w.dirs) > 0 {
			wings = append(wings, w)
		}
	}
	return nil
}

// wingOf is the index in wings of the wing that holds rel, or -1.
func wingOf(rel string) int {
	dir := filepath.ToSlash(filepath.Dir(rel))
	for i, w := range wings {
		for _, d := range w.dirs {
			if dir == d || strings.HasPrefix(dir, d+"/") {
				return i
			}
		}
	}
	return -1
}

type tally struct {
	wingCode, wingData []int    // lines of each wing's Go outside tests, and of its rules' text files (by index in wings)
	code, tests        int      // lines
	codeFiles          int      // files not tests
	funcs, testFuncs   []string // "path:line name (N lines)", over longFunc
	files, testFiles   []string // "path (N lines)", over longFile
}

func main() {
	list := flag.Bool("list", false, "name each long function and file")
	byWing := flag.Bool("wings", false, "the lines of each wing outside tests")
	flag.Parse()
	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	err := readWings(root)
	var t *tally
	if err == nil {
		t, err = measure(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "size:", err)
		os.Exit(1)
	}
	fmt.Printf("Go lines, not tests: %d (%d files)\n", t.code, t.codeFiles)
	fmt.Printf("Go lines, tests: %d\n", t.tests)
	fmt.Printf("functions over %d lines, not tests: %d (tests: %d)\n", longFunc, len(t.funcs), len(t.testFuncs))
	fmt.Printf("files over %d lines, not tests: %d (tests: %d)\n", longFile, len(t.files), len(t.testFiles))
	if *byWing {
		for i, w := range wings {
			fmt.Printf("wing %s: %d", w.name, t.wingCode[i])
			if t.wingData[i] > 0 {
				fmt.Printf(" (and %d lines of rules in text files)", t.wingData[i])
			}
			fmt.Println()
		}
	}
	if *list {
		for _, l := range [][]string{t.funcs, t.files, t.testFuncs, t.testFiles} {
			for _, s := range l {
				fmt.Println("  " + s)
			}
		}
	}
}

func measure(root string) (*tally, error) {
	t := &tally{wingCode: make([]int, len(wings)), wingData: make([]int, len(wings))}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			base := d.Name()
			if path != root && (base == "testdata" || base == "node_modules" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // another module
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if strings.HasSuffix(path, ".txt") && wingOf(rel) >= 0 {
			src, err := os.ReadFile(path)
			t.wingData[wingOf(rel)] += lineCount(src)
			return err
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		test := strings.HasSuffix(path, "_test.go")
		lines := lineCount(src)
		if i := wingOf(rel); i >= 0 && !test {
			t.wingCode[i] += lines
		}
		file := fmt.Sprintf("%s (%d lines)", rel, lines)
		if test {
			t.tests += lines
			if lines > longFile {
				t.testFiles = append(t.testFiles, file)
			}
		} else {
			t.code += lines
			t.codeFiles++
			if lines > longFile {
				t.files = append(t.files, file)
			}
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			start, end := fset.Position(fn.Pos()).Line, fset.Position(fn.End()).Line
			if n := end - start + 1; n > longFunc {
				s := fmt.Sprintf("%s:%d %s (%d lines)", rel, start, fn.Name.Name, n)
				if test {
					t.testFuncs = append(t.testFuncs, s)
				} else {
					t.funcs = append(t.funcs, s)
				}
			}
		}
		return nil
	})
	for _, l := range [][]string{t.funcs, t.testFuncs, t.files, t.testFiles} {
		sort.Strings(l)
	}
	return t, err
}

// lineCount is the number of lines of src, a last one without a newline
// counted.
func lineCount(src []byte) int {
	n := bytes.Count(src, []byte("\n"))
	if len(src) > 0 && src[len(src)-1] != '\n' {
		n++
	}
	return n
}
