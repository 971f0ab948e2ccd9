package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// httpConn is a session over an HTTPTransport, closed when the test ends.
type httpConn struct {
	tr    *HTTPTransport
	s     *Session
	notes chan string // "METHOD PARAMS" of each notification, in order
}

func dialHTTP(t *testing.T, opts HTTPOptions, sopts SessionOptions) *httpConn {
	t.Helper()
	tr := newHTTPTransport(t, opts)
	h := &httpConn{tr: tr, notes: make(chan string, 100)}
	if sopts.OnNotification == nil {
		sopts.OnNotification = func(method string, params json.RawMessage) { h.notes <- method + " " + string(params) }
	}
	h.s = NewSession(tr, sopts)
	t.Cleanup(func() { h.close(t) })
	return h
}

// newHTTPTransport is NewHTTPTransport, which must succeed.
func newHTTPTransport(t *testing.T, opts HTTPOptions) *HTTPTransport {
	t.Helper()
	tr, err := NewHTTPTransport(opts)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func (h *httpConn) initialize(t *testing.T) *Client {
	t.Helper()
	c, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo()})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

func (h *httpConn) close(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	h.s.Close(ctx)
}

// delivered closes the session, after which every notification has been
// delivered, and returns them.
func (h *httpConn) delivered(t *testing.T) []string {
	h.close(t)
	var got []string
	for {
		select {
		case n := <-h.notes:
			got = append(got, n)
		default:
			return got
		}
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	t.Cleanup(cancel)
	return ctx
}

// awaitRequest waits for the fake to receive a request match accepts.
func awaitRequest(t *testing.T, srv *mcptest.HTTPServer, match func(mcptest.HTTPRequest) bool) mcptest.HTTPRequest {
	t.Helper()
	r, err := srv.Wait(testCtx(t), match)
	if err != nil {
		t.Fatalf("the server did not get the request: %v\nit got:\n%s", err, summary(srv.Requests(), nil))
	}
	return r
}

// summary renders requests one a line, those keep accepts (nil: all).
func summary(reqs []mcptest.HTTPRequest, keep func(mcptest.HTTPRequest) bool) []string {
	var out []string
	for _, r := range reqs {
		if keep == nil || keep(r) {
			out = append(out, r.String())
		}
	}
	return out
}

func noGET(r mcptest.HTTPRequest) bool { return r.Method != http.MethodGet }

func responseTo(id string) func(mcptest.HTTPRequest) bool {
	return func(r mcptest.HTTPRequest) bool { return r.RPCMethod == "" && string(r.ID) == id }
}

func rpc(method string) func(mcptest.HTTPRequest) bool {
	return func(r mcptest.HTTPRequest) bool { return r.RPCMethod == method }
}

// answerTo scripts the fake to answer method's POSTs with answer.
func answerTo(method string, answer func(x *mcptest.Exchange)) func(x *mcptest.Exchange) bool {
	return func(x *mcptest.Exchange) bool {
		if x.RPCMethod != method {
			return false
		}
		answer(x)
		return true
	}
}

const logNote = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%q}}`

func note(data string) string { return fmt.Sprintf(logNote, data) }

func delivered(data string) string {
	return fmt.Sprintf(`notifications/message {"level":"info","data":%q}`, data)
}

func TestHTTPRequestsCarryTheSessionHeaders(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/call", func(x *mcptest.Exchange) {
		x.Reply(x.Result(`{"content":[{"type":"text","text":"a"}], "n" : 1.50}`))
	})})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, Header: http.Header{"X-Team": {"blue"}}}, SessionOptions{})
	c, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo(), ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":[{"type":"text","text":"a"}], "n" : 1.50}`; string(got) != want {
		t.Errorf("result %s, want the server's bytes %s", got, want)
	}
	h.close(t)
	// The version is sent once negotiated, the session id once issued; the
	// GET is the standalone stream, opened after notifications/initialized,
	// whose headers the call waits for.
	want := []string{
		"POST initialize sid= version= last-event-id=",
		"POST notifications/initialized sid=s1 version=2025-06-18 last-event-id=",
		"GET  sid=s1 version=2025-06-18 last-event-id=",
		"POST tools/call sid=s1 version=2025-06-18 last-event-id=",
		"DELETE  sid=s1 version=2025-06-18 last-event-id=",
	}
	reqs := srv.Requests()
	if d := cmp.Diff(want, summary(reqs, nil)); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	for _, r := range reqs {
		accept := "application/json, text/event-stream"
		if r.Method == http.MethodGet {
			accept = "text/event-stream"
		}
		if r.Method != http.MethodDelete && r.Header.Get("Accept") != accept {
			t.Errorf("%s: Accept %q, want %q", r, r.Header.Get("Accept"), accept)
		}
		if r.Header.Get("X-Team") != "blue" {
			t.Errorf("%s lacks the caller's header", r)
		}
	}
}

