package mcp

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// The era probe's outcome depends on what the server answers, never on how
// long it takes to start. A server is simulated here as one that reads its
// input in order once it is up: the test decides when it "starts".

// A server still starting answers nothing: the ping that follows the wait
// goes unanswered too, and no initialize is sent. Once the server starts it
// answers server/discover (a modern answer) and then the ping, and the
// session is modern.
func TestProbeWaitsForASlowServer(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, DiscoverWait: time.Millisecond, silenceWait: time.Hour})
	disc := m.nextMsg(t)
	ping := m.nextMsg(t)
	if disc.Method != "server/discover" || ping.Method != "ping" {
		t.Fatalf("sent %s then %s, want server/discover then ping (and no initialize while the server is silent)", disc.Method, ping.Method)
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(disc.ID)+`,"result":`+discovered+`}`)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(ping.ID)+`,"result":{}}`)
	r := waitFor(t, init)
	if r.err != nil || !r.c.Modern() {
		t.Fatalf("Initialize = %v, modern %v; want the modern era", r.err, r.c != nil && r.c.Modern())
	}
	m.assertQuiet(t)
}

// A server that answers the ping but not the server/discover sent before it
// is up and ignoring the probe (servers of the initialize era may drop
// requests before initialize): initialize goes out, and nothing about the
// probe (no cancellation) is sent before it.
func TestProbeIgnoredByAServerThatIsUp(t *testing.T) {
	for _, pingAnswer := range []string{`"result":{}`, `"error":{"code":-32601,"message":"Method not found"}`} {
		s, m := newTestSession(t, SessionOptions{})
		init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, DiscoverWait: time.Millisecond, silenceWait: time.Hour})
		m.nextMsg(t) // server/discover, ignored
		ping := m.nextMsg(t)
		m.send(t, `{"jsonrpc":"2.0","id":`+string(ping.ID)+`,`+pingAnswer+`}`)
		next := m.nextMsg(t)
		if next.Method != "initialize" {
			t.Fatalf("ping answered %s: then %s, want initialize", pingAnswer, next.Method)
		}
		m.send(t, `{"jsonrpc":"2.0","id":`+string(next.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
		r := waitFor(t, init)
		if r.err != nil || r.c.Modern() {
			t.Fatalf("Initialize = %v; want the initialize era", r.err)
		}
		if n := m.nextMsg(t); n.Method != "notifications/initialized" {
			t.Fatalf("after initialize: %s", n.Method)
		}
	}
}

// An answer to server/discover that arrives after initialize went out is
// still taken: the server's refusal of the initialize that followed (as a
// dual-era server may refuse a second handshake) is not the outcome.
func TestProbeTakesALateModernAnswer(t *testing.T) {
	s, m, init, disc, ini := fallenBack(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(disc.ID)+`,"result":`+discovered+`}`)
	r := waitFor(t, init)
	if r.err != nil || !r.c.Modern() {
		t.Fatalf("Initialize = %v; want the modern era from the late answer", r.err)
	}
	// The refusal of initialize, arriving now, is ignored.
	m.send(t, `{"jsonrpc":"2.0","id":`+string(ini.ID)+`,"error":{"code":0,"message":"duplicate \"initialize\" received"}}`)
	// A request of the server's after it: answered, so the reader read
	// the refusal and the session lives on.
	m.send(t, `{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`)
	if a := m.nextMsg(t); string(a.ID) != `"srv-1"` {
		t.Fatalf("after the refusal: %+v, want the answer to the server's ping", a)
	}
	if s.Err() != nil {
		t.Fatalf("the session ended: %v", s.Err())
	}
}

// After the fallback, a legacy error answer to the probe leaves the
// initialize already sent to decide: it is not sent twice.
func TestProbeLegacyAnswerAfterFallback(t *testing.T) {
	_, m, init, disc, ini := fallenBack(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(disc.ID)+`,"error":{"code":-32601,"message":"Method not found"}}`)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(ini.ID)+`,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`)
	r := waitFor(t, init)
	if r.err != nil || r.c.Modern() || r.c.ProtocolVersion() != "2025-06-18" {
		t.Fatalf("Initialize = %v", r.err)
	}
	if n := m.nextMsg(t); n.Method != "notifications/initialized" {
		t.Fatalf("after initialize: %s, want notifications/initialized (initialize sent once)", n.Method)
	}
}

// A refusal of initialize while server/discover is unanswered decides
// nothing: a server of both eras that reads concurrently may refuse it
// before it answers the probe, whose modern answer is then taken.
func TestProbeRefusedInitializeThenModernAnswer(t *testing.T) {
	t.Parallel()
	_, m, init, disc, ini := fallenBack(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(ini.ID)+`,"error":{"code":0,"message":"duplicate \"initialize\" received"}}`)
	// Give the refusal time to be seen alone (a slow machine only makes
	// this test weaker, never failing when it should not).
	select {
	case r := <-init:
		t.Fatalf("Initialize = %v on the refusal alone; want it to wait for server/discover", r.err)
	case <-time.After(50 * time.Millisecond):
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(disc.ID)+`,"result":`+discovered+`}`)
	if r := waitFor(t, init); r.err != nil || !r.c.Modern() {
		t.Fatalf("Initialize = %v; want the modern era", r.err)
	}
}

