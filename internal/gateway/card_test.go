package gateway

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/servercard"
)

// A gateway's endpoint publishes the gateway's card (what it calls itself
// in initialize), at once, before any server has started, and nothing of
// its servers: neither their names nor what they say of themselves, which
// are for the tokens that see them. A server reached alone at
// /mcp/NAME publishes no card; --no-card withdraws the gateway's.
func TestGatewayServerCard(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t, testMember{name: "alpha", settings: twoTools(t, "alpha")}, testMember{name: "beta", settings: twoTools(t, "beta")})
	clients, err := serve.NewClients(map[string]*serve.View{"ci-token": {Name: "ci", Servers: []string{"alpha"}}})
	if err != nil {
		t.Fatal(err)
	}
	gh, base := gatewayHTTP(t, g, clients)
	resp, body := servetest.Do(t, "GET", base+"/server-card", nil, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != servercard.CardType {
		t.Fatalf("card: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	c, ps := servercard.ParseCard(json.RawMessage(body))
	if servercard.Invalid(ps) {
		t.Errorf("the card is invalid: %+v\n%s", ps, body)
	}
	if !strings.Contains(c.Name, "mcpv-gateway") || len(c.Remotes) != 1 || c.Remotes[0].URL != base {
		t.Errorf("card %s", body)
	}
	if strings.Contains(body, "alpha") || strings.Contains(body, "beta") {
		t.Errorf("the gateway's card names a server: %s", body)
	}
	for _, m := range g.Members {
		if st, _ := m.life.status(); st != lifeIdle {
			t.Errorf("%s was started for the card: %v", m.Name, st)
		}
	}
	for _, path := range servercard.WellKnown {
		resp, body := servetest.Do(t, "GET", strings.TrimSuffix(base, "/mcp")+path, nil, "")
		cat, ps := servercard.ParseCatalog(json.RawMessage(body), nil, 0)
		if resp.StatusCode != 200 || servercard.Invalid(ps) || len(cat.Entries) != 1 || cat.Entries[0].URL != base+"/server-card" {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	for _, token := range []string{"", "ci-token"} {
		hdr := map[string]string{}
		if token != "" {
			hdr["Authorization"] = "Bearer " + token
		}
		if resp, body := servetest.Do(t, "GET", base+"/alpha/server-card", hdr, ""); resp.StatusCode != http.StatusNotFound {
			t.Errorf("a server's own card (token %q): %d %s", token, resp.StatusCode, body)
		}
	}
	gh.Endpoint.NoCard = true
	if resp, _ := servetest.Do(t, "GET", base+"/server-card", nil, ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("--no-card: %d", resp.StatusCode)
	}
}
