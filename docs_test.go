package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every link between the README, CONTRIBUTING.md and the guides reaches a
// file that exists, and a #fragment a heading of that file, so that moving
// a section cannot leave a link behind.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("docs", "guide", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md", "CONTRIBUTING.md"}, files...)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, file := range files {
		md, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(withoutCode(string(md)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, fragment, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
			}
			checked++
			info, err := os.Stat(dest)
			if err != nil {
				t.Errorf("%s links to %s, which does not exist", file, target)
				continue
			}
			if fragment == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s links to %s: a fragment of a file that is not Markdown", file, target)
				continue
			}
			if !hasHeading(t, dest, fragment) {
				t.Errorf("%s links to %s, but %s has no heading #%s", file, target, filepath.ToSlash(dest), fragment)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d links checked: the pattern misses them", checked)
	}
}

// withoutCode is Markdown without its fenced code blocks.
func withoutCode(md string) string {
	var b strings.Builder
	in := false
	for line := range strings.SplitSeq(md, "\n") {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// hasHeading says whether a Markdown file has a heading whose GitHub
// anchor is fragment.
func hasHeading(t *testing.T, file, fragment string) bool {
	md, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(withoutCode(string(md)), "\n") {
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		if anchor(title) == fragment {
			return true
		}
	}
	return false
}

// anchor is GitHub's anchor for a heading: lower case, spaces as hyphens,
// other punctuation dropped.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docs/BENCHMARKS.md is scripts/bench.sh's table followed by
// docs/BENCHMARKS.notes.md, word for word: a figure written into one and
// not the other would be lost, or kept stale, at the next run of bench.sh.
func TestBenchmarksEndWithTheNotes(t *testing.T) {
	page, err := os.ReadFile("docs/BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	notes, err := os.ReadFile("docs/BENCHMARKS.notes.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(page, append([]byte("\n"), notes...)) {
		t.Errorf("docs/BENCHMARKS.md does not end with docs/BENCHMARKS.notes.md: write figures in the notes, then copy them after bench.sh's table (or run bench.sh)")
	}
}

// The field set is one list: every row of scripts/field/servers.tsv starts
// a package pinned in scripts/field/package.json (a row marked ci among its
// dependencies, the ones --ci installs alone, any other among its
// devDependencies) or in the row itself (NAME@VERSION, installed alone,
// never ci), every package.json's package is started by a row, each row
// says why it was chosen, and docs/COMPATIBILITY.md's table names each
// server with its pinned version.
func TestFieldSetIsOneList(t *testing.T) {
	dir := filepath.Join("scripts", "field")
	tsv, err := os.ReadFile(filepath.Join(dir, "servers.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("docs", "COMPATIBILITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{"secrets": true, "shell": true, "filesystem": true, "cloud": true, "cicd": true,
		"browser": true, "database": true, "payments": true, "git": true, "email": true, "monitoring": true,
		"security": true, "app": true, "large": true, "other": true}
	names := map[string]bool{}
	started := map[string]bool{}
	rows := 0
	for i, line := range strings.Split(string(tsv), "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "name\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			t.Errorf("servers.tsv line %d has %d columns, not 8", i+1, len(f))
			continue
		}
		rows++
		name, p, kind, ci, cmd := f[0], f[1], f[2], f[3], f[5]
		if len(f[7]) < 10 {
			t.Errorf("%s: no word of why it was chosen: %q", name, f[7])
		}
		if names[name] {
			t.Errorf("servers.tsv names %s twice", name)
		}
		names[name] = true
		started[p] = true
		if !kinds[kind] {
			t.Errorf("%s: kind %q is none of the kinds servers.tsv lists", name, kind)
		}
		if ci != "ci" && ci != "-" {
			t.Errorf("%s: ci column %q, not ci or -", name, ci)
		}
		version, inCI := pkg.Dependencies[p]
		if !inCI {
			version = pkg.DevDependencies[p]
		}
		alone := false
		if at := strings.LastIndex(p, "@"); at > 0 {
			p, version, alone = p[:at], p[at+1:], true
		}
		switch {
		case alone && (ci == "ci" || pkg.Dependencies[p] != "" || pkg.DevDependencies[p] != ""):
			t.Errorf("%s: %s is installed alone, and so is neither ci nor in package.json", name, p)
		case alone:
		case version == "":
			t.Errorf("%s: package %s is not pinned in package.json", name, p)
		case inCI != (ci == "ci"):
			t.Errorf("%s: marked %q but %s is among the package.json's %s", name, ci, p,
				map[bool]string{true: "dependencies", false: "devDependencies"}[inCI])
		}
		if !strings.Contains(cmd, "$M/"+p+"/") && !(strings.HasPrefix(p, "go:") && strings.HasPrefix(cmd, "$M/")) { // a Go server's binary is in $M
			t.Errorf("%s: its command %q does not start a file of %s", name, cmd, p)
		}
		if row := "| " + name + " | `" + p + "` | " + version + " | "; !strings.Contains(string(doc), row) {
			t.Errorf("docs/COMPATIBILITY.md has no row starting %q", row)
		}
	}
	for _, deps := range []map[string]string{pkg.Dependencies, pkg.DevDependencies} {
		for p := range deps {
			if !started[p] {
				t.Errorf("package.json pins %s, which no row of servers.tsv starts", p)
			}
		}
	}
	if rows < 55 {
		t.Errorf("servers.tsv has %d servers, fewer than 55", rows)
	}
}
