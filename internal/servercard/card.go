// Package servercard is MCP Server Cards and the catalogs that list them
// (SEP-2127, the experimental extension
// https://github.com/modelcontextprotocol/experimental-ext-server-card):
// a card describes a remote server before a client connects (its name,
// version, description, the remotes it is reached at and the protocol
// versions each speaks); a catalog (an AI Catalog, at
// /.well-known/ai-catalog.json, or the MCP Catalog of the extension's
// earlier drafts, at /.well-known/mcp/catalog.json) lists cards by URL or
// inline. The package reads both as hostile input (bounded in size, depth
// and count; every string checked for what a terminal would act on; names
// that look like others found), fetches them within bounds (fetch.go),
// compares a card with what the live server says (verify.go), and builds
// the card and catalog mcpv serve publishes (build.go).
package servercard

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/safetext"
)

// The media types and the schema URL of the extension.
const (
	CardType    = "application/mcp-server-card+json"
	CatalogType = "application/ai-catalog+json"
	SchemaURL   = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json"
)

// The well-known catalog locations, the AI Catalog's first (the
// extension's current text), then the MCP Catalog of its earlier drafts.
var WellKnown = []string{"/.well-known/ai-catalog.json", "/.well-known/mcp/catalog.json"}

// CardSuffix is what a Streamable HTTP endpoint's URL is given to reach
// the card its server may host there (the location the extension
// reserves).
const CardSuffix = "/server-card"

// Level is how much a problem weighs: an error breaks the card's schema
// or the extension's MUST; a warning is what a client should be wary of.
type Level string

const (
	Error   Level = "error"
	Warning Level = "warning"
)

// Problem is one thing wrong with a card or a catalog.
type Problem struct {
	Level   Level  `json:"level"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

func problem(level Level, field, format string, args ...any) Problem {
	return Problem{Level: level, Field: field, Message: safetext.Line(fmt.Sprintf(format, args...))}
}

// Invalid reports whether a problem is an error.
func Invalid(ps []Problem) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Level == Error })
}

// Card is a server card, read.
type Card struct {
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description"`
	Remotes     []Remote `json:"remotes,omitempty"`
	// Capabilities and Tools are what cards of the extension's earlier
	// drafts declared; nil when the card has none.
	Capabilities json.RawMessage `json:"-"`
	Tools        []string        `json:"-"`
	Raw          json.RawMessage `json:"-"`
}

// Remote is one endpoint a card names.
type Remote struct {
	Type              string   `json:"type"` // "streamable-http" or "sse"
	URL               string   `json:"url"`
	SupportedVersions []string `json:"supportedProtocolVersions,omitempty"`
	// Variables are the {names} its URL holds, to be given before it is
	// reached.
	Variables []string `json:"-"`
}

var (
	namePattern     = &lazy.Regexp{Pattern: `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`}
	remoteURL       = &lazy.Regexp{Pattern: `^(https?://[^\s]+|\{[a-zA-Z_][a-zA-Z0-9_]*\}[^\s]*)$`}
	variablePattern = &lazy.Regexp{Pattern: `\{([a-zA-Z_][a-zA-Z0-9_]*)\}`}
	versionRange    = &lazy.Regexp{Pattern: `^[\^~<>=]|\.[x*](\.|$)|^[x*]$|\s-\s|\|\|`}
)

// ParseCard reads a card (its JSON text) and checks it against the
// extension's schema.
func ParseCard(raw json.RawMessage) (Card, []Problem) {
	c := Card{Raw: raw}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return c, []Problem{problem(Error, "", "the card is not a JSON object")}
	}
	var ps []Problem
	str := func(field string, required bool, min, max int) string {
		v, ok := m[field]
		if !ok || string(v) == "null" {
			if required {
				ps = append(ps, problem(Error, field, "%s is required", field))
			}
			return ""
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			ps = append(ps, problem(Error, field, "%s is not a string", field))
			return ""
		}
		n := utf8.RuneCountInString(s)
		switch {
		case n < min:
			ps = append(ps, problem(Error, field, "%s is shorter than %d characters", field, min))
		case max > 0 && n > max:
			ps = append(ps, problem(Error, field, "%s is longer than %d characters", field, max))
		}
		if !safetext.Safe(s) {
			ps = append(ps, problem(Error, field, "%s holds control characters: %q", field, s))
		}
		return s
	}
	// An empty string is no more the card schema than another: only a
	// $schema that is missing or no string is said once, by str.
	if s := str("$schema", true, 0, 0); s != SchemaURL && strings.HasPrefix(string(m["$schema"]), `"`) {
		ps = append(ps, problem(Error, "$schema", "$schema is %q, not the card schema %s", s, SchemaURL))
	}
	c.Name = str("name", true, 3, 200)
	if c.Name != "" && !namePattern.Get().MatchString(c.Name) {
		ps = append(ps, problem(Error, "name", "name %q is not a reverse-DNS name with exactly one slash (com.example/weather)", c.Name))
	}
	c.Version = str("version", true, 0, 255)
	if c.Version != "" && versionRange.Get().MatchString(c.Version) {
		ps = append(ps, problem(Error, "version", "version %q is a range, not a version", c.Version))
	}
	c.Description = str("description", true, 1, 100)
	c.Title = str("title", false, 1, 100)
	if site := str("websiteUrl", false, 0, 0); site != "" && !absoluteURL(site) {
		ps = append(ps, problem(Error, "websiteUrl", "websiteUrl %q is not an absolute URL", site))
	}
	ps = append(ps, repositoryProblems(m["repository"])...)
	ps = append(ps, iconProblems(m["icons"])...)
	c.Remotes, ps = remotes(m["remotes"], ps)
	if meta, ok := m["_meta"]; ok && !strings.HasPrefix(strings.TrimSpace(string(meta)), "{") {
		ps = append(ps, problem(Error, "_meta", "_meta is not an object"))
	}
	if caps, ok := m["capabilities"]; ok && strings.HasPrefix(strings.TrimSpace(string(caps)), "{") {
		c.Capabilities = caps
	}
	var tools []struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(m["tools"], &tools) == nil {
		for _, t := range tools {
			c.Tools = append(c.Tools, t.Name)
		}
	}
	if hasInvisible(c.Name) || hasInvisible(c.Title) {
		ps = append(ps, problem(Error, "name", "the card's name or title holds characters that show nothing"))
	}
	return c, ps
}

