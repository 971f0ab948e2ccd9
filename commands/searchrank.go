package commands

// mcpv search ranks what servers offer against a query: the tools,
// prompts, resources and resource templates of each, over their names,
// titles, descriptions and parameter names. It reads the items as the
// servers listed them and holds no state between runs.

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpv/mcpv/internal/rawjson"
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
	Tokens      int     `json:"tokens,omitempty"` // what it costs a model (tools, prompts, templates)
	// ItemName is the item's own name member (a template's, beside its
	// URI template).
	ItemName string `json:"-"`
}

// Weights of where a query's word is found: a name counts most, then a
// title, a parameter's name and a description. A word that is a whole
// word of the field counts twice what a part of one does.
const (
	inName, inTitle, inParam, inDescription = 6.0, 4.0, 2.0, 1.0
)

// maxField bounds the text of a field that is read, so that a hostile
// server's description of megabytes costs no more than this.
const maxField = 4 << 10

// rankItems is the items of servers that match query, best first: each of
// the query's words must be found in the item (its name, title,
// description or a parameter's name); the score adds where each is.
func rankItems(query string, servers []surface.Server) []rankedHit {
	words := queryWords(query)
	if len(words) == 0 {
		return nil
	}
	var hits []rankedHit
	for _, s := range servers {
		for _, l := range []struct {
			kind string
			raws []json.RawMessage
		}{{kindTool, s.Tools}, {kindPrompt, s.Prompts}, {kindResource, s.Resources}, {kindTemplate, s.ResourceTemplates}} {
			for _, raw := range l.raws {
				if h, ok := scoreItem(words, s.Name, l.kind, raw); ok {
					hits = append(hits, h)
				}
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b rankedHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Server, b.Server), cmp.Compare(a.Name, b.Name))
	})
	return hits
}

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

func scoreItem(words []string, server, kind string, raw json.RawMessage) (rankedHit, bool) {
	var it searchItem
	rawjson.DecodeLoose(raw, &it)
	name := it.Name
	switch kind {
	case kindResource:
		name = cmp.Or(it.URI, it.Name)
	case kindTemplate:
		name = cmp.Or(it.URITemplate, it.Name)
	}
	var params []string
	for p := range it.InputSchema.Properties {
		params = append(params, p)
	}
	for _, a := range it.Arguments {
		params = append(params, a.Name)
	}
	fields := []struct {
		words  []string
		text   string
		weight float64
	}{
		{queryWords(clipField(name + " " + it.Name)), strings.ToLower(clipField(name)), inName},
		{queryWords(clipField(it.Title)), strings.ToLower(clipField(it.Title)), inTitle},
		{queryWords(clipField(strings.Join(params, " "))), strings.ToLower(clipField(strings.Join(params, " "))), inParam},
		{queryWords(clipField(it.Description)), strings.ToLower(clipField(it.Description)), inDescription},
	}
	total := 0.0
	for _, w := range words {
		best := 0.0
		for _, f := range fields {
			switch {
			case slices.Contains(f.words, w):
				best = max(best, 2*f.weight)
			case strings.Contains(f.text, w):
				best = max(best, f.weight)
			}
		}
		if best == 0 {
			return rankedHit{}, false // every word of the query is found, or the searchItem is none
		}
		total += best
	}
	first, _, _ := strings.Cut(strings.TrimSpace(clipField(it.Description)), "\n")
	return rankedHit{Server: server, Kind: kind, Name: name, Title: it.Title, Description: first, Score: total, ItemName: it.Name}, true
}

func clipField(s string) string {
	if len(s) > maxField {
		return s[:maxField]
	}
	return s
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