// headersOnce answers a GET stream with its headers once release is
// closed, and holds it.
func headersOnce(release <-chan struct{}) func(*mcptest.Exchange) {
	return func(x *mcptest.Exchange) {
		select {
		case <-release:
		case <-x.R.Context().Done():
			return
		}
		x.SSE()
		x.Hold()
	}
}

// A request waits for the GET stream's headers, so that what the server
// sends there in its course is not lost (a server has the stream once it
// has sent them, not when the GET has been sent: the call's POST may
// reach it first); a list request does not, and overlaps the stream's
// opening.
func TestHTTPRequestsWaitForTheGetStream(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{
		Get:  headersOnce(release),
		Post: answerTo("tools/call", func(x *mcptest.Exchange) { x.Reply(x.Result(`{"content":[]}`)) }),
	})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	// A wait for the GET stream of an hour, and no proxy's grace: the
	// wait is the headers'. Waiting for the GET stream, initialize and
	// tools/list would take the hour.
	h.tr.getWait = time.Hour
	h.tr.headersGrace = h.tr.getWait
	start := time.Now()
	c := h.initialize(t)
	awaitRequest(t, srv, func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet })
	if _, err := c.Call(testCtx(t), "tools/list", nil); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("tools/list while the GET waits: %v", err)
	}
	if d := time.Since(start); d >= h.tr.getWait/2 {
		t.Fatalf("initialize and tools/list took %v while the GET stream had no headers", d)
	}
	called := make(chan error, 1)
	go func() {
		_, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"x"}`))
		called <- err
	}()
	select {
	case err := <-called:
		t.Fatalf("the call went before the GET stream had its headers: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if slices.ContainsFunc(srv.Requests(), rpc("tools/call")) {
		t.Fatal("the call was sent before the GET stream had its headers")
	}
	close(release)
	if err := <-called; err != nil {
		t.Fatal(err)
	}
}

// A subscribe waits for the GET stream's headers the whole wait, not the
// grace a proxy's held headers get: its updates come on that stream, and a
// server keeps none for a stream it does not have yet. A call written
// after it, given the grace, goes first.
func TestHTTPSubscribeWaitsForTheGetStream(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{
		Get: headersOnce(release),
		Post: func(x *mcptest.Exchange) bool {
			if x.RPCMethod != "resources/subscribe" && x.RPCMethod != "tools/call" {
				return false
			}
			x.Reply(x.Result(`{}`))
			return true
		},
	})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	h.tr.getWait = time.Hour
	c := h.initialize(t)
	awaitRequest(t, srv, func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet })
	subscribed := make(chan error, 1)
	go func() {
		_, err := c.Call(testCtx(t), "resources/subscribe", json.RawMessage(`{"uri":"file:///a"}`))
		subscribed <- err
	}()
	if _, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(srv.Requests(), rpc("resources/subscribe")) {
		t.Fatal("the subscribe was sent before the GET stream had its headers")
	}
	close(release)
	if err := <-subscribed; err != nil {
		t.Fatal(err)
	}
}

// Behind a proxy that holds the GET stream's headers back until its first
// event, a request waits a moment after the GET was sent, not the whole
// wait: the server had the GET first.
func TestHTTPRequestsWaitBrieflyForHeldHeaders(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{
		Get:  func(x *mcptest.Exchange) { <-x.R.Context().Done() },
		Post: answerTo("tools/call", func(x *mcptest.Exchange) { x.Reply(x.Result(`{"content":[]}`)) }),
	})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	h.tr.getWait = time.Hour // waited out, the call would take the hour
	c := h.initialize(t)
	start := time.Now()
	if _, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= h.tr.getWait/2 {
		t.Errorf("the call took %v while the GET stream's headers were held: as long as the whole wait", d)
	}
	// The grace counts from the GET's sending, for every request: once
	// the first has waited it out, a later one does not wait again.
	h.tr.mu.Lock()
	left := time.Until(h.tr.getDeadline)
	h.tr.mu.Unlock()
	if left > 0 {
		t.Errorf("a later request would still wait %v for the held headers", left)
	}
	reqs := srv.Requests()
	get := slices.IndexFunc(reqs, func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet })
	call := slices.IndexFunc(reqs, rpc("tools/call"))
	if get < 0 || call < get {
		t.Errorf("the server had the call (at %d) before the GET (at %d)", call, get)
	}
}

func TestHTTPAnswerForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		answer    func(x *mcptest.Exchange)
		wantNotes []string
	}{
		{"JSON", func(x *mcptest.Exchange) { x.Reply(x.Result(`{"ok":1}`)) }, nil},
		{"JSON with a charset", func(x *mcptest.Exchange) {
			x.Status(http.StatusOK, x.Result(`{"ok":1}`), "Content-Type", "application/json; charset=utf-8")
		}, nil},
		{"JSON batch", func(x *mcptest.Exchange) {
			x.Reply("[" + note("first") + "," + x.Result(`{"ok":1}`) + "]")
		}, []string{delivered("first")}},
		{"SSE with notifications first", func(x *mcptest.Exchange) {
			e := x.SSE()
			e.Event("1", note("one"))
			e.Event("2", note("two"))
			e.Event("3", x.Result(`{"ok":1}`))
			e.Event("4", note("after the response: never read"))
		}, []string{delivered("one"), delivered("two")}},
		{"SSE with comments, event types and multi-line data", func(x *mcptest.Exchange) {
			e := x.SSE()
			e.Raw(": keep-alive\n\nevent: other\ndata: " + note("not a message event") + "\n\n")
			e.Raw("event: message\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"split\"}}\r\n\r\n")
			e.Event("", x.Result(`{"ok":1}`))
		}, []string{delivered("split")}},
		{"SSE batch", func(x *mcptest.Exchange) {
			x.SSE().Event("", "["+note("batched")+","+x.Result(`{"ok":1}`)+"]")
		}, []string{delivered("batched")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/list", tt.answer)})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
			c := h.initialize(t)
			got, err := c.Call(testCtx(t), "tools/list", nil)
			if err != nil || string(got) != `{"ok":1}` {
				t.Fatalf("got %s, %v", got, err)
			}
			if d := cmp.Diff(tt.wantNotes, h.delivered(t)); d != "" {
				t.Errorf("notifications (-want +got):\n%s", d)
			}
		})
	}
}

// rootsHandler answers roots/list, the server request the tests send.
func rootsHandler(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method != "roots/list" {
		return nil, MethodNotFound(method)
	}
	return json.RawMessage(`{"roots":[{"uri":"file:///w"}]}`), nil
}

func TestHTTPServerRequestOnAPostStream(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/call", func(x *mcptest.Exchange) {
		e := x.SSE()
		e.Event("1", `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`)
		answer, err := x.Server().Wait(x.R.Context(), responseTo(`"srv-1"`))
		if err != nil {
			return
		}
		e.Event("2", x.Result(`{"content":[],"answer":`+string(answer.Body)+`}`))
	})})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{Handler: rootsHandler})
	c := h.initialize(t)
	got, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"content":[],"answer":{"jsonrpc":"2.0","id":"srv-1","result":{"roots":[{"uri":"file:///w"}]}}}`
	if string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	answer := awaitRequest(t, srv, responseTo(`"srv-1"`))
	if answer.SessionID != "s1" || answer.ProtocolVersion != LatestVersion {
		t.Errorf("the answer went without the session headers: %s", answer)
	}
}

