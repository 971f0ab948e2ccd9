package servercard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func card(name, extra string) string {
	return `{"$schema":"` + SchemaURL + `","name":"` + name + `","version":"1.0.0","description":"A server."` + extra + `}`
}

func fields(ps []Problem, level Level) []string {
	var out []string
	for _, p := range ps {
		if p.Level == level {
			out = append(out, p.Field)
		}
	}
	return out
}

func TestParseCard(t *testing.T) {
	tests := []struct {
		name   string
		card   string
		errors []string
	}{
		{"minimal", card("example-org/minimal", ""), nil},
		{"with remotes", card("com.example/weather", `,"title":"Weather","websiteUrl":"https://example.com","remotes":[{"type":"streamable-http","url":"https://{tenant}.example.com/mcp","supportedProtocolVersions":["2025-11-25"]}],"_meta":{"x":1}`), nil},
		{"no slash", card("no-slash", ""), []string{"name"}},
		{"two slashes", card("a/b/c", ""), []string{"name"}},
		{"dated schema", strings.Replace(card("a.b/c", ""), "/v1/", "/2025-11-25/", 1), []string{"$schema"}},
		{"no schema", `{"name":"a.b/c","version":"1","description":"d"}`, []string{"$schema"}},
		{"no name", `{"$schema":"` + SchemaURL + `","version":"1","description":"d"}`, []string{"name"}},
		{"a range", strings.Replace(card("a.b/c", ""), `"1.0.0"`, `"^1.2.3"`, 1), []string{"version"}},
		{"a long description", strings.Replace(card("a.b/c", ""), "A server.", strings.Repeat("x", 101), 1), []string{"description"}},
		{"a bad remote", card("a.b/c", `,"remotes":[{"type":"websocket","url":"ftp://x"}]`), []string{"remotes[0].type", "remotes[0].url"}},
		{"an escape in a title", card("a.b/c", `,"title":"\u001b[31mred"`), []string{"title"}},
		{"an invisible character", card("a.b/c", `,"title":"We\u200bather"`), []string{"name"}},
		{"a repository without source", card("a.b/c", `,"repository":{"url":"https://github.com/a/b"}`), []string{"repository.source"}},
		{"an icon of javascript", card("a.b/c", `,"icons":[{"src":"javascript:alert(1)"}]`), []string{"icons[0].src"}},
		{"not an object", `[1]`, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := ParseCard(json.RawMessage(tt.card))
			if d := cmp.Diff(tt.errors, fields(ps, Error)); d != "" {
				t.Errorf("errors (-want +got):\n%s\n%+v", d, ps)
			}
		})
	}
	c, _ := ParseCard(json.RawMessage(card("com.example/weather", `,"remotes":[{"type":"streamable-http","url":"https://{tenant}.example.com/mcp"},{"type":"sse","url":"https://example.com/sse"}]`)))
	if r, err := c.Endpoint(); err != nil || r.URL != "https://example.com/sse" {
		t.Errorf("endpoint: %v %v", r, err)
	}
}

func TestParseCatalog(t *testing.T) {
	base, _ := url.Parse("https://example.com/.well-known/ai-catalog.json")
	raw := `{"specVersion":"1.0","entries":[
		{"identifier":"urn:air:example.com:mcp:a","type":"application/mcp-server-card+json","url":"/a/server-card"},
		{"identifier":"urn:air:example.com:mcp:b","type":"application/mcp-server-card+json","data":{"name":"x"}},
		{"identifier":"urn:air:example.com:agent","type":"application/a2a-agent-card+json","url":"/agent"},
		{"identifier":"urn:air:example.com:mcp:c","type":"application/mcp-server-card+json","url":"/c","data":{}},
		{"identifier":"urn:air:example.com:mcp:d","type":"application/mcp-server-card+json"},
		{"identifier":"urn:air:example.com:mcp:a","mediaType":"application/mcp-server-card+json","url":"https://other.example/a"},
		{"identifier":"urn:air:example.com:mcp:e","type":"application/mcp-server-card+json","url":"https://example.com/e"}]}`
	c, ps := ParseCatalog(json.RawMessage(raw), base, 3)
	if len(c.Entries) != 3 || c.Entries[0].URL != "https://example.com/a/server-card" || string(c.Entries[1].Data) != `{"name":"x"}` || c.Others != 1 {
		t.Errorf("catalog %+v", c)
	}
	if got := fields(ps, Error); len(got) != 3 {
		t.Errorf("errors %+v", ps)
	}
	c, ps = ParseCatalog(json.RawMessage(raw), base, 2)
	if c.LeftOut != 4 || len(fields(ps, Warning)) != 1 { // past the bound, entries are not read, bad or good
		t.Errorf("bounded: %+v %+v", c, ps)
	}
	if _, ps := ParseCatalog(json.RawMessage(`{"servers":[]}`), base, 0); !Invalid(ps) {
		t.Errorf("no entries: %+v", ps)
	}
}

