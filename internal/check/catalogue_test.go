package check

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the catalogue of docs/guide/check.md")

// The catalogue of the check guide is made from Catalogue: go generate
// (or go test -run TestGuideCatalogue -update) writes it.
//
//go:generate go test -run ^TestGuideCatalogue -update .

const (
	guideFile    = "docs/guide/check.md"
	catalogStart = "<!-- The catalogue below is made from internal/check by go generate ./...; do not edit it. -->\n"
	catalogEnd   = "<!-- The end of the generated catalogue. -->\n"
)

// link is where a check's requirement is stated, as a link.
func link(c *Check) string {
	page, anchor, _ := strings.Cut(c.Section, "#")
	var url string
	switch {
	case strings.HasPrefix(c.Spec, "20"):
		url = "https://modelcontextprotocol.io/specification/" + c.Spec + "/" + page
		if anchor != "" {
			url += "#" + anchor
		}
	case c.Spec == "JSON-RPC 2.0":
		url = "https://www.jsonrpc.org/specification"
	case c.Spec == "RFC 9110":
		url = "https://www.rfc-editor.org/rfc/rfc9110#name-www-authenticate"
	default:
		url = specLinks[c.Spec+" "+page]
		if url == "" {
			panic("no link for " + c.Spec + " " + page + ": add it to specLinks")
		}
		if anchor != "" {
			url += "#" + anchor
		}
	}
	return fmt.Sprintf("[%s %s](%s)", c.Spec, c.Section, url)
}

// guideCatalogue is the catalogue in Markdown: a table per area.
func guideCatalogue() string {
	var b strings.Builder
	n := 0
	for _, a := range Areas {
		fmt.Fprintf(&b, "\n#### %s (`%s`)\n\n| # | check | level | requirement | stated in |\n| --- | --- | --- | --- | --- |\n", a.Title, a.ID)
		for _, c := range Catalogue() {
			if c.Area != a.ID {
				continue
			}
			n++
			fmt.Fprintf(&b, "| %d | `%s`: %s | %s | %s | %s |\n", n, c.ID, c.Title, c.Level, strings.ReplaceAll(c.Quote, "|", `\|`), link(c))
		}
	}
	return b.String()
}

const (
	coverageStart = "<!-- The coverage below is made from internal/check/rules.tsv by go generate ./...; do not edit it. -->\n"
	coverageEnd   = "<!-- The end of the generated coverage. -->\n"
)

const (
	scenariosStart = "<!-- The table of scenarios below is made from internal/check by go generate ./...; do not edit it. -->\n"
	scenariosEnd   = "<!-- The end of the generated table of scenarios. -->\n"
)

// guideScenarios is the table of the suite's scenarios and their checks.
func guideScenarios() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n| scenario (suite %s) | revisions | checks | note |\n| --- | --- | --- | --- |\n", SuiteVersion)
	for _, s := range Scenarios {
		var ids []string
		for _, id := range s.Checks {
			ids = append(ids, "`"+id+"`")
		}
		checks := strings.Join(ids, ", ")
		if checks == "" {
			checks = "none"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", s.Name, s.Revisions, checks, strings.ReplaceAll(s.Note, "|", `\|`))
	}
	return b.String()
}

// The check guide's catalogue is every check, as Catalogue has it, and
// its table of the suite's scenarios is Scenarios; the test fails, naming
// the file, when either is stale.
func TestGuideCatalogue(t *testing.T) {
	path := filepath.Join("..", "..", filepath.FromSlash(guideFile))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	rules, _ := readRules(t)
	for _, part := range []struct{ start, end, want string }{
		{catalogStart, catalogEnd, guideCatalogue() + "\n"},
		{scenariosStart, scenariosEnd, guideScenarios() + "\n"},
		{coverageStart, coverageEnd, ruleCoverage(rules) + "\n"},
	} {
		before, rest, ok1 := strings.Cut(text, part.start)
		table, after, ok2 := strings.Cut(rest, part.end)
		if !ok1 || !ok2 {
			t.Fatalf("%s has no generated table: put the lines %q and %q where it goes, then run go generate ./internal/check", guideFile, part.start, part.end)
		}
		if table == part.want {
			continue
		}
		if *update {
			text = before + part.start + part.want + part.end + after
			continue
		}
		t.Errorf("%s is stale; go generate ./internal/check rewrites it (-file +generated):\n%s", guideFile, cmp.Diff(table, part.want))
	}
	if *update && text != string(data) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Every check is whole: an id in its area, a title, a level, where the
// requirement is stated and its text, and a test of it. That the text
// says the level is TestMustIsStated's (quotes_test.go), which fails.
func TestCatalogueIsWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Catalogue() {
		switch {
		case seen[c.ID]:
			t.Errorf("%s twice", c.ID)
		case c.Title == "" || c.Quote == "" || c.Spec == "" || c.Section == "":
			t.Errorf("%s: title, quote, spec and section are all needed", c.ID)
		case c.Level != MUST && c.Level != SHOULD && (c.Level != HOST || c.Area != "portable"):
			t.Errorf("%s: level %q", c.ID, c.Level)
		case c.run == nil && c.watch == nil:
			t.Errorf("%s: nothing runs it", c.ID)
		}
		seen[c.ID] = true
	}
	if len(Catalogue()) < 60 {
		t.Errorf("only %d checks", len(Catalogue()))
	}
}

// The scenarios the suite's table maps are the newest suite's server
// scenarios (testdata/suite-server-scenarios.txt is its `conformance list
// --server`), each once, and every check a scenario names is one of the
// catalogue's.
func TestScenariosAreTheSuites(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "suite-server-scenarios.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(string(data))
	var got []string
	for _, s := range Scenarios {
		got = append(got, s.Name)
		for _, id := range s.Checks {
			if !Known(id) || strings.Contains(id, ".") == false {
				t.Errorf("%s: no check %q", s.Name, id)
			}
		}
		if len(s.Checks) == 0 && s.Note == "" {
			t.Errorf("%s: no check, and no note to say why", s.Name)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the scenarios are not the suite's %s (-suite +Scenarios):\n%s", SuiteVersion, d)
	}
}
