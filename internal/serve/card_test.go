package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/servercard"
	"github.com/mcpv/mcpv/mcp"
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

// TestCardVersionsAreDiscovers: the card lists the versions serve answers
// in, and server/discover the same (a server of both eras lists both
// eras' versions there, as the versioning page's own example does),
// whatever the server behind speaks or lists (here one of the
// initialize era, bridged, one of both eras, and one that lists a
// version serve does not speak, passed through), and initialize takes
// each of the others.
func TestCardVersionsAreDiscovers(t *testing.T) {
	t.Parallel()
	for _, era := range []string{"legacy", "modern", "more"} {
		var srv *Server
		if era == "more" {
			srv = &Server{Open: func(context.Context, Relay) (Upstream, error) { return lister2099{}, nil }}
			if err := srv.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
		} else {
			srv = startServer(t, servetest.Settings(servetest.DemoURL(t, era), era, nil), nil, false)
		}
		u := serveHTTP(t, srv, "")
		_, body := servetest.Do(t, "GET", u+"/server-card", nil, "")
		c, _ := servercard.ParseCard(json.RawMessage(body))
		if len(c.Remotes) != 1 {
			t.Fatalf("%s: the card %s", era, body)
		}
		card := c.Remotes[0].SupportedVersions
		if want := append(slices.Clone(mcp.ModernVersions), mcp.SupportedVersions...); !slices.Equal(card, want) {
			t.Errorf("%s: the card lists %v, want %v", era, card, want)
		}
		_, disc := servetest.PostModern(t, u, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":`+servetest.ModernMetaJSON+`}}`, nil)
		var d struct {
			Result struct {
				Supported []string `json:"supportedVersions"`
			} `json:"result"`
		}
		json.Unmarshal([]byte(sseData(disc)), &d)
		if !slices.Equal(d.Result.Supported, card) {
			t.Errorf("%s: server/discover lists %v, want the card's %v: %s", era, d.Result.Supported, card, disc)
		}
		for _, v := range card {
			if mcp.IsModern(v) {
				continue
			}
			_, init := servetest.Send(t, http.MethodPost, u, http.Header{"Accept": {servetest.AcceptBoth}, "Content-Type": {"application/json"}},
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
			if !strings.Contains(init, `"protocolVersion":"`+v+`"`) {
				t.Errorf("%s: initialize in %s: %s", era, v, init)
			}
		}
	}
}

// lister2099 is a server of the 2026-07-28 era whose server/discover lists
// a version mcpv does not speak too.
type lister2099 struct{}

func (lister2099) State() mcp.State {
	return mcp.State{Modern: true, Version: mcp.ModernVersion, InitializeResult: servetest.Init(`{"protocolVersion":"2026-07-28","capabilities":{},"serverInfo":{"name":"l","version":"1"}}`)}
}
func (lister2099) Forward(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{"resultType":"complete","supportedVersions":["2099-01-01","2026-07-28"],"capabilities":{}}`), nil
}
func (l lister2099) Relay(ctx context.Context, m string, p json.RawMessage) (json.RawMessage, error) {
	return l.Forward(ctx, m, p)
}
func (lister2099) ForwardNotification(context.Context, string, json.RawMessage) error { return nil }
func (lister2099) Tool(context.Context, string) (json.RawMessage, bool)               { return nil, false }
func (lister2099) Done() <-chan struct{}                                              { return nil }
func (lister2099) Err() error                                                         { return nil }
func (lister2099) Close()                                                             {}
