package serve

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A client whose event stream is not read delays no other: every
// notification for both reaches the client that reads, while the stalled
// one's wait in its own queue. A write to the stalled one may hold on for
// an hour (NoteWait, NoteStall): one that held the other up would hold
// the test until its hang guard.
func TestStalledClientDelaysNoOther(t *testing.T) {
	t.Parallel()
	sdkServer, url := guardedServer(t)
	h, u := httpServe(t, url, notesWaitAnHour)
	b, brec := servetest.HTTPClient(t, u, "legacy", "b")
	servetest.Call(t, b, "resources/subscribe", `{"uri":"file:///pub/a"}`)

	// Client A initializes, subscribes, then opens an event stream it
	// never reads.
	_, a := stalledClient(t, h, u)

	// Updates of a resource both subscribe to, sent one at a time: each
	// must reach B while a write to A holds on. (Sent in a burst, they
	// would meet the upstream session's own bound, where it keeps only
	// the latest update of a resource.)
	const n = 60
	updates := func() int {
		got := 0
		for _, m := range brec.All() {
			if strings.Contains(string(m), "notifications/resources/updated") {
				got++
			}
		}
		return got
	}
	for i := range n {
		sdkServer.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///pub/a", Meta: sdk.Meta{"i": i}})
		servetest.WaitFor(t, fmt.Sprintf("client B to receive update %d while client A does not read", i+1), func() bool { return updates() > i })
	}
	if a.queuedNotes() == 0 {
		t.Errorf("client A's updates drained: its stream was not stalled, the test proves nothing")
	}
}

// notesWaitAnHour has h's server wait an hour for a client that does not
// read, before it counts as not reading or a write to it is given up.
func notesWaitAnHour(h *HTTPHandler) { h.srv.NoteStall, h.srv.NoteWait = time.Hour, time.Hour }

// stalledClient initializes a client of h at u, subscribes it to
// file:///pub/a, and opens its GET stream, which it never reads.
func stalledClient(t *testing.T, h *HTTPHandler, u string) (sid string, c *client) {
	t.Helper()
	post := func(sid, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("POST", u, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := testkit.HTTP(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	resp, _ := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`)
	sid = resp.Header.Get("Mcp-Session-Id")
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
	servetest.WaitFor(t, "the GET stream to open", func() bool {
		s.t.mu.Lock()
		defer s.t.mu.Unlock()
		return s.t.get != nil
	})
	return sid, s.c
}

// An answer waits for the notifications related to its request, not for
// those bound for a stream the client does not read: with its GET stream
// stalled and a flood of updates queued for it, a client's call is
// answered, where waiting for them would take an hour (NoteWait).
func TestStalledStreamDelaysNoAnswer(t *testing.T) {
	t.Parallel()
	sdkServer, url := guardedServer(t)
	h, u := httpServe(t, url, notesWaitAnHour)
	sid, c := stalledClient(t, h, u)

	for i := range 100 {
		sdkServer.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///pub/a", Meta: sdk.Meta{"i": i}})
	}
	servetest.WaitFor(t, "the updates to queue up behind the stalled stream", func() bool { return c.queuedNotes() >= 50 })
	answered := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", u, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_a","arguments":{}}}`))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := testkit.HTTP(t).Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- string(b)
	}()
	select {
	case body := <-answered:
		if !strings.Contains(body, "ran read_a") {
			t.Fatalf("the call: %s", body)
		}
	case <-time.After(time.Minute):
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

// bigResults are the settings of the fake server whose every call's
// result holds n bytes.
func bigResults(n int) *connect.Settings {
	return &connect.Settings{Command: []string{os.Args[0]}, ConnectTimeout: 30 * time.Second, ProtocolEra: "legacy",
		Env: append(os.Environ(), mcptest.EnvVar+"=big="+fmt.Sprint(n))}
}

// queuedNotes is how many notifications wait for the client's writer.
func (c *client) queuedNotes() int {
	c.sentMu.Lock()
	defer c.sentMu.Unlock()
	return len(c.out)
}

// A client that takes nothing of its answers, whatever it asks for
// (results of megabytes here, each POST's stream left unread), holds no
// request of serve's for long: once it has taken nothing for the stall,
// each of its POSTs is let go, and its request cancelled.
func TestUnreadAnswersLetGo(t *testing.T) {
	t.Parallel()
	srv := startServer(t, bigResults(8<<20), nil, false)
	h := srv.HTTPHandler("", false)
	h.Stall = 100 * time.Millisecond
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	resp, _ := postMessage(t, ts.URL+"/mcp", "", servetest.AcceptBoth, servetest.LegacyInitialize)
	sid := resp.Header.Get("Mcp-Session-Id")
	postMessage(t, ts.URL+"/mcp", sid, servetest.AcceptBoth, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := range 4 {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","arguments":{}}}`, 10+i)))
		req.Header.Set("Accept", servetest.AcceptBoth)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := testkit.HTTP(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() }) // never read
	}
	servetest.WaitFor(t, "every unread POST to be let go", func() bool {
		h.asked.mu.Lock()
		defer h.asked.mu.Unlock()
		return h.asked.n == 0
	})
}
