package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// sessionEcho answers tools/list with the session id it came with.
func sessionEcho(x *mcptest.Exchange) {
	x.Reply(x.Result(fmt.Sprintf(`{"session":%q}`, x.SessionID)))
}

func TestHTTPSessionExpiredReinitializesOnce(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/list", sessionEcho)})
	var log mcptest.Buffer
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, Log: lineLogger(&log)}, SessionOptions{})
	c := h.initialize(t)
	srv.Expire("s1")
	got, err := c.Call(testCtx(t), "tools/list", nil)
	if err != nil || string(got) != `{"session":"s2"}` {
		t.Fatalf("got %s, %v", got, err)
	}
	v := LatestVersion
	want := []string{
		"POST initialize sid= version= last-event-id=",
		"POST notifications/initialized sid=s1 version=" + v + " last-event-id=",
		"POST tools/list sid=s1 version=" + v + " last-event-id=",
		// The replay carries the version: it was negotiated already.
		"POST initialize sid= version=" + v + " last-event-id=",
		"POST notifications/initialized sid=s2 version=" + v + " last-event-id=",
		"POST tools/list sid=s2 version=" + v + " last-event-id=",
	}
	reqs := srv.Requests()
	if d := cmp.Diff(want, summary(reqs, noGET)); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	var inits [][]byte
	for _, r := range reqs {
		if r.RPCMethod == "initialize" {
			inits = append(inits, r.Body)
		}
	}
	if len(inits) == 2 && string(inits[0]) != string(inits[1]) {
		t.Errorf("the replayed initialize differs:\n%s\n%s", inits[0], inits[1])
	}
	if !strings.Contains(log.String(), "the server's session expired (HTTP 404); starting a new one") {
		t.Errorf("log %q does not tell of the new session", log.String())
	}
	// The standalone stream ended with the old session: it is asked for again.
	awaitRequest(t, srv, func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet && r.SessionID == "s2" })

	srv.Expire("s2")
	_, err = c.Call(testCtx(t), "tools/list", nil)
	var te *TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "the server's session expired (HTTP 404) again") {
		t.Errorf("second expiry: got %v", err)
	}
	if n := len(summary(srv.Requests(), rpc("initialize"))); n != 2 {
		t.Errorf("%d initialize requests, want 2", n)
	}
}

// A GET stream of a session that expires is asked for again under the new
// session, with no event id of the old one: whether the server answers
// the old session's GET with 404 only once the new session is in use, or
// ends the old stream then. It is the only way the server's own messages
// reach the client.
func TestHTTPGetStreamFollowsTheNewSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		old  func(x *mcptest.Exchange)
	}{
		{"404", func(x *mcptest.Exchange) { x.Status(http.StatusNotFound, "session not found") }},
		{"stream ended", func(x *mcptest.Exchange) { x.SSE().Event("old-1", note("of the old session")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var srv *mcptest.HTTPServer
			srv = mcptest.NewHTTPServer(t, mcptest.HTTPOptions{
				Post: answerTo("tools/list", sessionEcho),
				Get: func(x *mcptest.Exchange) {
					if x.SessionID == "s1" {
						// Answered only once the new session is in use,
						// as a slow server would.
						srv.Wait(x.R.Context(), func(r mcptest.HTTPRequest) bool {
							return r.RPCMethod == "tools/list" && r.SessionID == "s2"
						})
						tc.old(x)
						return
					}
					x.SSE()
					<-x.R.Context().Done()
				},
			})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
			c := h.initialize(t)
			awaitRequest(t, srv, func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet && r.SessionID == "s1" })
			srv.Expire("s1")
			if got, err := c.Call(testCtx(t), "tools/list", nil); err != nil || string(got) != `{"session":"s2"}` {
				t.Fatalf("got %s, %v", got, err)
			}
			r := awaitRequest(t, srv, func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet && r.SessionID == "s2" })
			if r.LastEventID != "" {
				t.Errorf("the new session's stream asked to resume the old one's at %q", r.LastEventID)
			}
		})
	}
}