func TestHTTPGetStream(t *testing.T) {
	t.Parallel()
	ended := make(chan struct{})
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Get: func(x *mcptest.Exchange) {
		defer close(ended)
		e := x.SSE()
		e.Event("g1", note("on the GET stream"))
		e.Event("g2", `{"jsonrpc":"2.0","id":"srv-g","method":"roots/list"}`)
		x.Hold()
	}})
	accepted := make(chan struct{}, 10) // a POST was answered 202, as the client saw it
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, Trace: func(line string) {
		if strings.HasPrefix(line, "POST ") && strings.Contains(line, "-> 202 ") {
			accepted <- struct{}{}
		}
	}}, SessionOptions{Handler: rootsHandler})
	h.initialize(t)
	answer := awaitRequest(t, srv, responseTo(`"srv-g"`))
	if want := `{"jsonrpc":"2.0","id":"srv-g","result":{"roots":[{"uri":"file:///w"}]}}`; string(answer.Body) != want {
		t.Errorf("answer %s, want %s", answer.Body, want)
	}
	// Close only once the answer's POST is over (the second 202, after
	// notifications/initialized's): Close cancels answers in flight, and Go's
	// HTTP client may then fail the DELETE that reuses their connection.
	waitFor(t, accepted)
	waitFor(t, accepted)
	if d := cmp.Diff([]string{delivered("on the GET stream")}, h.delivered(t)); d != "" {
		t.Errorf("notifications (-want +got):\n%s", d)
	}
	// Close has DELETEd the session and ended the stream.
	waitFor(t, ended)
	del := awaitRequest(t, srv, func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodDelete })
	if del.SessionID != "s1" {
		t.Errorf("DELETE without the session id: %s", del)
	}
	if _, err := h.tr.Read(); err == nil {
		t.Error("Read after Close returned no error")
	}
}

