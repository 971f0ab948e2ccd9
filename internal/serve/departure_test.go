package serve

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
)

// hangHTTP serves a hang upstream over HTTP.
func hangHTTP(t *testing.T) (*servetest.Hang, *HTTPHandler, string) {
	t.Helper()
	up, h, base := hangServed(t, "", nil)
	return up, h, base + "/mcp"
}

// hangServed serves a hang upstream, whose calls are cancelled visibly,
// over HTTP with token and set applied to the handler; it returns the
// base URL.
func hangServed(t *testing.T, token string, set func(*HTTPHandler)) (*servetest.Hang, *HTTPHandler, string) {
	t.Helper()
	up := &servetest.Hang{End: make(chan struct{}), Called: make(chan struct{}, 1), Cancelled: make(chan struct{}, 1)}
	srv := &Server{Open: func(context.Context, Relay) (Upstream, error) { return up, nil }}
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
		req.Header = servetest.ModernHeaders(body, nil)
	} else {
		req.Header.Set("Accept", servetest.AcceptBoth)
		req.Header.Set("Content-Type", "application/json")
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := servetest.Plain.Do(req)
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
				_, hdr, err := postTo(context.Background(), url, "", servetest.LegacyInitialize)
				if err != nil {
					t.Fatal(err)
				}
				sid, body = hdr.Get("Mcp-Session-Id"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}`
			}
			ctx, hangUp := context.WithCancel(context.Background())
			go postTo(ctx, url, sid, body)
			<-up.Called
			hangUp()
			select {
			case <-up.Cancelled:
			case <-time.After(10 * time.Second):
				t.Fatal("the call of a client that hung up was not cancelled upstream")
			}
		})
	}
}

// Closing the endpoint (SIGTERM's drain over) cancels every request in flight
// upstream, a modern client's included, whose request has a session of
// its own.
func TestHTTPCloseCancelsWhatIsInFlight(t *testing.T) {
	t.Parallel()
	up, h, url := hangHTTP(t)
	calling(url, up)
	closed := make(chan struct{})
	go func() { h.Close(); close(closed) }()
	select {
	case <-up.Cancelled:
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
	_, hdr, err := postTo(context.Background(), url, "", servetest.LegacyInitialize)
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
	<-up.Called
	close(up.End)
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

// HARDENING, a hostile client: big POST bodies sent to calls the server is
// slow to answer are held only up to MaxHeld at once, across requests; a
// request beyond is refused (503, Retry-After) as soon as it passes the
// bound, and the bodies are let go when their requests end.
func TestHTTPBodiesHeldAreBounded(t *testing.T) {
	testkit.SkipLong(t, "bodies held by calls the server is slow to answer")
	t.Parallel()
	_, h, base := hangServed(t, "", func(h *HTTPHandler) { h.MaxBody, h.MaxHeld = 4096, 7000 })
	url := base + "/mcp"
	_, hdr, err := postTo(context.Background(), url, "", servetest.LegacyInitialize)
	if err != nil {
		t.Fatal(err)
	}
	sid := hdr.Get("Mcp-Session-Id")
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","arguments":{"pad":%q}}}`, id, strings.Repeat("x", 3000))
	}
	ctx, hangUp := context.WithCancel(context.Background())
	ended := make(chan struct{}, 2)
	for id := range 2 {
		go func() {
			postTo(ctx, url, sid, call(10+id))
			ended <- struct{}{}
		}()
	}
	waitHeld := func(what string, ok func(int64) bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(h.held.Load()); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d bytes held", what, h.held.Load())
			}
		}
	}
	waitHeld("the two calls in flight", func(n int64) bool { return n >= 6000 })

	third, cancel := context.WithTimeout(context.Background(), 10*time.Second) // held, it would wait for ever
	defer cancel()
	req, _ := http.NewRequestWithContext(third, "POST", url, strings.NewReader(call(20)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", servetest.AcceptBoth)
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := servetest.Plain.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "holds 7000 bytes of request bodies") {
		t.Errorf("a third body past MaxHeld: %d, Retry-After %q, %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if n := h.held.Load(); n > 7000 {
		t.Errorf("%d bytes held once the refused request ended, want the two calls' alone", n)
	}

	hangUp()
	<-ended
	<-ended
	waitHeld("once the calls' clients hung up", func(n int64) bool { return n == 0 })
	if b, _, err := postTo(context.Background(), url, sid, `{"jsonrpc":"2.0","id":30,"method":"ping"}`); err != nil || !strings.Contains(b, `"result"`) {
		t.Errorf("a request once the bodies were let go: %q, %v", b, err)
	}
}

// A draining endpoint (SIGTERM, behind a balancer) says so at /healthz,
// opens no session, still answers a request of the 2026-07-28 era, and
// waits for the call in flight, which is answered, not cancelled.
func TestDrainAnswersWhatIsInFlight(t *testing.T) {
	t.Parallel()
	var up *servetest.Hang
	up, h, base := hangServed(t, "", nil)
	up.Release = make(chan struct{})
	url := base + "/mcp"
	answered := calling(url, up)
	drained := make(chan struct{})
	go func() { h.Drain(time.Minute); close(drained) }()
	for i := 0; ; i++ {
		resp, body := servetest.Do(t, http.MethodGet, base+"/healthz", nil, "")
		if resp.StatusCode == http.StatusServiceUnavailable {
			if body != `{"status":"draining"}`+"\n" {
				t.Errorf("/healthz while draining: %q", body)
			}
			break
		}
		if i == 1000 {
			t.Fatalf("/healthz never said draining: %d %q", resp.StatusCode, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, body := servetest.Do(t, http.MethodPost, url, map[string]string{"Content-Type": "application/json", "Accept": servetest.AcceptBoth}, servetest.LegacyInitialize)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || resp.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(body, "draining") {
		t.Errorf("a session opened while draining: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	list := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":` + servetest.ModernMetaJSON + `}}`
	if b, _, err := postTo(context.Background(), url, "", list); err != nil || !strings.Contains(b, `"result"`) {
		t.Errorf("a modern request while draining: %q %v", b, err)
	}
	select {
	case <-drained:
		t.Fatal("the drain ended with a call in flight")
	default:
	}
	close(up.Release)
	if b := <-answered; !strings.Contains(b, "released") {
		t.Errorf("the call in flight: %q", b)
	}
	<-drained
	select {
	case <-up.Cancelled:
		t.Error("the call in flight was cancelled")
	default:
	}
}

// A drain waits for a call that is never answered no longer than its
// grace.
func TestDrainBounded(t *testing.T) {
	t.Parallel()
	up, h, url := hangHTTP(t)
	calling(url, up)
	drained := make(chan struct{})
	go func() { h.Drain(50 * time.Millisecond); close(drained) }()
	select {
	case <-drained:
	case <-time.After(time.Minute):
		t.Fatal("the drain did not end at its grace")
	}
}

// calling POSTs a modern client's call of x to url, held by up, and
// returns once up has it; its answer (or error) comes on the channel.
func calling(url string, up *servetest.Hang) <-chan string {
	answered := make(chan string, 1)
	go func() {
		b, _, err := postTo(context.Background(), url, "", modernCall(2, "x", "{}", ""))
		if err != nil {
			b = err.Error()
		}
		answered <- b
	}()
	<-up.Called
	return answered
}