// site is a test's web of cards: a TLS server on 127.0.0.2 reached as
// example.com, which the test counts as a public address, and what it
// serves by path.
type site struct {
	srv   *httptest.Server
	host  string // example.com:PORT
	pages map[string]func(w http.ResponseWriter, r *http.Request)
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{pages: map[string]func(http.ResponseWriter, *http.Request){}}
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skip("no 127.0.0.2 to listen on:", err)
	}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := s.pages[r.URL.Path]; h != nil {
			h(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	s.srv.Listener = l
	s.srv.StartTLS()
	t.Cleanup(s.srv.Close)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	s.host = "example.com:" + port
	return s
}

func (s *site) json(path, body string) {
	s.pages[path] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}
}

// fetcher is a Fetcher for a discovery of start, trusting the site's
// certificate, resolving example.com (and the names given) to the site,
// and counting 127.0.0.2 as a public address.
func (s *site) fetcher(t *testing.T, start string, names ...string) *Fetcher {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(s.srv.Certificate())
	u, _ := url.Parse(start)
	public := net.ParseIP("127.0.0.2")
	return New(u, Options{
		TLS:        &tls.Config{RootCAs: pool, ServerName: "example.com"},
		IsInternal: func(ip net.IP) bool { return !ip.Equal(public) && InternalIP(ip) },
		Lookup: func(_ context.Context, host string) ([]net.IPAddr, error) {
			if host == "example.com" || contains(names, host) {
				return []net.IPAddr{{IP: public}}, nil
			}
			if host == "private.example" {
				return []net.IPAddr{{IP: net.ParseIP("127.0.0.1")}}, nil
			}
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		},
	})
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func TestDiscoverCatalog(t *testing.T) {
	s := newSite(t)
	s.json("/.well-known/ai-catalog.json", `{"specVersion":"1.0","entries":[
		{"identifier":"urn:air:example.com:mcp:weather","type":"application/mcp-server-card+json","url":"/weather/server-card"},
		{"identifier":"urn:air:example.com:mcp:inline","type":"application/mcp-server-card+json","data":`+card("com.example/inline", "")+`},
		{"identifier":"urn:air:example.com:mcp:fake","type":"application/mcp-server-card+json","url":"/fake/server-card"},
		{"identifier":"urn:air:example.com:mcp:gone","type":"application/mcp-server-card+json","url":"/gone/server-card"}]}`)
	s.json("/weather/server-card", card("com.example/weather", ""))
	s.json("/fake/server-card", card("com.examp1e/weather", ""))
	f := s.fetcher(t, "https://"+s.host)
	found, err := f.Discover(t.Context(), s.host)
	if err != nil {
		t.Fatal(err)
	}
	if found.Catalog != "https://"+s.host+"/.well-known/ai-catalog.json" || len(found.Servers) != 4 {
		t.Fatalf("found %+v", found)
	}
	valid := map[string]bool{}
	for _, srv := range found.Servers {
		valid[srv.Identifier] = srv.Valid
	}
	if !valid["urn:air:example.com:mcp:weather"] || !valid["urn:air:example.com:mcp:inline"] || valid["urn:air:example.com:mcp:fake"] || valid["urn:air:example.com:mcp:gone"] {
		t.Errorf("valid: %v", valid)
	}
	if p := found.Servers[2].Problems; len(p) == 0 || !strings.Contains(p[0].Message, `"com.examp1e/weather" looks like "com.example/weather"`) {
		t.Errorf("a look-alike: %+v", p)
	}
	if s, err := found.Choose("weather"); err == nil {
		t.Errorf("two cards are called weather: %v", s.Identifier)
	}
	if s, err := found.Choose("com.example/inline"); err != nil || s.Identifier != "urn:air:example.com:mcp:inline" {
		t.Errorf("choose: %v %v", s, err)
	}
}

// The earlier drafts' catalog, where the AI Catalog is not; an endpoint's
// card beside it; a URL that is a card.
func TestDiscoverFallbacks(t *testing.T) {
	s := newSite(t)
	s.json("/.well-known/mcp/catalog.json", `{"specVersion":"draft","entries":[{"identifier":"urn:air:example.com:w","type":"application/mcp-server-card+json","url":"https://`+s.host+`/mcp/server-card"}]}`)
	s.pages["/mcp"] = func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done() // a stream that never ends
	}
	s.json("/mcp/server-card", card("com.example/w", ""))
	f := s.fetcher(t, "https://"+s.host)
	found, err := f.Discover(t.Context(), "https://"+s.host)
	if err != nil || len(found.Servers) != 1 || !found.Servers[0].Valid || found.SpecVersion != "draft" {
		t.Fatalf("the drafts' catalog: %+v %v", found, err)
	}
	found, err = f.Discover(t.Context(), "https://"+s.host+"/mcp")
	if err != nil || found.Catalog != "" || len(found.Servers) != 1 || found.Servers[0].URL != "https://"+s.host+"/mcp/server-card" {
		t.Fatalf("an endpoint's card: %+v %v", found, err)
	}
	_, err = f.Discover(t.Context(), "https://"+s.host+"/nothing")
	var nf *NotFoundError
	if !errors.As(err, &nf) || len(nf.Tried) != 2 {
		t.Errorf("nothing there: %v", err)
	}
}

