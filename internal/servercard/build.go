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
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// Identity is what a served server says of itself.
type Identity struct {
	Name, Version, Title, Description string
}

// IdentityOf reads a server's identity from its initialize result (or the
// modern era's discovery shaped as one).
func IdentityOf(initResult json.RawMessage) Identity {
	var r struct {
		ServerInfo Identity `json:"serverInfo"`
	}
	rawjson.DecodeLoose(initResult, &r)
	return r.ServerInfo
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
func BuildCard(id Identity, endpoint, sse string, versions []string) json.RawMessage {
	description := cmp.Or(id.Description, "The MCP server "+id.Name+", served by mcpv")
	if id.Name == "" {
		description = "An MCP server served by mcpv"
	}
	card := map[string]any{
		"$schema":     SchemaURL,
		"name":        CardName(id.Name),
		"version":     cmp.Or(id.Version, "0"),
		"description": clipRunes(description, 100),
	}
	if id.Title != "" {
		card["title"] = clipRunes(id.Title, 100)
	}
	remotes := []map[string]any{{"type": "streamable-http", "url": endpoint, "supportedProtocolVersions": versions}}
	if sse != "" {
		remotes = append(remotes, map[string]any{"type": "sse", "url": sse})
	}
	card["remotes"] = remotes
	b, _ := json.Marshal(card)
	return b
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
	b, _ := json.Marshal(map[string]any{"specVersion": "1.0", "entries": entries})
	return b
}

func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
