package mcp

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// The ways an answer is lost once the server has read the request: a
// replica killed mid-call, alone or behind a balancer.
var losses = []struct {
	name string
	lose func(x *mcptest.Exchange)
}{
	{"the connection breaks once the request is read", func(x *mcptest.Exchange) { x.Drop() }},
	{"a balancer answers 502", func(x *mcptest.Exchange) {
		x.Status(http.StatusBadGateway, "<html><title>502 Bad Gateway</title></html>", "Content-Type", "text/html")
	}},
	{"a balancer answers 504", func(x *mcptest.Exchange) { x.Status(http.StatusGatewayTimeout, "") }},
	{"the answer's stream ends before the response", func(x *mcptest.Exchange) {
		e := x.SSE()
		e.Raw("retry: 1\n")
		e.Event("", note("working"))
	}},
	{"the answer's body is cut", func(x *mcptest.Exchange) {
		x.W.Header().Set("Content-Type", "application/json")
		x.W.Header().Set("Content-Length", "100")
		x.W.WriteHeader(http.StatusOK)
		io.WriteString(x.W, `{"jsonrpc":"2.0","id":`)
		x.W.(http.Flusher).Flush()
		x.Drop()
	}},
	{"a balancer answers 502 with a JSON-RPC error of its own", func(x *mcptest.Exchange) {
		x.Status(http.StatusBadGateway, `{"jsonrpc":"2.0","id":`+string(x.ID)+`,"error":{"code":-32603,"message":"upstream gone"}}`, "Content-Type", "application/json")
	}},
}

// eras dials the fake in each era, with the user's header (-H): the
// modern one, stateless, and the initialize era's session.
var eras = []struct {
	name string
	dial func(t *testing.T, post func(x *mcptest.Exchange) bool, header http.Header) (*httpConn, *mcptest.HTTPServer)
}{
	{"2026-07-28", func(t *testing.T, post func(x *mcptest.Exchange) bool, header http.Header) (*httpConn, *mcptest.HTTPServer) {
		srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: post})
		h := dialHTTP(t, HTTPOptions{URL: srv.URL, Header: header}, SessionOptions{})
		h.tr.SetProtocolVersion(ModernVersion)
		return h, srv
	}},
	{"initialize era", func(t *testing.T, post func(x *mcptest.Exchange) bool, header http.Header) (*httpConn, *mcptest.HTTPServer) {
		srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: post})
		h := dialHTTP(t, HTTPOptions{URL: srv.URL, Header: header}, SessionOptions{})
		h.initialize(t)
		return h, srv
	}},
}

// A tools/call whose answer is lost is never sent again: it fails (a
// transport error, exit 4) saying that the tool may or may not have run.
func TestLostCallIsNotSentAgain(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		for _, loss := range losses {
			t.Run(era.name+"/"+loss.name, func(t *testing.T) {
				t.Parallel()
				h, srv := era.dial(t, answerTo("tools/call", loss.lose), nil)
				_, err := h.s.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"pay"}`))
				var le *LostError
				if !errors.As(err, &le) || !errors.As(err, new(*TransportError)) || !strings.Contains(err.Error(), "the tool may or may not have run") || strings.Count(err.Error(), "tools/call") != 1 {
					t.Errorf("Call = %v, want a *LostError (a transport error) saying the tool may have run, the method named once", err)
				}
				if n := len(summary(srv.Requests(), rpc("tools/call"))); n != 1 {
					t.Errorf("tools/call sent %d times, want once", n)
				}
			})
		}
	}
}

// A key the user sets (-H 'Idempotency-Key: …', or X-Idempotency-Key)
// reaches the server as set, and does not make a call one that net/http
// sends again: net/http resends any request carrying either header where a
// kept connection closed under it once the server had read it.
func TestUserIdempotencyKeySendsNoCallTwice(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		for _, key := range []string{"Idempotency-Key", "X-Idempotency-Key"} {
			t.Run(era.name+"/"+key, func(t *testing.T) {
				t.Parallel()
				var seen atomic.Value
				h, srv := era.dial(t, answerTo("tools/call", func(x *mcptest.Exchange) {
					seen.Store(x.R.Header.Values(key))
					x.Drop()
				}), http.Header{key: {"k1"}})
				if _, err := h.s.Call(testCtx(t), "tools/list", json.RawMessage(`{}`)); errors.As(err, new(*TransportError)) { // answered (an error is an answer): the call goes on the kept connection, which net/http would resend on
					t.Fatal(err)
				}
				_, err := h.s.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"pay"}`))
				if !errors.As(err, new(*LostError)) {
					t.Errorf("Call = %v, want a *LostError", err)
				}
				if n := len(summary(srv.Requests(), rpc("tools/call"))); n != 1 {
					t.Errorf("tools/call sent %d times, want once", n)
				}
				if got, _ := seen.Load().([]string); !slices.Equal(got, []string{"k1"}) {
					t.Errorf("the server got %s: %q, want the user's k1", key, got)
				}
			})
		}
	}
}