// The refusal stands when server/discover is answered as a server of the
// initialize era would, or not at all.
func TestProbeRefusedInitializeStands(t *testing.T) {
	const refusal = `"error":{"code":-32600,"message":"refused"}`
	_, m, init, disc, ini := fallenBack(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(ini.ID)+`,`+refusal+`}`)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(disc.ID)+`,"error":{"code":-32601,"message":"Method not found"}}`)
	if r := waitFor(t, init); r.err == nil || !strings.Contains(r.err.Error(), "refused") {
		t.Fatalf("probe answered as legacy: Initialize = %v; want the refusal", r.err)
	}

	// Silence to the probe: the refusal is the outcome once silence has
	// lasted silenceWait.
	s, m := newTestSession(t, SessionOptions{})
	init = goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, DiscoverWait: time.Millisecond, silenceWait: time.Millisecond})
	m.nextMsg(t) // server/discover, never answered
	m.nextMsg(t) // ping, never answered
	ini = m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(ini.ID)+`,`+refusal+`}`)
	if r := waitFor(t, init); r.err == nil || !strings.Contains(r.err.Error(), "refused") {
		t.Fatalf("probe unanswered: Initialize = %v; want the refusal", r.err)
	}
}

// fallenBack starts a probe that falls back: server/discover goes
// unanswered, the ping is answered, and initialize goes out.
func fallenBack(t *testing.T) (*Session, *memTransport, <-chan initResult, wireMsg, wireMsg) {
	t.Helper()
	s, m := newTestSession(t, SessionOptions{})
	init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, DiscoverWait: time.Millisecond, silenceWait: time.Hour})
	disc := m.nextMsg(t)
	ping := m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(ping.ID)+`,"result":{}}`)
	ini := m.nextMsg(t)
	if ini.Method != "initialize" {
		t.Fatalf("after the ping's answer: %s, want initialize", ini.Method)
	}
	return s, m, init, disc, ini
}

// Over HTTP, an answer to the probe that holds no JSON-RPC response (an
// HTML page with 200, an empty body) is a server that is not modern:
// initialize follows. A failure that no server's answer explains names
// no server/discover, and no message names a request twice.
func TestProbeMessagesOverHTTP(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: answerTo("server/discover", func(x *mcptest.Exchange) {
		x.W.Header().Set("Content-Type", "text/html")
		x.W.Write([]byte("<html><title>hello</title></html>"))
	})})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	if c, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo(), Probe: true}); err != nil || c.Modern() {
		t.Fatalf("an HTML answer to the probe: %v; want the initialize era", err)
	}

	// Pinned modern: server/discover is the user's choice, named once.
	h = dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	_, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo(), ProtocolVersion: ModernVersion})
	if err == nil || strings.Count(err.Error(), "server/discover") != 1 {
		t.Errorf("pinned modern, an HTML answer: %v; want server/discover named once", err)
	}

	// Auto, a 500: the probe is not named.
	down := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: answerTo("server/discover", func(x *mcptest.Exchange) {
		x.Status(http.StatusInternalServerError, "database down")
	})})
	h = dialHTTP(t, HTTPOptions{URL: down.URL}, SessionOptions{})
	_, err = Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo(), Probe: true})
	var te *TransportError
	if !errors.As(err, &te) || strings.Contains(err.Error(), "server/discover") || !strings.Contains(err.Error(), "database down") {
		t.Errorf("auto, HTTP 500: %v; want a transport error quoting the server, without server/discover", err)
	}
}

// A server that answers nothing before initialize, not even ping, gets
// initialize after a longer silence; the probe stays pending, and a modern
// answer that comes first is still taken.
func TestProbeSilenceToThePing(t *testing.T) {
	for _, modern := range []bool{false, true} {
		s, m := newTestSession(t, SessionOptions{})
		init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, DiscoverWait: time.Millisecond, silenceWait: time.Millisecond})
		disc, ping, ini := m.nextMsg(t), m.nextMsg(t), m.nextMsg(t)
		if disc.Method != "server/discover" || ping.Method != "ping" || ini.Method != "initialize" {
			t.Fatalf("sent %s, %s, %s; want server/discover, ping, initialize", disc.Method, ping.Method, ini.Method)
		}
		if modern {
			m.send(t, `{"jsonrpc":"2.0","id":`+string(disc.ID)+`,"result":`+discovered+`}`)
		}
		m.send(t, `{"jsonrpc":"2.0","id":`+string(ini.ID)+`,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
		if r := waitFor(t, init); r.err != nil || r.c.Modern() != modern {
			t.Fatalf("probe answered %v: Initialize = %v, modern %v", modern, r.err, r.c != nil && r.c.Modern())
		}
	}
}
