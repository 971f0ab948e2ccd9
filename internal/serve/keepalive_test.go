package serve

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
)

// An event stream with nothing to say, the legacy transport's and a
// Streamable session's GET alike, gets a comment every KeepAlive: a
// proxy that cuts silent connections leaves it be, and the write finds
// out a client that went without a word. A client's parser skips it.
func TestEventStreamsKeptAlive(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	_, base := sseDoor(t, srv, func(h *HTTPHandler) { h.KeepAlive = 20 * time.Millisecond })

	legacy := openStream(t, base, bearer, false)
	keptAlive(t, "the legacy stream", legacy.resp)

	resp, _ := servetest.Do(t, http.MethodPost, base+"/mcp", map[string]string{"Authorization": "Bearer let-me-in", "Content-Type": "application/json", "Accept": servetest.AcceptBoth}, servetest.LegacyInitialize)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		t.Fatalf("initialize: %d, no session", resp.StatusCode)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/mcp", nil)
	req.Header = http.Header{"Authorization": {"Bearer let-me-in"}, "Accept": {"text/event-stream"}, "Mcp-Session-Id": {sid}}
	get, err := testkit.HTTP(t).Do(req)
	if err != nil || get.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", get, err)
	}
	defer get.Body.Close()
	keptAlive(t, "the Streamable GET stream", get)
}

// keptAlive reads resp's stream until it has had three keep-alive
// comments, within 10 s.
func keptAlive(t *testing.T, what string, resp *http.Response) {
	t.Helper()
	got := make(chan error, 1)
	go func() { // ends at the third comment, or when the test closes the body
		r := bufio.NewReader(resp.Body)
		for n := 0; n < 3; {
			line, err := r.ReadString('\n')
			if err != nil {
				got <- err
				return
			}
			if strings.TrimSpace(line) == ": keep-alive" {
				n++
			}
		}
		got <- nil
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Errorf("%s: %v before three keep-alives", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("%s: no three keep-alives within 10s", what)
	}
}
