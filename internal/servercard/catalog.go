package servercard

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpv/mcpv/internal/safetext"
)

// DefaultMaxEntries bounds the entries of one catalog that are read; the
// rest are left out, and said to be.
const DefaultMaxEntries = 1000

// Catalog is a catalog, read: the entries that name server cards.
type Catalog struct {
	SpecVersion string
	Entries     []Entry
	// Others counts the entries of other types (agent cards...), which
	// are not MCP's; LeftOut those past the bound.
	Others, LeftOut int
}

// Entry is one entry of a catalog that names a server card: by URL, or
// inline (Data).
type Entry struct {
	Identifier string          `json:"identifier"`
	URL        string          `json:"url,omitempty"`
	Data       json.RawMessage `json:"data,omitempty"`
}

// ParseCatalog reads a catalog. base is the URL it was read from, against
// which a relative entry URL is resolved.
func ParseCatalog(raw json.RawMessage, base *url.URL, maxEntries int) (Catalog, []Problem) {
	maxEntries = cmp.Or(max(maxEntries, 0), DefaultMaxEntries)
	var c Catalog
	var doc struct {
		SpecVersion json.RawMessage   `json:"specVersion"`
		Entries     []json.RawMessage `json:"entries"`
	}
	if json.Unmarshal(raw, &doc) != nil || doc.Entries == nil && !strings.Contains(string(raw), `"entries"`) {
		return c, []Problem{problem(Error, "", "the catalog is not a JSON object with an entries array")}
	}
	var ps []Problem
	if json.Unmarshal(doc.SpecVersion, &c.SpecVersion) != nil {
		ps = append(ps, problem(Error, "specVersion", "specVersion is missing or not a string"))
	}
	seen := map[string]bool{}
	for i, er := range doc.Entries {
		field := fmt.Sprintf("entries[%d]", i)
		var e struct {
			Identifier *string         `json:"identifier"`
			Type       *string         `json:"type"`
			MediaType  *string         `json:"mediaType"`
			URL        *string         `json:"url"`
			Data       json.RawMessage `json:"data"`
		}
		if json.Unmarshal(er, &e) != nil {
			ps = append(ps, problem(Error, field, "%s is not an object", field))
			continue
		}
		typ := cmp.Or(e.Type, e.MediaType) // mediaType: the drafts' name for it
		if typ == nil || *typ != CardType {
			c.Others++
			continue
		}
		if len(c.Entries) >= maxEntries {
			c.LeftOut++
			continue
		}
		if e.Identifier == nil || *e.Identifier == "" || !safetext.Safe(*e.Identifier) {
			ps = append(ps, problem(Error, field+".identifier", "%s has no identifier, or one with control characters", field))
			continue
		}
		out := Entry{Identifier: *e.Identifier}
		switch {
		case e.URL != nil && e.Data != nil:
			ps = append(ps, problem(Error, field, "%s (%s) has both url and data; exactly one is used", field, out.Identifier))
			continue
		case e.URL != nil:
			u, err := url.Parse(*e.URL)
			if err != nil || !safetext.Safe(*e.URL) {
				ps = append(ps, problem(Error, field+".url", "%s (%s): url %q is not a URL", field, out.Identifier, *e.URL))
				continue
			}
			if base != nil {
				u = base.ResolveReference(u)
			}
			out.URL = u.String()
		case e.Data != nil:
			out.Data = e.Data
		default:
			ps = append(ps, problem(Error, field, "%s (%s) has neither url nor data", field, out.Identifier))
			continue
		}
		if seen[out.Identifier] {
			ps = append(ps, problem(Error, field+".identifier", "%s: the identifier %q is listed twice", field, out.Identifier))
			continue
		}
		seen[out.Identifier] = true
		c.Entries = append(c.Entries, out)
	}
	if c.LeftOut > 0 {
		ps = append(ps, problem(Warning, "entries", "the catalog lists %d server cards; the first %d are read, %d left out", len(c.Entries)+c.LeftOut, len(c.Entries), c.LeftOut))
	}
	return c, ps
}

// Kind says what a document is: "catalog" (it has entries), "card" (it has
// a name and version, or the card schema), or "".
func Kind(raw json.RawMessage) string {
	var probe struct {
		Entries json.RawMessage `json:"entries"`
		Schema  json.RawMessage `json:"$schema"`
		Name    json.RawMessage `json:"name"`
		Remotes json.RawMessage `json:"remotes"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return ""
	}
	switch {
	case probe.Entries != nil:
		return "catalog"
	case probe.Schema != nil || probe.Name != nil || probe.Remotes != nil:
		return "card"
	}
	return ""
}
