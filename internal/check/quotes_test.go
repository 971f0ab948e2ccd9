package check

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// specText is the text a check's requirement is quoted from, as kept in
// testdata/spec: the page of its revision (its schema.ts for a "schema"
// section), or the sections of JSON-RPC 2.0 and RFC 9110 cited.
func specText(t *testing.T, c *Check) string {
	t.Helper()
	var path string
	switch {
	case c.Spec == "JSON-RPC 2.0":
		path = "jsonrpc-2.0.txt"
	case c.Spec == "RFC 9110":
		path = "rfc9110.txt"
	default:
		page, _, _ := strings.Cut(c.Section, "#")
		if page == "schema" {
			path = filepath.Join(c.Spec, "schema.ts")
		} else {
			path = filepath.Join(c.Spec, filepath.FromSlash(page)+".mdx")
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "spec", path))
	if os.IsNotExist(err) && strings.HasSuffix(path, ".mdx") { // a section's index page
		data, err = os.ReadFile(filepath.Join("testdata", "spec", strings.TrimSuffix(path, ".mdx"), "index.mdx"))
	}
	if err != nil {
		t.Fatalf("%s: %v (copy the page from the specification's repository into testdata/spec)", c.ID, err)
	}
	return string(data)
}

var (
	mdLink      = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	listMarker  = regexp.MustCompile(`(?m)^[ \t]*(?:[-*]|\d+\.)[ \t]+|/\*\*|\*/`)
	htmlTag     = regexp.MustCompile(`<[^>]+>`)
	elision     = regexp.MustCompile(`\.\.\.|…|\[[^\]]*\]`)
	markupChars = strings.NewReplacer("\\_", "", "**", "", "`", "", "_", "", "\\|", "|")
	space       = regexp.MustCompile(`\s+`)
)

// plain is text with its markup taken off (links, emphasis, code marks,
// list markers, comment markers, tags) and its spaces made one: what a
// reader of the rendered page reads.
func plain(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = listMarker.ReplaceAllString(s, "")
	s = htmlTag.ReplaceAllString(s, " ")
	s = markupChars.Replace(s)
	return strings.TrimSpace(space.ReplaceAllString(s, " "))
}

// Every check quotes its requirement word for word from the revision (or
// standard) it names, at the page its section names: the parts of a quote
// between elisions ("...", and a bracketed word of the catalogue's own)
// are found there, in order.
func TestQuotesAreTheSpecification(t *testing.T) {
	for _, c := range Catalogue() {
		text := plain(specText(t, c))
		at := 0
		for _, part := range elision.Split(c.Quote, -1) {
			part = plain(part)
			part = strings.Trim(part, " :;,")
			if part == "" {
				continue
			}
			i := strings.Index(text[at:], part)
			if i < 0 {
				if strings.Contains(text, part) {
					t.Errorf("%s: %q is in %s %s, but not after what comes before it in the quote", c.ID, part, c.Spec, c.Section)
				} else {
					t.Errorf("%s: %q is not in %s %s", c.ID, part, c.Spec, c.Section)
				}
				break
			}
			at += i + len(part)
		}
	}
}

// A MUST is quoted from a sentence that says MUST (or a member the
// schema requires); a check whose text says no MUST is a SHOULD at most:
// a finding no rule's text supports is a warning.
func TestMustIsStated(t *testing.T) {
	for _, c := range Catalogue() {
		if c.Level != MUST {
			continue
		}
		page, _, _ := strings.Cut(c.Section, "#")
		// The extension's UIResource interface is its schema: a value
		// outside a member's bound (a domain that is no origin) breaks it.
		schema := page == "schema" || c.Section == "basic#schema" || c.Spec == appsSpec && c.Section == "apps#ui-resource-format"
		if !strings.Contains(c.Quote, "MUST") && !schema {
			t.Errorf("%s is a MUST, but its quote says no MUST: %q", c.ID, c.Quote)
		}
	}
}
