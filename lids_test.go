package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

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
