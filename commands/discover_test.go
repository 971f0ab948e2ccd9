package commands

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/servercard"
)

// cardSite serves a catalog and its cards on loopback (plain http is
// allowed there), by path.
func cardSite(t *testing.T, pages map[string]string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, strings.ReplaceAll(body, "SITE", "http://"+r.Host))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func testCard(name, version, remote string) string {
	card := `{"$schema":"` + servercard.SchemaURL + `","name":"` + name + `","version":"` + version + `","description":"A server."`
	if remote != "" {
		card += `,"remotes":[{"type":"streamable-http","url":"` + remote + `"}]`
	}
	return card + `}`
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	demo := demoHTTP(t, nil)
	catalog := `{"specVersion":"1.0","entries":[
		{"identifier":"urn:air:local:mcp:demo","type":"application/mcp-server-card+json","url":"SITE/demo/server-card"},
		{"identifier":"urn:air:local:mcp:liar","type":"application/mcp-server-card+json","url":"SITE/liar/server-card"}]}`
	site := cardSite(t, map[string]string{
		"/.well-known/ai-catalog.json":     catalog,
		"/demo/server-card":                testCard("local.mcpv/mcpv-demo", "1.0.0", demo),
		"/liar/server-card":                testCard("com.example/other", "9.9.9", demo),
		"/bad/.well-known/ai-catalog.json": "",
	})
	badSite := cardSite(t, map[string]string{
		"/.well-known/mcp/catalog.json": `{"specVersion":"draft","entries":[{"identifier":"x","type":"application/mcp-server-card+json","url":"SITE/c"}]}`,
		"/c":                            testCard("no-slash", "1", ""),
	})
	host := strings.TrimPrefix(site, "http://")
	tests := []struct {
		name   string
		args   []string
		code   int
		outHas []string
		errHas []string
	}{
		{"a domain's catalog", []string{"discover", host, "-c", "-q", "[.catalog, (.servers[] | .card.name, .valid)]"}, 0,
			[]string{`"` + site + `/.well-known/ai-catalog.json","local.mcpv/mcpv-demo",true,"com.example/other",true`}, nil},
		{"the drafts' catalog, and an invalid card", []string{"discover", badSite, "-c", "-q", ".servers[0].problems[0].field"}, 1,
			[]string{`"name"`}, []string{"1 of 1 server cards are invalid", "discover: x: name"}},
		{"nothing there", []string{"discover", site + "/nothing"}, 3, nil, []string{"no catalog or server card found for " + site + "/nothing"}},
		{"a card that agrees", []string{"discover", host, "--connect", "mcpv-demo", "-c", "-q", "[.agrees, .server.serverInfo.name]"}, 0,
			[]string{`[true,"mcpv-demo"]`}, nil},
		{"a card that does not", []string{"discover", host, "--connect", "other", "-c", "-q", "[.agrees, (.disagreements[] | .field)]"}, 0,
			[]string{`[false,"name","version"]`}, []string{`the card disagrees with the server: name: the card says "com.example/other", the server "mcpv-demo"`}},
		{"no such card", []string{"discover", host, "--connect", "nope"}, 3, nil, []string{`no server card found is "nope"`}},
		{"plain http to a public host", []string{"discover", "http://example.com"}, 2, nil, []string{"plain http is refused"}},
		{"not a target", []string{"discover", "a b"}, 2, nil, []string{"neither a URL nor a domain"}},
		{"a server beside it", []string{"discover", host, "-u", demo}, 2, nil, []string{"give it a URL or a domain, not a server"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, "", tt.args...)
			r.expectHas(t, tt.code, tt.outHas, tt.errHas)
		})
	}
}
