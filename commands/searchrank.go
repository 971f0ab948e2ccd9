package commands

// mcpv search ranks what servers offer against a query: the tools,
// prompts, resources and resource templates of each, over their names,
// titles, descriptions and parameter names. It reads the items as the
// servers listed them and holds no state between runs.

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/surface"
)

// The kinds of item a hit is.
const (
	kindTool     = "tool"
	kindPrompt   = "prompt"
	kindResource = "resource"
	kindTemplate = "resource-template"
)

// rankedHit is one item that matches, with what ranks it.
type rankedHit struct {
	Server      string  `json:"server"`
	Kind        string  `json:"kind"`
	Name        string  `json:"name"` // a resource's and a template's: its URI (template)
	Title       string  `json:"title,omitempty"`
	Description string  `json:"description,omitempty"` // its first line
	Score       float64 `json:"score"`
	Matched     int     `json:"matched"`          // how many of the query's words it holds
	Tokens      int     `json:"tokens,omitempty"` // what it costs a model (tools, prompts, templates)
	// ItemName is the item's own name member (a template's, beside its
	// URI template).
	ItemName string `json:"-"`
}

// Weights of where a query's word is found: a name counts most, then a
// title, a parameter's name and a description. A word of the field, or
// another form of it (stem), counts twice what a part of one does.
const (
	inName, inTitle, inParam, inDescription = 6.0, 4.0, 2.0, 1.0
)

// maxField bounds the text of a field that is read, so that a hostile
// server's description of megabytes costs no more than this.
const maxField = 4 << 10

// rankItems is the items of servers that hold one or more of query's
// words (in a name, title, description or a parameter's name), those that
// hold more first, then by where (the score); items that tie keep the
// order the servers listed them in.
// An item that does not decode is left out, and counted by its server in
// malformed.
func rankItems(query string, servers []surface.Server) (hits []rankedHit, malformed map[string]int) {
	words := queryWords(query)
	if kept := slices.DeleteFunc(slices.Clone(words), func(w string) bool { return slices.Contains(stopWords, w) }); len(kept) > 0 {
		words = kept
	}
	if len(words) == 0 {
		return nil, nil
	}
	malformed = map[string]int{}
	for _, s := range servers {
		for _, l := range []struct {
			kind string
			raws []json.RawMessage
		}{{kindTool, s.Tools}, {kindPrompt, s.Prompts}, {kindResource, s.Resources}, {kindTemplate, s.ResourceTemplates}} {
			for _, raw := range l.raws {
				var it searchItem
				if json.Unmarshal(raw, &it) != nil {
					malformed[s.Name]++
				} else if h, ok := scoreItem(words, s.Name, l.kind, it); ok {
					hits = append(hits, h)
				}
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b rankedHit) int {
		return cmp.Or(cmp.Compare(b.Matched, a.Matched), cmp.Compare(b.Score, a.Score))
	})
	return hits, malformed
}

// stopWords are words too common to find anything by, left out of a
// query that has others.
var stopWords = []string{"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is", "it", "of", "on", "or", "the", "to", "with"}

// searchItem is what an item says of itself.
type searchItem struct {
	Name        string `json:"name"`
	URI         string `json:"uri"`
	URITemplate string `json:"uriTemplate"`
	Title       string `json:"title"`
	Description string `json:"description"`
	InputSchema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"inputSchema"`
	Arguments []struct {
		Name string `json:"name"`
	} `json:"arguments"`
}

func scoreItem(words []string, server, kind string, it searchItem) (rankedHit, bool) {
	name := it.Name
	switch kind {
	case kindResource:
		name = cmp.Or(it.URI, it.Name)
	case kindTemplate:
		name = cmp.Or(it.URITemplate, it.Name)
	}
	params := slices.Collect(maps.Keys(it.InputSchema.Properties))
	for _, a := range it.Arguments {
		params = append(params, a.Name)
	}
	type field struct {
		stems  []string // of its words
		text   string   // lower case
		weight float64
	}
	var fields []field
	for _, f := range []struct {
		text   string
		weight float64
	}{{name + " " + it.Name, inName}, {it.Title, inTitle}, {strings.Join(params, " "), inParam}, {it.Description, inDescription}} {
		text := safetext.Runes(f.text, maxField)
		var stems []string
		for _, w := range queryWords(text) {
			stems = append(stems, stem(w))
		}
		fields = append(fields, field{stems, strings.ToLower(text), f.weight})
	}
	total, matched := 0.0, 0
	for _, w := range words {
		best := 0.0
		for _, f := range fields {
			switch {
			case slices.Contains(f.stems, stem(w)):
				best = max(best, 2*f.weight)
			case len(w) >= 3 && strings.Contains(f.text, w):
				best = max(best, f.weight)
			}
		}
		if best > 0 {
			total += best
			matched++
		}
	}
	if matched == 0 {
		return rankedHit{}, false
	}
	first, _, _ := strings.Cut(strings.TrimSpace(safetext.Runes(it.Description, maxField)), "\n")
	return rankedHit{Server: server, Kind: kind, Name: name, Title: it.Title, Description: first, Score: total, Matched: matched, ItemName: it.Name}, true
}

// Words are the words of text as search compares them: lower case, split
// at whatever is no letter or digit and between the words of a name
// written in camelCase (createIssue: create, issue; get_user: get, user).
func queryWords(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range text {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// stem is word (lower case) without the commonest English endings, so
// that the forms of a word compare alike: numbers and number; adds, added,
// adding and add; creates, created, creating and create (all "creat"); a
// stem keeps three letters at least.
func stem(word string) string {
	w := word
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	for _, suffix := range []string{"ing", "ed"} {
		if rest, ok := strings.CutSuffix(w, suffix); ok && len(rest) >= 3 {
			w = rest
			break
		}
	}
	if rest, ok := strings.CutSuffix(w, "e"); ok && len(rest) >= 3 {
		w = rest
	}
	return w
}
