package main

import (
	"bytes"
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