func TestHTTPCloseTwiceOrAtOnce(t *testing.T) {
	t.Parallel()
	for _, done := range []bool{false, true} {
		t.Run(fmt.Sprintf("ctx done=%v", done), func(t *testing.T) {
			t.Parallel()
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
			h.initialize(t)
			ctx, cancel := context.WithCancel(context.Background())
			if done {
				cancel() // no grace: the DELETE is skipped
			}
			defer cancel()
			for range 2 {
				if err := h.s.Close(ctx); err != nil {
					t.Errorf("Close: %v", err)
				}
			}
			got := summary(srv.Requests(), func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodDelete })
			want := []string{"DELETE  sid=s1 version=" + LatestVersion + " last-event-id="}
			if done {
				want = nil
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("DELETEs (-want +got):\n%s", d)
			}
		})
	}
}

func TestHTTPStatelessServer(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	c := h.initialize(t)
	if _, err := c.Call(testCtx(t), "ping", nil); err != nil {
		t.Fatal(err)
	}
	h.close(t)
	for _, r := range srv.Requests() {
		if r.SessionID != "" || r.Method == http.MethodDelete {
			t.Errorf("%s: no session was issued", r)
		}
	}
}

func TestHTTPCancelledCall(t *testing.T) {
	t.Parallel()
	started, released := make(chan struct{}), make(chan struct{})
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/call", func(x *mcptest.Exchange) {
		x.SSE()
		close(started)
		x.Hold() // never answers
		close(released)
	})})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	c := h.initialize(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	call := goCall(ctx, c.Call, "tools/call", json.RawMessage(`{"name":"slow"}`))
	waitFor(t, started)
	cause := errors.New("the user gave up")
	cancel(cause)
	if r := waitFor(t, call); r.err != cause {
		t.Fatalf("Call returned %v, want the context's cause", r.err)
	}
	cancelled := awaitRequest(t, srv, rpc("notifications/cancelled"))
	var p struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		} `json:"params"`
	}
	json.Unmarshal(cancelled.Body, &p)
	call1 := awaitRequest(t, srv, rpc("tools/call"))
	if string(p.Params.RequestID) != string(call1.ID) || p.Params.Reason != cause.Error() || cancelled.SessionID != "s1" {
		t.Errorf("cancellation %s names %s, want %s and the cause", cancelled.Body, p.Params.RequestID, call1.ID)
	}
	waitFor(t, released) // the POST's connection was dropped
	if _, err := c.Call(testCtx(t), "ping", nil); err != nil {
		t.Errorf("the session did not survive the cancellation: %v", err)
	}
}

