package serve

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client whose event stream is not read delays no other: every
// notification for both reaches the client that reads, whatever the stalled one
// holds back (its own are dropped past its bound, and counted).
func TestStalledClientDelaysNoOther(t *testing.T) {
	t.Parallel()
	sdkServer, url := guardedServer(t)
	srv := startServer(t, settingsFor(url, "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "")
	b, brec := httpClient(t, u, "legacy", "b")
	call(t, b, "resources/subscribe", `{"uri":"file:///pub/a"}`)

	// Client A initializes, then opens an event stream it never reads.
	req, _ := http.NewRequest("POST", u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	resp.Body.Close()
	req, _ = http.NewRequest("POST", u, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file:///pub/a"}}`))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	host := strings.TrimPrefix(strings.TrimSuffix(u, "/mcp"), "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(1024)
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\n\r\n", host, sid)
	if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.Contains(line, "200") {
		t.Fatalf("A's stream: %q, %v", line, err)
	}

	// Updates of a resource both subscribe to, each carrying a large
	// _meta, so that A's share holds much: what a relay does not hold back
	// for A (below the upstream session's own bound, where it would keep
	// only the latest update of a resource).
	const n = 60
	big := strings.Repeat("x", 48<<10)
	for i := range n {
		sdkServer.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///pub/a", Meta: sdk.Meta{"i": i, "pad": big}})
	}
	got := 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got = 0
		for _, m := range brec.all() {
			if strings.Contains(string(m), "notifications/resources/updated") {
				got++
			}
		}
		if got == n {
			return
		}
	}
	t.Errorf("client B received %d of the %d updates while client A did not read", got, n)
}

// An answer waits for the notifications related to its request, not for
// those bound for a stream the client does not read: with its GET stream
// stalled and a flood of updates queued for it, a client's call is
// answered at once.
func TestStalledStreamDelaysNoAnswer(t *testing.T) {
	t.Parallel()
	sdkServer, url := guardedServer(t)
	srv := startServer(t, settingsFor(url, "legacy", nil), nil, false)
	h := srv.HTTPHandler("", false)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	u := ts.URL + "/mcp"
	post := func(sid, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", u, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return nil, ""
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, _ := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`)
	if resp == nil {
		t.FailNow()
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	post(sid, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file:///pub/a"}}`)
	h.mu.Lock()
	s := h.sessions[sid]
	h.mu.Unlock()
	if s == nil {
		t.Fatal("no session for the client")
	}

	// The GET stream: its writer never returns, as a client that does
	// not read holds a stream up once the buffers between are full.
	unblock := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	getDone := make(chan struct{})
	t.Cleanup(func() { close(unblock); cancel(); <-getDone })
	go func() {
		defer close(getDone)
		req := httptest.NewRequestWithContext(ctx, "GET", "http://127.0.0.1/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		h.ServeHTTP(&stalledWriter{header: http.Header{}, unblock: unblock}, req)
	}()
	waitFor(t, "the GET stream to open", func() bool {
		s.t.mu.Lock()
		defer s.t.mu.Unlock()
		return s.t.get != nil
	})

	for i := range 100 {
		sdkServer.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///pub/a", Meta: sdk.Meta{"i": i}})
	}
	c := s.c
	waitFor(t, "the updates to queue up behind the stalled stream", func() bool { return c.queuedNotes() >= 50 })
	answered := make(chan string, 1)
	go func() {
		_, body := post(sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_a","arguments":{}}}`)
		answered <- body
	}()
	select {
	case body := <-answered:
		if !strings.Contains(body, "ran read_a") {
			t.Fatalf("the call: %s", body)
		}
	case <-time.After(2 * time.Second):
		t.Fatalf("the call was not answered while %d notifications waited for a stream nobody reads", c.queuedNotes())
	}
	if c.queuedNotes() == 0 {
		t.Errorf("the updates drained: the stream was not stalled, the test proves nothing")
	}
}

// stalledWriter is the response writer of a client that does not read:
// its Write returns only once unblock is closed.
type stalledWriter struct {
	header  http.Header
	unblock chan struct{}
}

func (w *stalledWriter) Header() http.Header { return w.header }
func (w *stalledWriter) WriteHeader(int)     {}
func (w *stalledWriter) Write(b []byte) (int, error) {
	<-w.unblock
	return len(b), nil
}

// waitFor waits, bounded, until cond holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
