package serve

import (
	"context"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/serve/servetest"
)

func TestMain(m *testing.M) { servetest.Main(m) }

// serverFor is a Server, not started, in front of the upstream settings
// describe.
func serverFor(t testing.TB, s *connect.Settings) *Server {
	open := servetest.Opener(t, s)
	return &Server{Open: func(ctx context.Context, r Relay) (Upstream, error) {
		c, tool, end, err := open(ctx, connect.Hooks{OnNotification: r.OnNotification, Route: r.Route, Capabilities: r.Capabilities, AwaitCapabilities: r.AwaitCapabilities, ReadGate: r.ReadGate, Secret: r.Secret})
		return ClientUpstream(c, tool, end), err
	}}
}

// startServer starts a Server in front of the upstream settings describe.
func startServer(t testing.TB, s *connect.Settings, guard Guards, isolate bool) *Server {
	t.Helper()
	secrets := redact.NewScrubber(io.Discard)
	secrets.Add(SecretsOf(s.Secrets, s.Env)...)
	srv := serverFor(t, s)
	srv.Guard, srv.Isolate, srv.Secrets = guard, isolate, secrets
	if err := srv.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func serveHTTP(t testing.TB, srv *Server, token string) string {
	t.Helper()
	h := srv.HTTPHandler(token, false)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return ts.URL + "/mcp"
}

// httpServe serves the upstream at url (spoken to in the legacy era)
// through an HTTP handler that set shapes, on a test server; it returns
// the handler and the endpoint's URL.
func httpServe(t *testing.T, url string, set func(*HTTPHandler)) (*HTTPHandler, string) {
	srv := startServer(t, servetest.Settings(url, "legacy", nil), nil, false)
	h := srv.HTTPHandler("", false)
	if set != nil {
		set(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return h, ts.URL + "/mcp"
}