// What a hostile catalog or card cannot do: be large, deep, redirect
// without end or to plain http, lead a discovery begun at a public name
// to this machine or a private network (by a name that resolves there, a
// URL, or a redirect), or be fetched over plain http from a public host.
func TestHostileDocuments(t *testing.T) {
	s := newSite(t)
	s.json("/big", `{"entries":[`+strings.Repeat(`{"identifier":"x"},`, 1<<18)+`{}]}`)
	s.json("/deep", strings.Repeat(`{"a":`, 100)+"1"+strings.Repeat("}", 100))
	s.pages["/loop"] = func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) }
	s.pages["/down"] = func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.com/x", http.StatusFound)
	}
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, card("com.local/secret", ""))
	}))
	defer local.Close()
	s.pages["/inside"] = func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, local.URL+"/card", http.StatusFound) }
	// The same over https, which passes the scheme's rule: only the
	// address guard stands between the redirect and this machine, by a
	// name that resolves here and by an address.
	localTLS := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, card("com.local/secret", ""))
	}))
	defer localTLS.Close()
	_, localPort, _ := net.SplitHostPort(localTLS.Listener.Addr().String())
	s.pages["/inside-name"] = func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://private.example:"+localPort+"/card", http.StatusFound)
	}
	s.pages["/inside-ip"] = func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, localTLS.URL+"/card", http.StatusFound)
	}
	s.json("/.well-known/ai-catalog.json", `{"specVersion":"1.0","entries":[
		{"identifier":"a","type":"application/mcp-server-card+json","url":"`+local.URL+`/card"},
		{"identifier":"b","type":"application/mcp-server-card+json","url":"https://private.example:1/card"}]}`)
	f := s.fetcher(t, "https://"+s.host)
	f.MaxCatalog = 1 << 20
	for path, want := range map[string]string{
		"/big":         "larger than 1048576 bytes",
		"/deep":        "nested 100 deep",
		"/loop":        "more than 5 redirects",
		"/down":        "plain http is refused",
		"/inside":      "plain http is refused",
		"/inside-name": "private network",
		"/inside-ip":   "private network",
	} {
		_, _, err := f.Get(t.Context(), "https://"+s.host+path, CardType, f.MaxCatalog)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", path, err, want)
		}
	}
	found, err := f.Discover(t.Context(), s.host)
	if err != nil {
		t.Fatal(err)
	}
	for _, srv := range found.Servers {
		if srv.Valid || len(srv.Problems) == 0 {
			t.Errorf("%s was read: %+v", srv.Identifier, srv)
		}
	}
	if !strings.Contains(found.Servers[0].Problems[0].Message, "private network") ||
		!strings.Contains(found.Servers[1].Problems[0].Message, "private network") {
		t.Errorf("problems: %+v %+v", found.Servers[0].Problems, found.Servers[1].Problems)
	}
	if _, err := Start("http://example.com"); err == nil {
		t.Errorf("plain http to a public host")
	}
	if _, err := Start("https://user:pass@example.com"); err == nil {
		t.Errorf("a URL with credentials")
	}
	// What the guard kept from the redirects is there to be had by a
	// discovery that began on this machine, with the same trust.
	if b, _, err := s.fetcher(t, localTLS.URL).Get(t.Context(), "https://private.example:"+localPort+"/card", CardType, f.MaxCard); err != nil ||
		!strings.Contains(string(b), "com.local/secret") {
		t.Errorf("https on loopback, begun there: %v", err)
	}
	// A discovery begun on loopback may stay there.
	lf := New(mustURL(local.URL), Options{})
	if b, _, err := lf.Get(t.Context(), local.URL+"/card", CardType, lf.MaxCard); err != nil || !strings.Contains(string(b), "com.local/secret") {
		t.Errorf("loopback: %v", err)
	}
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func TestVerify(t *testing.T) {
	c, _ := ParseCard(json.RawMessage(card("com.example/weather", `,"title":"Weather","remotes":[{"type":"streamable-http","url":"https://example.com/mcp/","supportedProtocolVersions":["2025-11-25","2026-07-28"]}],"capabilities":{"tools":{},"prompts":{}},"tools":[{"name":"forecast"}]`)))
	live := Live{Endpoint: "https://EXAMPLE.com:443/mcp", Transport: "streamable-http", ServerInfo: json.RawMessage(`{"name":"weather","version":"1.0.0","title":"Weather"}`),
		Version: "2026-07-28", Supported: []string{"2026-07-28", "2025-11-25"}, Capabilities: map[string]json.RawMessage{"tools": []byte(`{}`), "prompts": []byte(`{}`)}, Tools: []string{"forecast"}}
	if d := Verify(c, live); len(d) != 0 {
		t.Errorf("an agreeing card: %+v", d)
	}
	live.ServerInfo = json.RawMessage(`{"name":"weather-pro","version":"2.0.0","title":"Weather"}`)
	live.Transport = "sse"
	live.Supported = []string{"2026-07-28"}
	live.Capabilities = map[string]json.RawMessage{"tools": []byte(`{}`), "logging": []byte(`{}`)}
	live.Tools = []string{"forecast", "delete_all"}
	var got []string
	for _, d := range Verify(c, live) {
		got = append(got, d.Field)
	}
	want := []string{"name", "version", "remotes.type", "capabilities.prompts", "capabilities.logging", "tools"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("disagreements (-want +got):\n%s", d)
	}
	live.Transport, live.Endpoint = "streamable-http", "https://example.com/other"
	if d := Verify(c, live); len(d) == 0 || d[2].Field != "remotes" {
		t.Errorf("another endpoint: %+v", d)
	}
}

