package serve

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
)

// hangHTTP serves a hang upstream over HTTP.
func hangHTTP(t *testing.T) (*hang, *HTTPHandler, string) {
	t.Helper()
	up, h, base := hangServed(t, "", nil)
	return up, h, base + "/mcp"
}

// hangServed serves a hang upstream, whose calls are cancelled visibly,
// over HTTP with token and set applied to the handler; it returns the
// base URL.
func hangServed(t *testing.T, token string, set func(*HTTPHandler)) (*hang, *HTTPHandler, string) {
	t.Helper()
	up := &hang{done: make(chan struct{}), called: make(chan struct{}, 1), cancelled: make(chan struct{}, 1)}
	srv := &Server{Open: func(context.Context, connect.Hooks) (Upstream, error) { return up, nil }}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := srv.HTTPHandler(token, false)
	if set != nil {
		set(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return up, h, ts.URL
}

// postTo POSTs body with ctx, with the session id sid when not empty (a
// modern request with a modern client's headers), and returns the
// answer's body (or the error).
func postTo(ctx context.Context, url, sid, body string) (string, http.Header, error) {
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if strings.Contains(body, `"_meta"`) {
		req.Header = modernHeaders(body, nil)
	} else {
		req.Header.Set("Accept", acceptBoth)
		req.Header.Set("Content-Type", "application/json")
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), resp.Header, err
}

// An HTTP client that hangs up in the middle of a call has it cancelled
// upstream at once: in a session of its own (the initialize era) and in
// the one of its request (the modern era).
func TestHTTPClientHangsUpMidCall(t *testing.T) {
	t.Parallel()
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			up, _, url := hangHTTP(t)
			sid, body := "", modernCall(2, "x", "{}", "")
			if era == "legacy" {
				_, hdr, err := postTo(context.Background(), url, "", legacyInitialize)
				if err != nil {
					t.Fatal(err)
				}
				sid, body = hdr.Get("Mcp-Session-Id"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}`
			}
			ctx, hangUp := context.WithCancel(context.Background())
			go postTo(ctx, url, sid, body)
			<-up.called
			hangUp()
			select {
			case <-up.cancelled:
			case <-time.After(10 * time.Second):
				t.Fatal("the call of a client that hung up was not cancelled upstream")
			}
		})
	}
}

// Closing the endpoint (SIGTERM) cancels every request in flight
// upstream, a modern client's included, whose request has a session of
// its own.
func TestHTTPCloseCancelsWhatIsInFlight(t *testing.T) {
	t.Parallel()
	up, h, url := hangHTTP(t)
	answered := make(chan string, 1)
	go func() {
		b, _, err := postTo(context.Background(), url, "", modernCall(2, "x", "{}", ""))
		if err != nil {
			b = err.Error()
		}
		answered <- b
	}()
	<-up.called
	closed := make(chan struct{})
	go func() { h.Close(); close(closed) }()
	select {
	case <-up.cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("closing the endpoint did not cancel the call in flight upstream")
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}

// When the upstream dies mid-call, the call's error reaches its client
// before the endpoint closes.
func TestHTTPUpstreamDeathAnswersFirst(t *testing.T) {
	t.Parallel()
	up, h, url := hangHTTP(t)
	_, hdr, err := postTo(context.Background(), url, "", legacyInitialize)
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan string, 1)
	go func() {
		b, _, err := postTo(context.Background(), url, hdr.Get("Mcp-Session-Id"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}`)
		if err != nil {
			b = err.Error()
		}
		answered <- b
	}()
	<-up.called
	close(up.done)
	h.Settle()
	h.Close()
	select {
	case b := <-answered:
		if !strings.Contains(b, `"error"`) || !strings.Contains(b, "the server exited") {
			t.Errorf("the call got %q, want the error that ended it", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call got no answer")
	}
}
