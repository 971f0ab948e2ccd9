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
		url = specLinks[c.Spec]
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

// The check guide's catalogue is every check, as Catalogue has it; the
// test fails, naming the file, when it is stale.
func TestGuideCatalogue(t *testing.T) {
	path := filepath.Join("..", "..", filepath.FromSlash(guideFile))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(data), catalogStart)
	table, after, ok2 := strings.Cut(rest, catalogEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no generated catalogue: put the lines %q and %q where it goes, then run go generate ./internal/check", guideFile, catalogStart, catalogEnd)
	}
	want := guideCatalogue() + "\n"
	if *update && table != want {
		if err := os.WriteFile(path, []byte(before+catalogStart+want+catalogEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := cmp.Diff(table, want); d != "" {
		t.Errorf("%s is stale; go generate ./internal/check rewrites it (-file +generated):\n%s", guideFile, d)
	}
}

// Every check is whole: an id in its area, a title, a level, where the
// requirement is stated and its text, and a test of it.
func TestCatalogueIsWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Catalogue() {
		switch {
		case seen[c.ID]:
			t.Errorf("%s twice", c.ID)
		case c.Title == "" || c.Quote == "" || c.Spec == "" || c.Section == "":
			t.Errorf("%s: title, quote, spec and section are all needed", c.ID)
		case c.Level != MUST && c.Level != SHOULD:
			t.Errorf("%s: level %q", c.ID, c.Level)
		case c.run == nil && c.watch == nil:
			t.Errorf("%s: nothing runs it", c.ID)
		case !strings.Contains(c.Quote, string(c.Level)) && !strings.Contains(c.Quote, "schema") && c.Spec != "JSON-RPC 2.0" && !strings.Contains(c.Section, "schema"):
			t.Logf("%s: its quote does not say %s", c.ID, c.Level)
		}
		seen[c.ID] = true
	}
	if len(Catalogue()) < 60 {
		t.Errorf("only %d checks", len(Catalogue()))
	}
}
