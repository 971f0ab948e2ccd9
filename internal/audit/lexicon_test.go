package audit

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// maxLexiconLine bounds a line of a lexicon file: a long alternative is
// continued on indented lines.
const maxLexiconLine = 250

// Every entry of the lexicons compiles, names a rule or is named by the
// code, and no line runs long.
func TestLexiconsAreWhole(t *testing.T) {
	set := lexicon.Get()
	if len(set.order) == 0 {
		t.Fatal("no lexicon entries")
	}
	for _, name := range conceptNames {
		if es := set.byName[name]; len(es) != 1 || !slices.Contains(es[0].words, "terms") {
			t.Errorf("the concept %q needs one entry of terms, has %d entries", name, len(es))
		}
	}
	if t.Failed() {
		return
	}
	concepts.Get() // builds
	for _, e := range set.order {
		where := fmt.Sprintf("lexicon/%s:%d", e.file, e.line)
		if len(e.alts) == 0 {
			t.Errorf("%s: %s has no lines", where, e.name)
		}
		if slices.Contains(e.words, "terms") {
			continue // the terms of a concept are words, not a regular expression
		}
		if _, err := regexp.Compile(e.pattern()); err != nil {
			t.Errorf("%s: %s: %v", where, e.name, err)
		}
		if len(e.words) > 0 {
			if _, ok := ParseSeverity(e.words[0]); ok && ruleByID(e.name).Title == "" {
				t.Errorf("%s: phrases of %q, which is no rule", where, e.name)
			}
		}
	}
	for _, f := range lexiconFiles {
		data, err := lexiconFS.ReadFile("lexicon/" + f + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if len(line) > maxLexiconLine {
				t.Errorf("lexicon/%s.txt:%d: %d characters, over %d: continue it on an indented line", f, i+1, len(line), maxLexiconLine)
			}
		}
	}
}

// The lexicon format: headers with words, values and a message; comments;
// continuations; an entry named inside another.
func TestLexiconFormat(t *testing.T) {
	files := fstest.MapFS{}
	for _, f := range lexiconFiles {
		files["lexicon/"+f+".txt"] = &fstest.MapFile{}
	}
	files["lexicon/override.txt"].Data = []byte(`# a comment
= override-instructions high pre="a  b|c:d" about=x: tells the model so
\bone\b  # the first
    (?:two|
    three)
###not a comment

= word
w1
w2  # a comment
= uses
x{{word}}y
= long fits="a|b|
    c|d": runs on
z|y||x
(?:v|w)
`)
	set, err := parseLexicons(files)
	if err != nil {
		t.Fatal(err)
	}
	e := set.byName["override-instructions"][0]
	if got, want := e.alts, []string{`\bone\b(?:two|three)`, `###not a comment`}; !slices.Equal(got, want) {
		t.Errorf("alternatives %q, want %q", got, want)
	}
	if e.message != "tells the model so" || e.attrs["pre"] != "a  b|c:d" || e.attrs["about"] != "x" || !slices.Equal(e.words, []string{"high"}) {
		t.Errorf("header read as %+v", e)
	}
	if got := set.byName["uses"][0].pattern(); got != "x(?:w1|w2)y" {
		t.Errorf("{{word}} expanded to %q", got)
	}
	if l := set.byName["long"]; len(l) != 1 || l[0].attrs["fits"] != "a|b|c|d" || l[0].message != "runs on" || !slices.Equal(l[0].alts, []string{"z", "y", "x", `(?:v|w)`}) {
		t.Errorf("a header on two lines read as %+v", l)
	}
	for _, bad := range []string{"    continues nothing\n", "= a\n{{nothing}}\n", "= a\n{{a}}\n", `= a pre="unclosed` + "\n", `= a pre="unclosed` + "\n    still\nb\n", "= a\n    an indented first line\n", "before any entry\n"} {
		files["lexicon/override.txt"].Data = []byte(bad)
		if _, err := parseLexicons(files); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	files["lexicon/stray.txt"] = &fstest.MapFile{Data: []byte("= a\nb\n")}
	files["lexicon/override.txt"].Data = nil
	if _, err := parseLexicons(files); err == nil {
		t.Error("a file of no family: no error")
	}
}