func TestHTTPSessionExpiredUnderConcurrentCalls(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/list", func(x *mcptest.Exchange) {
		if x.SessionID != "s1" {
			sessionEcho(x)
			return
		}
		// Both calls must have reached the old session before it expires.
		n := 0
		if _, err := x.Server().Wait(x.R.Context(), func(r mcptest.HTTPRequest) bool {
			if r.RPCMethod == "tools/list" {
				n++
			}
			return n == 2
		}); err != nil {
			return
		}
		x.Status(http.StatusNotFound, "")
	})})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	c := h.initialize(t)
	calls := []<-chan callResult{goCall(testCtx(t), c.Call, "tools/list", nil), goCall(testCtx(t), c.Call, "tools/list", nil)}
	for _, call := range calls {
		if r := waitFor(t, call); r.err != nil || string(r.result) != `{"session":"s2"}` {
			t.Errorf("got %s, %v", r.result, r.err)
		}
	}
	if n := len(summary(srv.Requests(), rpc("initialize"))); n != 2 {
		t.Errorf("%d initialize requests, want 2: one new session for both calls", n)
	}
}

func TestHTTPReinitializeFails(t *testing.T) {
	t.Parallel()
	// replay answers the second initialize, or the notifications/initialized
	// that follows it.
	tests := []struct {
		name   string
		replay func(x *mcptest.Exchange) bool
		errHas string
		auth   bool
	}{
		{"initialize refused with 500", onReplay("initialize", func(x *mcptest.Exchange) { x.Status(http.StatusInternalServerError, "") }),
			"POST: HTTP 500 Internal Server Error", false},
		{"initialize refused with 401", onReplay("initialize", func(x *mcptest.Exchange) { x.Status(http.StatusUnauthorized, "") }),
			"the server requires authorization (HTTP 401", true},
		{"a JSON-RPC error", onReplay("initialize", func(x *mcptest.Exchange) { x.Reply(x.Error(-32603, "try later")) }),
			"initialize (new session): server error -32603: try later", false},
		{"no response in the body", onReplay("initialize", func(x *mcptest.Exchange) { x.Reply(note("hello")) }),
			"initialize (new session): no response to initialize", false},
		{"a stream ending before the response", onReplay("initialize", func(x *mcptest.Exchange) { x.SSE().Event("1", note("hello")) }),
			"initialize (new session): the stream ended before the response to initialize", false},
		{"notifications/initialized refused", onReplay("notifications/initialized", func(x *mcptest.Exchange) {
			x.Status(http.StatusServiceUnavailable, "")
		}), "POST: HTTP 503 Service Unavailable", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: tt.replay})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
			c := h.initialize(t)
			srv.Expire("s1")
			_, err := c.Call(testCtx(t), "tools/list", nil)
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("got %v, want %q", err, tt.errHas)
			}
			var ae *AuthError
			if tt.auth != errors.As(err, &ae) {
				t.Errorf("got %T, an *AuthError: %v", err, tt.auth)
			}
		})
	}
}

// onReplay scripts the answer to method once a session has expired (that
// is, to the second initialize and what follows it).
func onReplay(method string, answer func(x *mcptest.Exchange)) func(x *mcptest.Exchange) bool {
	return func(x *mcptest.Exchange) bool {
		replay := x.RPCMethod == "initialize" && x.ProtocolVersion != "" || x.SessionID == "s2"
		if x.RPCMethod != method || !replay {
			return false
		}
		answer(x)
		return true
	}
}

func TestHTTPReinitializeOnAStream(t *testing.T) {
	t.Parallel()
	// A server that answers everything, initialize too, with an event stream.
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{SSE: true, Post: answerTo("tools/list", sessionEcho)})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	c := h.initialize(t)
	srv.Expire("s1")
	if got, err := c.Call(testCtx(t), "tools/list", nil); err != nil || string(got) != `{"session":"s2"}` {
		t.Fatalf("got %s, %v", got, err)
	}
}