func TestHTTPTraceMasksSecrets(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	var mu sync.Mutex
	var lines []string
	h := dialHTTP(t, HTTPOptions{
		URL:    srv.URL + "?api_key=s3cr3t-query",
		Header: http.Header{"Authorization": {"Bearer s3cr3t-token"}},
		Trace: func(line string) {
			mu.Lock()
			lines = append(lines, line)
			mu.Unlock()
		},
	}, SessionOptions{})
	h.initialize(t)
	h.close(t)
	mu.Lock()
	trace := strings.Join(lines, "\n")
	mu.Unlock()
	for _, secret := range []string{"s3cr3t", "Mcp-Session-Id: s1"} {
		if strings.Contains(trace, secret) {
			t.Errorf("the trace shows %q:\n%s", secret, trace)
		}
	}
	for _, want := range []string{
		"POST " + srv.URL + " {Accept: application/json, text/event-stream, Authorization: ***, Content-Type: application/json} -> 200 OK {",
		"Mcp-Session-Id: ***",
		"DELETE " + srv.URL + " {Authorization: ***, Mcp-Protocol-Version: " + LatestVersion + ", Mcp-Session-Id: ***} -> 200 OK",
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("the trace lacks %q:\n%s", want, trace)
		}
	}
}

// TestHTTPNotificationsAnsweredWithABody: a server (the conformance suite's
// raw one) that answers notifications with 200 and a body that answers
// nothing, and GET with 400, is still served.
func TestHTTPNotificationsAnsweredWithABody(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{
		Post: func(x *mcptest.Exchange) bool {
			if x.ID != nil {
				return false
			}
			x.Reply(`{"jsonrpc":"2.0","result":{}}`)
			return true
		},
		Get: func(x *mcptest.Exchange) { x.Status(http.StatusBadRequest, "no GET here") },
	})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	c := h.initialize(t)
	if got, err := c.Call(testCtx(t), "ping", nil); err != nil || string(got) != "{}" {
		t.Errorf("ping: %s, %v", got, err)
	}
}

// TestHTTPStuckAnswerDoesNotBlockCancellation: the server asks something on
// a call's stream and never acknowledges the client's answer; cancelling
// the call must not wait for that POST.
func TestHTTPStuckAnswerDoesNotBlockCancellation(t *testing.T) {
	testkit.SkipLong(t, "a cancellation past a POST the server never acknowledges")
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		switch {
		case x.RPCMethod == "tools/list":
			x.SSE().Event("", `{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`)
			x.Hold()
		case x.RPCMethod == "" && string(x.ID) == `"srv-1"`:
			x.Hold() // the answer to the ping: never acknowledged
		default:
			return false
		}
		return true
	}})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	c := h.initialize(t)
	ctx, cancel := context.WithCancel(context.Background())
	call := goCall(ctx, c.Call, "tools/list", nil)
	awaitRequest(t, srv, responseTo(`"srv-1"`))
	cancel()
	if r := waitFor(t, call); !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Call returned %v", r.err)
	}
	awaitRequest(t, srv, rpc("notifications/cancelled"))
}

