package commands

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/surface"
)

func raws(items ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(items))
	for i, it := range items {
		out[i] = json.RawMessage(it)
	}
	return out
}

// A query's words are each found in what an item says of itself: its
// name (in the words of a camelCase or snake_case name), title, a
// parameter's name or its description, a name counting most; a word that
// nothing holds takes no hit away; a resource is found by its URI.
func TestRank(t *testing.T) {
	servers := []surface.Server{{Name: "github", Snapshot: surface.Snapshot{
		Tools: raws(`{"name":"create_issue","description":"Open an issue in a repository.","inputSchema":{"properties":{"repo":{},"title":{}}}}`,
			`{"name":"searchCode","description":"Search code across repositories.\nSecond line.","inputSchema":{"properties":{"query":{}}}}`,
			`{"name":"list_pulls","description":"List pull requests; each names its issue.","inputSchema":{}}`)}},
		{Name: "notes", Snapshot: surface.Snapshot{
			Prompts:           raws(`{"name":"summarize","description":"Summarize an issue thread.","arguments":[{"name":"issue"}]}`),
			ResourceTemplates: raws(`{"uriTemplate":"notes://issue/{id}","name":"note"}`)},
			Resources: raws(`{"uri":"notes://readme","name":"readme","title":"Read me first"}`)},
	}
	names := func(hits []rankedHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.Server+"/"+h.Name)
		}
		return out
	}
	if got, want := names(hitsOf("issue", servers)), []string{"github/create_issue", "notes/notes://issue/{id}", "notes/summarize", "github/list_pulls"}; !slices.Equal(got, want) {
		t.Errorf("issue: %v, want %v", got, want)
	}
	if got := names(hitsOf("search code", servers)); !slices.Equal(got, []string{"github/searchCode"}) {
		t.Errorf("search code: %v", got)
	}
	if got := names(hitsOf("README", servers)); !slices.Equal(got, []string{"notes/notes://readme"}) {
		t.Errorf("README: %v", got)
	}
	if got := names(hitsOf("issue nonsense", servers)); !slices.Equal(got, names(hitsOf("issue", servers))) {
		t.Errorf("a word nothing holds beside one that is held: %v", got)
	}
	if h := hitsOf("search", servers); len(h) != 1 || h[0].Description != "Search code across repositories." || h[0].Kind != kindTool {
		t.Errorf("a hit's first line: %+v", h)
	}
	if got := hitsOf("  ", servers); got != nil {
		t.Errorf("an empty query: %v", got)
	}
}

// A hostile server's description of megabytes is read no further than
// its bound: a word past it is not found.
func TestRankBounded(t *testing.T) {
	desc := strings.Repeat("x ", 1<<20) + "needle"
	servers := []surface.Server{{Name: "h", Snapshot: surface.Snapshot{Tools: raws(`{"name":"t","description":"` + desc + `"}`)}}}
	if got := hitsOf("needle", servers); len(got) != 0 {
		t.Errorf("a word past the bound was found: %v", got)
	}
}

func TestQueryWords(t *testing.T) {
	if got, want := queryWords("getUser_byID list-tools  HTTP2"), []string{"get", "user", "by", "id", "list", "tools", "http2"}; !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

// A hit needs one of the query's words, not all: the items that hold more
// of them come first, then those whose words sit where they count most;
// items that tie keep the order their servers listed them in. A word's
// other forms count as the word (numbers, number; adding, add).
func TestRankByWordsMatched(t *testing.T) {
	servers := []surface.Server{{Name: "calc", Snapshot: surface.Snapshot{Tools: raws(
		`{"name":"sum","description":"Returns the sum of two numbers."}`,
		`{"name":"add","description":"Adds two numbers."}`,
		`{"name":"count","description":"Counts the numbers in a list."}`,
		`{"name":"tally","description":"Counts the numbers in a list."}`,
		`{"name":"clock","description":"The time."}`)}}}
	names := func(hits []rankedHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.Name)
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"add numbers", []string{"add", "sum", "count", "tally"}},
		{"adding number", []string{"add", "sum", "count", "tally"}},
		{"numbers", []string{"sum", "add", "count", "tally"}},
		{"the sum of numbers", []string{"sum", "add", "count", "tally"}}, // "the" and "of" are no words to find
		{"counting", []string{"count", "tally"}},
		{"nothing here", nil},
	} {
		if got := names(hitsOf(tc.query, servers)); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.query, got, tc.want)
		}
	}
	if h := hitsOf("add numbers", servers); len(h) < 2 || h[0].Matched != 2 || h[1].Matched != 1 {
		t.Errorf("words matched: %+v", h)
	}
}

func TestStem(t *testing.T) {
	for _, forms := range [][]string{
		{"number", "numbers"},
		{"add", "adds", "added", "adding"},
		{"create", "creates", "created", "creating"},
		{"issue", "issues"},
		{"query", "queries"},
		{"file", "files"},
		{"send", "sends", "sending"},
	} {
		for _, f := range forms[1:] {
			if stem(f) != stem(forms[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q", f, stem(f), forms[0], stem(forms[0]))
			}
		}
	}
	for _, apart := range [][2]string{{"status", "stat"}, {"class", "clas"}, {"thing", "th"}, {"need", "ne"}} {
		if stem(apart[0]) == stem(apart[1]) {
			t.Errorf("%q and %q stem alike (%q)", apart[0], apart[1], stem(apart[0]))
		}
	}
}

// hitsOf is rankItems' hits.
func hitsOf(query string, servers []surface.Server) []rankedHit {
	hits, _ := rankItems(query, servers)
	return hits
}