// The card serve publishes is valid, named as a card must be, and holds
// nothing but what the server says of itself and where serve is reached.
func TestBuildCard(t *testing.T) {
	for _, name := range []string{"demo", "com.example/weather", "my server ☃", "", strings.Repeat("x", 300)} {
		raw := BuildCard(Identity{Name: name, Version: "1.2.3", Description: strings.Repeat("d", 300)}, "http://127.0.0.1:8808/mcp", "http://127.0.0.1:8808/sse", []string{"2026-07-28", "2025-11-25"})
		c, ps := ParseCard(raw)
		if Invalid(ps) {
			t.Errorf("%q: %+v\n%s", name, ps, raw)
		}
		if d := Verify(c, Live{Endpoint: "http://127.0.0.1:8808/mcp", Transport: "streamable-http", ServerInfo: mustJSON(map[string]string{"name": name, "version": "1.2.3"}), Version: "2025-11-25"}); name != "" && len(d) != 0 {
			t.Errorf("%q: the card disagrees with the server it is of: %+v", name, d)
		}
	}
	// What the server says of itself the card says too: its website and
	// its icons (those a card may hold), its title for the description it
	// does not give, a long one cut at a word; nothing invented.
	id := Identity{Name: "weather", Version: "2", Title: "Weather", WebsiteURL: "https://weather.example.com/docs",
		Icons: []Icon{{Src: "https://weather.example.com/icon.png", MimeType: "image/png", Sizes: []string{"48x48"}}, {Src: "javascript:alert(1)"}}}
	raw := BuildCard(id, "http://127.0.0.1:8808/mcp", "", []string{"2026-07-28"})
	var got struct {
		Description, WebsiteURL string
		Icons                   []Icon
	}
	json.Unmarshal(raw, &got)
	if c, ps := ParseCard(raw); Invalid(ps) || got.Description != "Weather" || got.WebsiteURL != id.WebsiteURL || len(got.Icons) != 1 || got.Icons[0].Src != id.Icons[0].Src || got.Icons[0].Sizes[0] != "48x48" || c.Title != "Weather" {
		t.Errorf("the card of %+v: %s %+v", id, raw, ps)
	}
	id = Identity{Name: "weather", Description: strings.Repeat("word ", 30)}
	json.Unmarshal(BuildCard(id, "http://127.0.0.1:8808/mcp", "", nil), &got)
	if want := strings.Repeat("word ", 19) + "word…"; got.Description != want {
		t.Errorf("a long description: %q, want %q", got.Description, want)
	}
	if strings.Contains(string(BuildCard(Identity{Name: "weather"}, "http://127.0.0.1:8808/mcp", "", nil)), "served by") {
		t.Error("a description the server did not give")
	}

	cat := BuildCatalog("127.0.0.1:8808", map[string]string{"local.mcpv/demo": "http://127.0.0.1:8808/mcp/server-card"})
	parsed, ps := ParseCatalog(cat, nil, 0)
	if Invalid(ps) || len(parsed.Entries) != 1 || parsed.Entries[0].Identifier != "urn:air:127.0.0.1:8808:mcp:demo" {
		t.Errorf("catalog %s: %+v", cat, ps)
	}
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// BenchmarkDiscover100 is one discovery of a catalog of 100 cards on
// loopback: the catalog, then each card (8 at once), each checked, and
// the catalog's names against one another.
func BenchmarkDiscover100(b *testing.B) {
	pages := map[string]string{}
	var entries []string
	for i := range 100 {
		entries = append(entries, fmt.Sprintf(`{"identifier":"urn:air:127.0.0.1:mcp:s%d","type":"application/mcp-server-card+json","url":"/cards/%d"}`, i, i))
		pages[fmt.Sprintf("/cards/%d", i)] = card(fmt.Sprintf("local.bench/server-%d", i), `,"remotes":[{"type":"streamable-http","url":"https://example.com/mcp"}]`)
	}
	pages["/.well-known/ai-catalog.json"] = `{"specVersion":"1.0","entries":[` + strings.Join(entries, ",") + `]}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	f := New(mustURL(srv.URL), Options{})
	for b.Loop() {
		found, err := f.Discover(context.Background(), host)
		if err != nil || len(found.Servers) != 100 || !found.Servers[99].Valid {
			b.Fatalf("%v %+v", err, found)
		}
	}
}