// An answer's SSE stream is read to its end once the response is in, so
// that its connection can carry the next request: closed before its end,
// it takes the connection with it, and each request would open one of its
// own. (The read past the response waits an hour here, not finishWait: a
// loaded machine's late end of stream is not a closed one.)
func TestHTTPAnswerStreamsKeepTheirConnection(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/call", func(x *mcptest.Exchange) {
		// The stream ends a moment after the response, as a server's
		// that writes the end of its answer on its own.
		x.SSE().Event("", x.Result(`{"content":[]}`))
		time.Sleep(time.Millisecond)
	})})
	var closed atomic.Int32 // connections the client closed
	pool := &http.Transport{MaxIdleConnsPerHost: 100, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		return countClose{c, &closed}, err
	}}
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, Client: &http.Client{Transport: pool}}, SessionOptions{})
	h.tr.endWait = time.Hour
	c := h.initialize(t)
	for range 6 {
		if _, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"x"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if n := closed.Load(); n != 0 {
		t.Errorf("%d connections closed under their answers", n)
	}
}

// countClose counts the closes of its connection.
type countClose struct {
	net.Conn
	n *atomic.Int32
}

func (c countClose) Close() error {
	c.n.Add(1)
	return c.Conn.Close()
}

// The exchange is detached from its caller before the session has the
// response: the caller, gone the moment it has it, does not end the
// exchange, whose stream is still to be read to its end (finish).
func TestResponseDetachedBeforeHandover(t *testing.T) {
	t.Parallel()
	tr, err := NewHTTPTransport(HTTPOptions{URL: "http://127.0.0.1:1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	tr.incoming = make(chan inbound) // the session takes each message as it comes
	caller, cancel := context.WithCancel(context.Background())
	ctx, stop := tr.bind(caller)
	defer stop()
	r := newSSEReader(strings.NewReader(`data: {"jsonrpc":"2.0","id":1,"result":{}}` + "\n\n"))
	got := make(chan bool)
	go func() {
		ok, _, _ := tr.pump(ctx, r, json.RawMessage(`1`), nil)
		got <- ok
	}()
	time.Sleep(20 * time.Millisecond) // the pump waits at the handover
	<-tr.incoming
	cancel() // at once, before the pump goes on
	if !<-got {
		t.Fatal("the response was not handed over")
	}
	select {
	case <-ctx.Done():
		t.Errorf("the exchange ended with its caller: %v", context.Cause(ctx))
	case <-time.After(100 * time.Millisecond):
	}
}

// finish reads a stream to its end and closes it; one that does not end,
// or floods, is closed after its wait (finishWait) or 64 KiB.
func TestFinish(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	go func(w *io.PipeWriter) { // its own w: the variable is the next pipe's once it runs late
		w.Write([]byte("data: more\n\n"))
		w.Close()
	}(w)
	finishWithin(r, finishWait)
	if _, err := r.Read(make([]byte, 1)); err == nil {
		t.Error("the stream is not closed")
	}
	r, w = io.Pipe()
	defer w.Close()
	start := time.Now()
	finishWithin(r, finishWait) // nothing comes
	if d := time.Since(start); d < finishWait {
		t.Errorf("gave up after %v", d)
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Error("the stream that never ended is not closed")
	}
	// A server that floods the stream after its response: 64 KiB read, at
	// once, and the stream closed. The wait is an hour here: the flood is
	// cut by its size, not by the wait.
	r, w = io.Pipe()
	var sent atomic.Int64
	go func() {
		chunk := []byte(strings.Repeat("x", 4096))
		for {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	start = time.Now()
	finishWithin(r, time.Hour)
	if d := time.Since(start); d >= time.Hour/2 {
		t.Errorf("a flood held finish %v", d)
	}
	if n := sent.Load(); n > 64<<10+4096 {
		t.Errorf("read %d bytes of a flood", n)
	}
}