// In the modern era, which resumes no stream, a request that changes
// nothing whose answer is lost is asked for again, under a new id, and
// its answer reaches the caller; not after a balancer's 502 or 504, which
// it would answer again at once. In the initialize era, where a stream
// is resumed and a session dies with its server, it fails as it came,
// sent once, and is no *LostError: it did nothing; but a kept connection
// closed under it with no answer (a server that ends kept connections
// without saying so, or one that died) has net/http send it again, once,
// as it does a GET, under the same id.
func TestLostListIsAskedAgain(t *testing.T) {
	t.Parallel()
	for i, era := range eras {
		for _, loss := range losses {
			t.Run(era.name+"/"+loss.name, func(t *testing.T) {
				t.Parallel()
				var n atomic.Int32
				h, srv := era.dial(t, answerTo("tools/list", func(x *mcptest.Exchange) {
					if n.Add(1) == 1 {
						loss.lose(x)
						return
					}
					x.Reply(x.Result(`{"tools":[]}`))
				}), nil)
				res, err := h.s.Call(testCtx(t), "tools/list", nil)
				var ids []string
				for _, r := range srv.Requests() {
					if r.RPCMethod == "tools/list" {
						ids = append(ids, string(r.ID))
					}
				}
				if i > 0 && loss.name == "the connection breaks once the request is read" {
					// net/http sends it again only where the connection was a kept one, which
					// depends on whether the last answer's connection was back in its pool yet.
					if again := err == nil && len(ids) == 2 && ids[0] == ids[1]; !again && (err == nil || errors.As(err, new(*LostError)) || len(ids) != 1) {
						t.Errorf("Call = %s, %v, sent under ids %v; want it sent again on a new connection under its id, or failed as it came, sent once", res, err, ids)
					}
					return
				}
				if i > 0 || strings.Contains(loss.name, "balancer") {
					if err == nil || errors.As(err, new(*LostError)) || len(ids) != 1 {
						t.Errorf("Call = %s, %v, sent %d times; want it failed as it came, sent once", res, err, len(ids))
					}
					return
				}
				if err != nil || string(res) != `{"tools":[]}` {
					t.Fatalf("Call = %s, %v", res, err)
				}
				if len(ids) != 2 || ids[0] == ids[1] {
					t.Errorf("tools/list sent under ids %v, want twice under two", ids)
				}
			})
		}
	}
}

// A list whose answer is lost every time is asked for MaxResumes times
// more, then fails.
func TestLostListIsAskedAgainBoundedly(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: answerTo("tools/list", losses[3].lose)})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, MaxResumes: 2}, SessionOptions{})
	h.tr.SetProtocolVersion(ModernVersion)
	_, err := h.s.Call(testCtx(t), "tools/list", nil)
	if err == nil || errors.As(err, new(*LostError)) || !strings.Contains(err.Error(), "lost 3 times") || strings.Count(err.Error(), "tools/list") != 1 {
		t.Errorf("Call = %v, want the loss said after three sends", err)
	}
	if n := len(summary(srv.Requests(), rpc("tools/list"))); n != 3 {
		t.Errorf("tools/list sent %d times, want 3", n)
	}
}

// In the initialize era a list whose kept connection breaks under it
// every time goes a few times at most: net/http sends it again on each
// kept connection it holds for the host (none, when the last answer's is
// not back in its pool yet), then on a new one, which breaks too, and
// that is the end of it.
func TestBrokenConnectionsSendAReadAFewTimesAtMost(t *testing.T) {
	t.Parallel()
	h, srv := eras[1].dial(t, answerTo("tools/list", losses[0].lose), nil)
	if _, err := h.s.Call(testCtx(t), "tools/list", nil); err == nil {
		t.Error("Call answered, on connections that broke each time")
	}
	if n := len(summary(srv.Requests(), rpc("tools/list"))); n < 1 || n > http.DefaultMaxIdleConnsPerHost+2 {
		t.Errorf("tools/list sent %d times, want again on each kept connection and one new, at most %d", n, http.DefaultMaxIdleConnsPerHost+2)
	}
}

// What was not delivered is no loss: a refusal (503 from a replica
// that drains, read no further) and a connection nothing accepted are
// failures of their own, which say nothing of a tool having run.
func TestUndeliveredIsNoLoss(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: answerTo("tools/call", func(x *mcptest.Exchange) {
		x.Status(http.StatusServiceUnavailable, "draining", "Retry-After", "1")
	})})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	h.tr.SetProtocolVersion(ModernVersion)
	_, err := h.s.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"pay"}`))
	if err == nil || errors.As(err, new(*LostError)) {
		t.Errorf("a 503: %v, want an error that is no loss", err)
	}
	if n := len(summary(srv.Requests(), rpc("tools/call"))); n != 1 {
		t.Errorf("tools/call reached the server %d times, want once (the 503)", n)
	}

	gone := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true})
	gone.Die()
	h = dialHTTP(t, HTTPOptions{URL: gone.URL}, SessionOptions{})
	h.tr.SetProtocolVersion(ModernVersion)
	_, err = h.s.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"pay"}`))
	if err == nil || errors.As(err, new(*LostError)) {
		t.Errorf("nothing listening: %v, want an error that is no loss", err)
	}
}

