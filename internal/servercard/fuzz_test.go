package servercard

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/testkit"
)

// The fuzz targets read cards and catalogs as a server at a discovered
// address writes them: any bytes are read without a panic, within memory
// in proportion to their size, every problem a safe line, and a card
// found valid holds what its schema says.
//
//	go test ./internal/servercard -run '^$' -fuzz '^FuzzParseCard$' -fuzztime 1m
//	go test ./internal/servercard -run '^$' -fuzz '^FuzzParseCatalog$' -fuzztime 1m

const (
	allocBase    = 1 << 20
	allocPerByte = 48
)

func FuzzParseCard(f *testing.F) {
	testkit.SeedFuzz(f, []string{
		card("example-org/minimal", ""),
		card("com.example/weather", `,"title":"Weather","websiteUrl":"https://example.com","repository":{"url":"https://github.com/a/b","source":"github"},"icons":[{"src":"https://example.com/i.png"}],"remotes":[{"type":"streamable-http","url":"https://{tenant}.example.com/mcp","supportedProtocolVersions":["2025-11-25"]},{"type":"sse","url":"https://example.com/sse"}],"_meta":{"x":1}}`),
		card("a.b/c", `,"capabilities":{"tools":{}},"tools":[{"name":"x"},{"name":1}]`),
		card("a.b/c", `,"remotes":[`+strings.Repeat(`{"type":"sse","url":"https://e/{a}{b}"},`, 70)+`{}]`),
		card("a.b/c", `,"title":"We\u200bather\u001b[2J","icons":[{"src":"javascript:alert(1)"}],"_meta":[]`),
		card("com.exаmple/weather", `,"version":"^1.0 || 2.x"`),
		`{"name":null,"version":1,"description":"","remotes":"x","repository":[],"icons":{}}`,
		`null`,
		`[1]`,
	}, testkit.HostileJSON())
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Card
		var ps []Problem
		testkit.AllocBounded(t, len(data), allocBase, allocPerByte, func() { c, ps = ParseCard(data) })
		checkProblems(t, ps)
		if len(c.Remotes) > maxRemotes {
			t.Errorf("%d remotes read, past %d", len(c.Remotes), maxRemotes)
		}
		c.Endpoint() // any remote, or an error: never a panic
		if Invalid(ps) {
			return
		}
		// A card with no error is what its schema says.
		if !namePattern.Get().MatchString(c.Name) || utf8.RuneCountInString(c.Name) > 200 || hasInvisible(c.Name) {
			t.Errorf("a valid card named %q", c.Name)
		}
		if versionRange.Get().MatchString(c.Version) || utf8.RuneCountInString(c.Version) > 255 {
			t.Errorf("a valid card of version %q", c.Version)
		}
		var schema string
		if json.Unmarshal(c.Raw, &struct {
			Schema *string `json:"$schema"`
		}{&schema}) != nil || schema != SchemaURL {
			t.Errorf("a valid card of schema %q", schema)
		}
		if n := utf8.RuneCountInString(c.Description); n < 1 || n > 100 {
			t.Errorf("a valid card's description of %d characters", n)
		}
		for _, s := range []string{c.Name, c.Version, c.Title, c.Description} {
			if !safetext.Safe(s) {
				t.Errorf("a valid card holds %q", s)
			}
		}
		for _, r := range c.Remotes {
			if (r.Type != "streamable-http" && r.Type != "sse") || !remoteURL.Get().MatchString(r.URL) || !safetext.Safe(r.URL) {
				t.Errorf("a valid card's remote %+v", r)
			}
			for _, v := range r.Variables {
				if !strings.Contains(r.URL, "{"+v+"}") {
					t.Errorf("variable %q is not in %q", v, r.URL)
				}
			}
		}
	})
}

func FuzzParseCatalog(f *testing.F) {
	entry := func(id, rest string) string {
		return `{"identifier":"` + id + `","type":"` + CardType + `"` + rest + `}`
	}
	for _, s := range []string{
		`{"specVersion":"1.0","entries":[` + entry("a", `,"url":"/cards/a.json"`) + `,` + entry("b", `,"data":`+card("com.example/b", "")) + `,{"identifier":"agent","type":"application/a2a-agent-card+json","url":"https://e/a"}]}`,
		`{"specVersion":"1.0","entries":[` + entry("a", `,"url":"https://e/a","data":{}`) + `,` + entry("", `,"url":"x"`) + `,` + entry("c", "") + `,` + entry("d", `,"url":"http://[::1"`) + `]}`,
		`{"entries":[` + entry("a", `,"url":"u"`) + `,` + entry("a", `,"url":"v"`) + `,{"identifier":"m","mediaType":"` + CardType + `","url":"w"},1,null]}`,
		`{"specVersion":1,"entries":[` + strings.Repeat(entry("x", `,"url":"u"`)+",", 20) + `{}]}`,
		`{"specVersion":"1.0","entries":[` + entry("\u001b[31mred", `,"url":"\u0007"`) + `]}`,
		`{"specVersion":"1.0","entries":[` + entry("a", `,"data":`+card("com.exampIe/b", "")) + `,` + entry("b", `,"data":`+card("com.example/b", "")) + `]}`,
		`{"entries":null}`,
		`{"entries":{}}`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	for _, s := range testkit.HostileJSON() {
		f.Add(s, uint8(3))
	}
	base, _ := url.Parse("https://example.com/.well-known/ai-catalog.json")
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		var c Catalog
		var ps []Problem
		testkit.AllocBounded(t, len(data), allocBase, allocPerByte, func() { c, ps = ParseCatalog(data, base, int(max)) })
		checkProblems(t, ps)
		limit := int(max)
		if limit == 0 {
			limit = DefaultMaxEntries
		}
		if len(c.Entries) > limit {
			t.Errorf("%d entries read, past %d", len(c.Entries), limit)
		}
		if c.LeftOut > 0 && len(c.Entries) != limit {
			t.Errorf("%d left out while %d of %d were read", c.LeftOut, len(c.Entries), limit)
		}
		seen := map[string]bool{}
		var names []string
		for _, e := range c.Entries {
			if e.Identifier == "" || !safetext.Safe(e.Identifier) || seen[e.Identifier] {
				t.Errorf("entry identified as %q (seen before: %v)", e.Identifier, seen[e.Identifier])
			}
			seen[e.Identifier] = true
			if (e.URL == "") == (e.Data == nil) {
				t.Errorf("entry %q with url %q and data %q", e.Identifier, e.URL, e.Data)
			}
			if e.URL != "" {
				if u, err := url.Parse(e.URL); err != nil || !u.IsAbs() {
					t.Errorf("entry %q's url %q is not absolute: %v", e.Identifier, e.URL, err)
				}
			}
			if e.Data != nil {
				card, cps := ParseCard(e.Data)
				checkProblems(t, cps)
				names = append(names, card.Name)
			}
		}
		for _, lps := range LookAlikes("example.com", names) {
			checkProblems(t, lps)
		}
		if k := Kind(data); k != "" && k != "catalog" && k != "card" {
			t.Errorf("kind %q", k)
		}
	})
}

// checkProblems checks that each problem is an error or a warning, said
// in one line a terminal shows as it is.
func checkProblems(t *testing.T, ps []Problem) {
	t.Helper()
	for _, p := range ps {
		if (p.Level != Error && p.Level != Warning) || p.Message == "" || !safetext.Safe(p.Message) || strings.Contains(p.Message, "\n") {
			t.Errorf("problem %+v", p)
		}
		if _, err := json.Marshal(p); err != nil {
			t.Errorf("problem %+v: %v", p, err)
		}
	}
}
