package servercard

// The card and catalog mcpv serve publishes for the server it serves:
// built from what the server says of itself (its initialize result, or
// server/discover's) and where serve is reached, and nothing else, so that
// no secret of the upstream session (its URL, headers, environment) is in
// them; each is checked against the card's schema before it is served.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
)

// Identity is what a served server says of itself.
type Identity struct {
	Name, Version, Title, Description string
	WebsiteURL                        string `json:"websiteUrl"`
	Icons                             []Icon `json:"icons"`
}

// Icon is one of a server's icons, as its serverInfo and a card give it.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Strings are the identity's texts, for a caller that masks them before a
// card is made of them.
func (id *Identity) Strings() []*string {
	out := []*string{&id.Name, &id.Version, &id.Title, &id.Description, &id.WebsiteURL}
	for i := range id.Icons {
		out = append(out, &id.Icons[i].Src)
	}
	return out
}

// IdentityOf reads a server's identity from its initialize result (or the
// modern era's discovery shaped as one); an error when its serverInfo
// does not decode, which is no identity to publish.
func IdentityOf(initResult json.RawMessage) (Identity, error) {
	var r struct {
		ServerInfo Identity `json:"serverInfo"`
	}
	err := json.Unmarshal(initResult, &r)
	return r.ServerInfo, err
}

var unsafeName = &lazy.Regexp{Pattern: `[^a-zA-Z0-9._-]+`}

// CardName is the card name a served server is published under: its own
// name when it is already one (com.example/weather), else its name under
// the namespace local.mcpv (mcpv serve publishes for this machine's
// clients and those the user lets in, not the world).
func CardName(serverName string) string {
	if namePattern.Get().MatchString(serverName) && len(serverName) <= 200 {
		return serverName
	}
	n := cmp.Or(strings.Trim(unsafeName.Get().ReplaceAllString(serverName, "-"), "-."), "server")
	if len(n) > 180 {
		n = n[:180]
	}
	return "local.mcpv/" + n
}

// BuildCard is the card of a served server, reached at endpoint over
// Streamable HTTP (and, with sse, at the legacy transport's stream URL),
// speaking versions.
//
// What the server says of itself is what the card says: a card must not
// contradict the server's serverInfo (websiteUrl and icons included).
// The schema asks a description of at most 100 characters: a longer one
// is cut at a word, and a server that gives none is described by its
// title or name, nothing invented.
func BuildCard(id Identity, endpoint, sse string, versions []string) json.RawMessage {
	card := map[string]any{
		"$schema":     SchemaURL,
		"name":        CardName(id.Name),
		"version":     cmp.Or(id.Version, "0"),
		"description": clipWords(cmp.Or(id.Description, id.Title, id.Name, "An MCP server"), 100),
	}
	if id.Title != "" {
		card["title"] = safetext.Runes(id.Title, 99)
	}
	if u, err := url.Parse(id.WebsiteURL); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		card["websiteUrl"] = id.WebsiteURL
	}
	var icons []Icon
	for _, ic := range id.Icons {
		if u, err := url.Parse(ic.Src); err == nil && (u.Scheme == "https" || u.Scheme == "http" || u.Scheme == "data") {
			icons = append(icons, ic)
		}
	}
	if len(icons) > 0 {
		card["icons"] = icons
	}
	remotes := []map[string]any{{"type": "streamable-http", "url": endpoint, "supportedProtocolVersions": versions}}
	if sse != "" {
		remotes = append(remotes, map[string]any{"type": "sse", "url": sse})
	}
	card["remotes"] = remotes
	return rawjson.Marshal(card)
}

// BuildCatalog is the catalog that lists cards at the given URLs, each
// under an identifier made of the catalog's host and the card's name.
func BuildCatalog(host string, cards map[string]string) json.RawMessage {
	type entry struct {
		Identifier string `json:"identifier"`
		Type       string `json:"type"`
		URL        string `json:"url"`
	}
	entries := []entry{}
	for _, name := range slices.Sorted(maps.Keys(cards)) {
		_, short, _ := strings.Cut(name, "/")
		entries = append(entries, entry{Identifier: fmt.Sprintf("urn:air:%s:mcp:%s", host, short), Type: CardType, URL: cards[name]})
	}
	return rawjson.Marshal(map[string]any{"specVersion": "1.0", "entries": entries})
}

// clipWords is s in at most n runes, cut after its last whole word that
// leaves room for "…" (at n-1 runes when no word ends in the second half).
func clipWords(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r, cut := []rune(s), n-1
	if !unicode.IsSpace(r[cut]) { // a word goes on past the cut: it goes
		for i := cut - 1; i > cut/2; i-- {
			if unicode.IsSpace(r[i]) {
				cut = i
				break
			}
		}
	}
	return strings.TrimRightFunc(string(r[:cut]), unicode.IsSpace) + "…"
}