// An initialize whose answer is lost fails as it came: a session opened
// twice does nothing of the user's, and nothing is said of acting.
func TestLostInitializeIsNoLostError(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("initialize", losses[0].lose)})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	_, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo()})
	if err == nil || errors.As(err, new(*LostError)) || strings.Contains(err.Error(), "may or may not") {
		t.Errorf("Initialize = %v, want the loss as it came", err)
	}
	if n := len(summary(srv.Requests(), rpc("initialize"))); n != 1 {
		t.Errorf("initialize sent %d times, want once", n)
	}
}

// refusingLayer is an authorization layer over the client's transport
// that gives up on a 401 with an error of its own, as mcpv's OAuth layer
// does once it has tried.
type refusingLayer struct{ inner http.RoundTripper }

func (l refusingLayer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.inner.RoundTrip(r)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		resp.Body.Close()
		return nil, errors.New("the server still refuses; giving up")
	}
	return resp, err
}

// A request written in full and then refused by a layer above the
// connection was answered: it is no loss, and is not sent again.
func TestRefusedAboveTheConnectionIsNoLoss(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		x.Status(http.StatusUnauthorized, "")
		return true
	}})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, Client: &http.Client{Transport: refusingLayer{testkit.Pool(t)}}}, SessionOptions{})
	h.tr.SetProtocolVersion(ModernVersion)
	_, err := h.s.Call(testCtx(t), "tools/list", nil)
	if err == nil || !strings.Contains(err.Error(), "giving up") || strings.Contains(err.Error(), "lost") {
		t.Errorf("Call = %v, want the layer's refusal as it came", err)
	}
	if n := len(summary(srv.Requests(), rpc("tools/list"))); n != 1 {
		t.Errorf("tools/list sent %d times, want once", n)
	}
}

// A session that ends under a call it delivered (a stdio server that
// exits mid-call) fails the call with a *LostError, saying the tool may
// or may not have run, a transport error still; a list pending at the
// same end fails as it did, with the transport's error alone.
func TestSessionEndedUnderACall(t *testing.T) {
	t.Parallel()
	s, m := newTestSession(t, SessionOptions{})
	call := goCall(t.Context(), s.Call, "tools/call", json.RawMessage(`{"name":"pay"}`))
	list := goCall(t.Context(), s.Call, "tools/list", nil)
	m.nextMsg(t)
	m.nextMsg(t)
	m.fail <- &TransportError{Op: "server exited with status 3"}
	c, l := waitFor(t, call), waitFor(t, list)
	var le *LostError
	if !errors.As(c.err, &le) || !errors.As(c.err, new(*TransportError)) || !strings.Contains(c.err.Error(), "the tool may or may not have run") ||
		!strings.Contains(c.err.Error(), "exited with status 3") || strings.Count(c.err.Error(), "tools/call") != 1 {
		t.Errorf("call = %v, want a *LostError (a transport error) naming the exit, the method once", c.err)
	}
	if l.err == nil || errors.As(l.err, new(*LostError)) || !strings.Contains(l.err.Error(), "exited with status 3") {
		t.Errorf("list = %v, want the transport's error alone", l.err)
	}
}

// A list asked again under a new id is handed over under the session's
// id however its answer comes: a JSON object, or a JSON array holding
// the response beside a notification and another's error (as a body or
// an event), which was handed over as {} and its caller left waiting.
// The response alone is handed over under the session's id; a member
// named method inside the result does not make it a notification.
func TestAskedAgainAnswerInAnArray(t *testing.T) {
	t.Parallel()
	answers := map[string]func(x *mcptest.Exchange, msg string){
		"body": func(x *mcptest.Exchange, msg string) {
			x.Status(http.StatusOK, "["+msg+"]", "Content-Type", "application/json")
		},
		"event": func(x *mcptest.Exchange, msg string) { x.SSE().Event("", "["+msg+"]") },
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			h, _ := eras[0].dial(t, answerTo("tools/list", func(x *mcptest.Exchange) {
				if n.Add(1) == 1 {
					x.Drop()
					return
				}
				answer(x, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"a parse error of another line"}},`+
					x.Result(`{"tools":[],"note":{"method":"a result member named method"}}`)+`,{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
			}), nil)
			res, err := h.s.Call(testCtx(t), "tools/list", nil)
			if err != nil || string(res) != `{"tools":[],"note":{"method":"a result member named method"}}` {
				t.Fatalf("Call = %s, %v", res, err)
			}
		})
	}
}