func hasInvisible(s string) bool { return strings.ContainsFunc(s, canon.Invisible) }

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

func repositoryProblems(raw json.RawMessage) []Problem {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	var r struct {
		URL    *string `json:"url"`
		Source *string `json:"source"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return []Problem{problem(Error, "repository", "repository is not an object")}
	}
	var ps []Problem
	if r.URL == nil || !absoluteURL(*r.URL) {
		ps = append(ps, problem(Error, "repository.url", "repository.url is missing or not an absolute URL"))
	}
	if r.Source == nil {
		ps = append(ps, problem(Error, "repository.source", "repository.source is required"))
	}
	return ps
}

func iconProblems(raw json.RawMessage) []Problem {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	var icons []struct {
		Src *string `json:"src"`
	}
	if json.Unmarshal(raw, &icons) != nil {
		return []Problem{problem(Error, "icons", "icons is not an array of objects")}
	}
	for i, ic := range icons {
		if ic.Src == nil {
			return []Problem{problem(Error, fmt.Sprintf("icons[%d].src", i), "icons[%d] has no src", i)}
		}
		if u, err := url.Parse(*ic.Src); err != nil || (u.Scheme != "https" && u.Scheme != "http" && u.Scheme != "data") {
			return []Problem{problem(Error, fmt.Sprintf("icons[%d].src", i), "icons[%d].src is not an https or data URI", i)}
		}
	}
	return nil
}

// maxRemotes bounds the remotes one card is read for.
const maxRemotes = 64

func remotes(raw json.RawMessage, ps []Problem) ([]Remote, []Problem) {
	if raw == nil || string(raw) == "null" {
		return nil, ps
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil, append(ps, problem(Error, "remotes", "remotes is not an array"))
	}
	if len(list) > maxRemotes {
		ps = append(ps, problem(Warning, "remotes", "%d remotes; the first %d are read", len(list), maxRemotes))
		list = list[:maxRemotes]
	}
	var out []Remote
	for i, rr := range list {
		field := fmt.Sprintf("remotes[%d]", i)
		var r Remote
		if json.Unmarshal(rr, &r) != nil {
			ps = append(ps, problem(Error, field, "%s is not a remote (type, url, supportedProtocolVersions)", field))
			continue
		}
		if r.Type != "streamable-http" && r.Type != "sse" {
			ps = append(ps, problem(Error, field+".type", "%s.type is %q, not streamable-http or sse", field, r.Type))
		}
		if !remoteURL.Get().MatchString(r.URL) || !safetext.Safe(r.URL) {
			ps = append(ps, problem(Error, field+".url", "%s.url %q is not an http(s) URL or a template of one", field, r.URL))
			continue
		}
		for _, m := range variablePattern.Get().FindAllStringSubmatch(r.URL, 16) {
			if !slices.Contains(r.Variables, m[1]) {
				r.Variables = append(r.Variables, m[1])
			}
		}
		if r.Type == "sse" {
			ps = append(ps, problem(Warning, field+".type", "%s is of the deprecated HTTP+SSE transport", field))
		}
		out = append(out, r)
	}
	return out, ps
}

// LookAlikes are the problems of a catalog's cards (by index in names)
// whose names look like another's without being it (a Latin letter written
// in another script, 0 for o, rn for m), and of names that look like the
// catalog's own domain's but are another's: names a reader takes for
// those of a server they trust.
func LookAlikes(domain string, names []string) map[int][]Problem {
	out := map[int][]Problem{}
	bySkeleton := map[string]string{}
	labels := strings.Split(strings.ToLower(strings.TrimSuffix(domain, ".")), ".")
	slices.Reverse(labels)
	own := strings.Join(labels, ".") // the domain reversed: example.com is com.example
	for i, n := range names {
		if n == "" {
			continue
		}
		sk := canon.Skeleton(n)
		if other, ok := bySkeleton[sk]; ok && other != n {
			out[i] = append(out[i], problem(Error, "name", "%q looks like %q, which the catalog lists too", n, other))
		} else if !ok {
			bySkeleton[sk] = n
		}
		if domain == "" {
			continue
		}
		ns, _, _ := strings.Cut(n, "/")
		if canon.LookAlike(ns, own) {
			out[i] = append(out[i], problem(Error, "name", "%q is named like a server of %s (%s/...), but is not", n, domain, own))
		}
	}
	return out
}
