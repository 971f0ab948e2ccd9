package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/servercard"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// serve --http publishes the served server's card at /mcp/server-card and
// a catalog at the well-known locations: valid, of what the server says of
// itself and where serve is reached, with no token needed and none of the
// upstream's secrets; answered with an ETag that revalidates, to the pages
// serve admits and for this machine's host names alone.
func TestServerCard(t *testing.T) {
	t.Parallel()
	const secret = "Zq8wRk2vLp0sTn4x"
	spec := &mcptest.Spec{ServerInfo: json.RawMessage(`{"name":"weather-` + secret + `","version":"2.1.0","title":"Weather"}`)}
	up := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Spec: spec})
	srv := startServer(t, servetest.Settings(up.URL, "legacy", http.Header{"X-Api-Key": {secret}}), nil, false)
	h := srv.HTTPHandler("let-me-in", false)
	h.SSE = true
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })

	resp, body := servetest.Do(t, "GET", ts.URL+"/mcp/server-card", nil, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != servercard.CardType {
		t.Fatalf("card: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if strings.Contains(body, secret) {
		t.Errorf("the card holds the upstream's secret: %s", body)
	}
	c, ps := servercard.ParseCard(json.RawMessage(body))
	if servercard.Invalid(ps) {
		t.Errorf("the card is invalid: %+v\n%s", ps, body)
	}
	if c.Version != "2.1.0" || c.Title != "Weather" || len(c.Remotes) != 2 || c.Remotes[0].URL != ts.URL+"/mcp" || c.Remotes[1].URL != ts.URL+"/sse" {
		t.Errorf("card %s", body)
	}
	etag := resp.Header.Get("ETag")
	if resp, _ := servetest.Do(t, "GET", ts.URL+"/mcp/server-card", map[string]string{"If-None-Match": etag}, ""); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", resp.StatusCode)
	}
	for _, path := range servercard.WellKnown {
		resp, body := servetest.Do(t, "GET", ts.URL+path, nil, "")
		cat, ps := servercard.ParseCatalog(json.RawMessage(body), nil, 0)
		if resp.StatusCode != 200 || servercard.Invalid(ps) || len(cat.Entries) != 1 || cat.Entries[0].URL != ts.URL+"/mcp/server-card" {
			t.Errorf("%s: %d %s", path, resp.StatusCode, body)
		}
	}
	for _, tt := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"a foreign page", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"DNS rebinding", map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		{"a loopback page", map[string]string{"Origin": "http://localhost:5173"}, http.StatusOK},
	} {
		if resp, _ := servetest.Do(t, "GET", ts.URL+"/mcp/server-card", tt.header, ""); resp.StatusCode != tt.status {
			t.Errorf("%s: %d, want %d", tt.name, resp.StatusCode, tt.status)
		}
	}
	if resp, _ := servetest.Do(t, "POST", ts.URL+"/mcp/server-card", nil, "{}"); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}

	h.NoCard = true
	if resp, _ := servetest.Do(t, "GET", ts.URL+"/mcp/server-card", nil, ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("--no-card: %d", resp.StatusCode)
	}
}
