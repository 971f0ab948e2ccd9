package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// rememberedModern is what a run that found the modern era keeps.
var rememberedModern = State{Version: ModernVersion, Modern: true,
	InitializeResult: parsedInit(`{"protocolVersion":"2026-07-28","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`)}

// recalledClient makes a client of a server remembered as rec says, with
// the probe's waits long (the tests are about answers, not silence).
func recalledClient(t *testing.T, rec *Recall) (*Client, *memTransport) {
	t.Helper()
	s, m := newTestSession(t, SessionOptions{})
	c, err := Initialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, Recall: rec, DiscoverWait: testWait, silenceWait: testWait})
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

// methods reads n messages the client wrote and returns their methods.
func methods(t *testing.T, m *memTransport, n int) ([]string, []wireMsg) {
	t.Helper()
	var names []string
	var msgs []wireMsg
	for range n {
		w := m.nextMsg(t)
		names = append(names, w.Method)
		msgs = append(msgs, w)
	}
	return names, msgs
}

func reply(t *testing.T, m *memTransport, w wireMsg, result string) {
	t.Helper()
	m.send(t, `{"jsonrpc":"2.0","id":`+string(w.ID)+`,"result":`+result+`}`)
}

func refuse(t *testing.T, m *memTransport, w wireMsg, code int, msg string) {
	t.Helper()
	m.send(t, `{"jsonrpc":"2.0","id":`+string(w.ID)+`,"error":{"code":`+jsonInt(code)+`,"message":"`+msg+`"}}`)
}

func jsonInt(n int) string { b, _ := json.Marshal(n); return string(b) }

// A server remembered in the initialize era gets initialize first, and
// nothing before it: no probe.
func TestRecalledInitializeEraIsNotProbed(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, Recall: &Recall{State: State{Version: "2025-06-18"}}})
	req := readInitialize(t, m, initParams(LatestVersion))
	reply(t, m, req, `{"protocolVersion":"2025-06-18","capabilities":{}}`)
	r := waitFor(t, init)
	if r.err != nil || r.c.Modern() {
		t.Fatalf("Initialize = %v, modern %v", r.err, r.c != nil && r.c.Modern())
	}
	if w := m.nextMsg(t); w.Method != "notifications/initialized" {
		t.Errorf("then %s, want notifications/initialized", w.Method)
	}
	if st, _, ok := r.c.Learnt(); !ok || st.Modern || st.Version != "2025-06-18" {
		t.Errorf("Learnt = %+v, %v", st, ok)
	}
}

// A server remembered in the modern era gets server/discover at once, and
// a list rides right behind it, before its answer; the discover answer
// settles the era (its capabilities replace the remembered ones) and the
// list's answer is the call's.
func TestRecalledModernListRidesBehindDiscover(t *testing.T) {
	c, m := recalledClient(t, &Recall{State: rememberedModern})
	if !c.Modern() || !c.HasCapability("tools") || c.HasCapability("prompts") {
		t.Fatalf("the remembered era is not the client's: modern %v", c.Modern())
	}
	if _, _, ok := c.Learnt(); ok {
		t.Error("Learnt before the server said anything")
	}
	call := goCall(t.Context(), c.Call, "tools/list", nil)
	got, msgs := methods(t, m, 2) // both written before any answer
	if d := cmp.Diff([]string{"server/discover", "tools/list"}, got); d != "" {
		t.Fatalf("sent (-want +got):\n%s", d)
	}
	if !strings.Contains(string(msgs[1].Params), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) {
		t.Errorf("the list is not stamped: %s", msgs[1].Params)
	}
	reply(t, m, msgs[0], `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"prompts":{}},"resultType":"complete","ttlMs":0}`)
	reply(t, m, msgs[1], `{"tools":[],"resultType":"complete"}`)
	if r := waitFor(t, call); r.err != nil || string(r.result) != `{"tools":[],"resultType":"complete"}` {
		t.Fatalf("tools/list = %s, %v", r.result, r.err)
	}
	if !c.HasCapability("prompts") {
		t.Error("the discover answer's capabilities are not the client's")
	}
	st, disc, ok := c.Learnt()
	if !ok || !st.Modern || !strings.Contains(string(disc), `"ttlMs":0`) {
		t.Errorf("Learnt = %+v, %s, %v", st, disc, ok)
	}
	m.assertQuiet(t)
}

// A tools/call never rides before the era is settled: here the server
// answers server/discover as one of the initialize era (it no longer
// speaks the modern one), and initialize goes out before the call.
func TestRecalledModernCallWaitsForTheEra(t *testing.T) {
	c, m := recalledClient(t, &Recall{State: rememberedModern})
	call := goCall(t.Context(), c.Call, "tools/call", json.RawMessage(`{"name":"x"}`))
	disc := m.nextMsg(t)
	refuse(t, m, disc, CodeMethodNotFound, "Method not found")
	got, msgs := methods(t, m, 1)
	if got[0] != "initialize" {
		t.Fatalf("after the legacy answer: %s, want initialize", got[0])
	}
	reply(t, m, msgs[0], `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}`)
	got, msgs = methods(t, m, 2)
	if d := cmp.Diff([]string{"notifications/initialized", "tools/call"}, got); d != "" {
		t.Fatalf("then (-want +got):\n%s", d)
	}
	if strings.Contains(string(msgs[1].Params), "io.modelcontextprotocol/") {
		t.Errorf("the call carries the modern _meta in the initialize era: %s", msgs[1].Params)
	}
	reply(t, m, msgs[1], `{"content":[]}`)
	if r := waitFor(t, call); r.err != nil {
		t.Fatal(r.err)
	}
	if c.Modern() {
		t.Error("still modern")
	}
	if st, _, ok := c.Learnt(); !ok || st.Modern || st.Version != "2025-11-25" {
		t.Errorf("Learnt = %+v, %v", st, ok)
	}
}

// A list that rode behind server/discover to a server that no longer
// speaks the modern era is not taken: it goes again after initialize.
func TestRecalledModernServerNowOfTheInitializeEra(t *testing.T) {
	c, m := recalledClient(t, &Recall{State: rememberedModern})
	call := goCall(t.Context(), c.Call, "tools/list", nil)
	_, msgs := methods(t, m, 2)
	refuse(t, m, msgs[0], CodeMethodNotFound, "Method not found")
	reply(t, m, msgs[1], `{"tools":[{"name":"legacy-semantics"}]}`) // a lenient server answered it anyway
	listedAfterInitialize(t, m, call)
}

// listedAfterInitialize answers the initialize that must come next, and
// the tools/list that must follow it and be the call's.
func listedAfterInitialize(t *testing.T, m *memTransport, call <-chan callResult) {
	t.Helper()
	ini := m.nextMsg(t)
	if ini.Method != "initialize" {
		t.Fatalf("sent %s, want initialize", ini.Method)
	}
	reply(t, m, ini, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}`)
	got, msgs := methods(t, m, 2)
	if d := cmp.Diff([]string{"notifications/initialized", "tools/list"}, got); d != "" {
		t.Fatalf("then (-want +got):\n%s", d)
	}
	reply(t, m, msgs[1], `{"tools":[]}`)
	if r := waitFor(t, call); r.err != nil || string(r.result) != `{"tools":[]}` {
		t.Fatalf("tools/list = %s, %v", r.result, r.err)
	}
}

// A fresh remembered discover result is the answer: nothing is asked
// before the first request, whose success settles the era. A refusal a
// server of the initialize era could give is checked with a probe: the
// modern server's own refusal stands; a server of the initialize era gets
// initialize and the request again.
func TestRecalledFreshDiscover(t *testing.T) {
	t.Run("success", func(t *testing.T) {
		c, m := recalledClient(t, &Recall{State: rememberedModern, Fresh: true})
		call := goCall(t.Context(), c.Call, "tools/call", json.RawMessage(`{"name":"x"}`))
		w := m.nextMsg(t)
		if w.Method != "tools/call" {
			t.Fatalf("first message %s, want tools/call", w.Method)
		}
		reply(t, m, w, `{"content":[],"resultType":"complete"}`)
		if r := waitFor(t, call); r.err != nil {
			t.Fatal(r.err)
		}
		if _, _, ok := c.Learnt(); ok {
			t.Error("Learnt: the era was only remembered")
		}
		if err := c.Settle(t.Context()); err != nil {
			t.Error(err)
		}
		m.assertQuiet(t)
	})
	t.Run("the modern server's refusal", func(t *testing.T) {
		c, m := recalledClient(t, &Recall{State: rememberedModern, Fresh: true})
		call := goCall(t.Context(), c.Call, "tools/call", json.RawMessage(`{"name":"x"}`))
		refuse(t, m, m.nextMsg(t), CodeInvalidParams, "unknown tool")
		disc := m.nextMsg(t)
		if disc.Method != "server/discover" {
			t.Fatalf("after the refusal: %s, want server/discover", disc.Method)
		}
		reply(t, m, disc, discovered)
		var ce *CallError
		if r := waitFor(t, call); !errors.As(r.err, &ce) || ce.Err.Code != CodeInvalidParams {
			t.Fatalf("call = %v, want the server's refusal", r.err)
		}
		m.assertQuiet(t)
	})
	t.Run("a server of the initialize era now", func(t *testing.T) {
		c, m := recalledClient(t, &Recall{State: rememberedModern, Fresh: true})
		call := goCall(t.Context(), c.Call, "tools/list", nil)
		refuse(t, m, m.nextMsg(t), -32600, "not initialized")
		refuse(t, m, m.nextMsg(t), CodeMethodNotFound, "Method not found") // server/discover
		listedAfterInitialize(t, m, call)
		if c.Modern() {
			t.Error("still modern")
		}
	})
}

// Calls at once on a remembered era (a batch) are settled by one of them:
// the others wait for the server's word, then go in the era it gave.
func TestRecalledConcurrentCalls(t *testing.T) {
	c, m := recalledClient(t, &Recall{State: rememberedModern})
	first := goCall(t.Context(), c.Call, "tools/list", nil)
	second := goCall(t.Context(), c.Call, "prompts/list", nil)
	got, msgs := methods(t, m, 2) // server/discover, and the list that rides behind it
	if got[0] != "server/discover" {
		t.Fatalf("first message %s", got[0])
	}
	reply(t, m, msgs[0], discovered)
	reply(t, m, msgs[1], `{"`+strings.TrimSuffix(msgs[1].Method, "/list")+`":[]}`)
	later := m.nextMsg(t)
	if later.Method == msgs[1].Method || !strings.HasSuffix(later.Method, "/list") {
		t.Fatalf("then %s", later.Method)
	}
	reply(t, m, later, `{}`)
	for _, ch := range []<-chan callResult{first, second} {
		if r := waitFor(t, ch); r.err != nil {
			t.Error(r.err)
		}
	}
	m.assertQuiet(t)
}

// A remembered server that never answers server/discover leaves the call
// to its context: it ends with it, and nothing waits on.
func TestRecalledSilentServer(t *testing.T) {
	c, m := recalledClient(t, &Recall{State: rememberedModern})
	ctx, cancel := context.WithCancel(t.Context())
	call := goCall(ctx, c.Call, "tools/call", json.RawMessage(`{"name":"x"}`))
	if w := m.nextMsg(t); w.Method != "server/discover" {
		t.Fatalf("sent %s", w.Method)
	}
	cancel()
	if r := waitFor(t, call); !errors.Is(r.err, context.Canceled) {
		t.Errorf("call = %v, want it cancelled", r.err)
	}
}

// The wait for a remembered era's answer is bounded by ConnectLimit on
// the caller's clock of the start, when it gives one (a clock that stops
// while a browser login waits for the user).
func TestRecalledStartOnTheCallersClock(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	limit := &TimeoutError{Connect: true, Setting: "--connect-timeout", Timeout: 42 * time.Second}
	var asked []time.Duration
	clock := func(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
		if cause != limit {
			t.Errorf("the clock's cause is %v", cause)
		}
		asked = append(asked, d)
		return context.WithCancel(ctx)
	}
	c, err := Initialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, Recall: &Recall{State: rememberedModern},
		DiscoverWait: testWait, silenceWait: testWait, ConnectLimit: limit, StartClock: clock})
	if err != nil {
		t.Fatal(err)
	}
	call := goCall(t.Context(), c.Call, "tools/list", nil)
	for range 2 { // server/discover, and the list riding behind it
		w := m.nextMsg(t)
		switch w.Method {
		case "server/discover":
			reply(t, m, w, `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`)
		default:
			reply(t, m, w, `{"tools":[]}`)
		}
	}
	if r := waitFor(t, call); r.err != nil {
		t.Fatal(r.err)
	}
	if len(asked) != 1 || asked[0] != 42*time.Second {
		t.Errorf("the caller's clock was asked for %v, want once for 42s", asked)
	}
}

// handClock is a start clock the test ends by hand: the connect bound
// reached when the test says, not when time says.
type handClock struct {
	limit *TimeoutError
	end   chan struct{}
}

func newHandClock() *handClock {
	return &handClock{limit: &TimeoutError{Connect: true, Setting: "--connect-timeout", Timeout: time.Minute}, end: make(chan struct{})}
}

func (h *handClock) start(ctx context.Context, _ time.Duration, cause error) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() { // ends with the context, or ends it
		select {
		case <-h.end:
			cancel(cause)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// silentRecall is a client of a server remembered as rec whose first
// request is watched for silence at once (the probe's first wait is
// short: the tests wait for what it sends, not for time), the connect
// bound on clock.
func silentRecall(t *testing.T, rec *Recall, clock *handClock) (*Client, *memTransport) {
	t.Helper()
	s, m := newTestSession(t, SessionOptions{})
	c, err := Initialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, Recall: rec,
		DiscoverWait: time.Millisecond, silenceWait: testWait, ConnectLimit: clock.limit, StartClock: clock.start})
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

// requestAndProbe reads the first request of a silentRecall client, and
// the probe that goes out beside it, in whichever order the two
// goroutines write them.
func requestAndProbe(t *testing.T, m *memTransport, method string) (req, disc wireMsg) {
	t.Helper()
	a, b := m.nextMsg(t), m.nextMsg(t)
	if a.Method == "server/discover" {
		a, b = b, a
	}
	if a.Method != method || b.Method != "server/discover" {
		t.Fatalf("sent %s and %s, want %s and server/discover", a.Method, b.Method, method)
	}
	return a, b
}

// A server remembered with a fresh discover result that now says nothing
// to a request before initialize (it is of the initialize era now) is
// found out by a probe beside the silent request, within the connect
// bound: initialize, and the request again in the era found; the silent
// request is abandoned without a word (no notifications/cancelled before
// initialize). In a synctest bubble, so that the probe's first wait (a
// millisecond) passes where the test lets time pass, and only there.
func TestRecalledFreshDiscoverSilence(t *testing.T) {
	t.Run("now of the initialize era", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			c, m := silentRecall(t, &Recall{State: rememberedModern, Fresh: true}, newHandClock())
			call := goCall(t.Context(), c.Call, "tools/list", nil)
			_, disc := requestAndProbe(t, m, "tools/list") // the silence is a sign
			refuse(t, m, disc, CodeMethodNotFound, "Method not found")
			listedAfterInitialize(t, m, call)
			if c.Modern() {
				t.Error("still modern")
			}
			if st, _, ok := c.Learnt(); !ok || st.Modern {
				t.Errorf("Learnt = %+v, %v: the era found is not to be remembered", st, ok)
			}
			synctest.Wait()
			m.assertQuiet(t)
		})
	})
	t.Run("now of the initialize era, a call", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			c, m := silentRecall(t, &Recall{State: rememberedModern, Fresh: true}, newHandClock())
			call := goCall(t.Context(), c.Call, "tools/call", json.RawMessage(`{"name":"pay"}`))
			_, disc := requestAndProbe(t, m, "tools/call") // delivered, and unanswered
			refuse(t, m, disc, CodeMethodNotFound, "Method not found")
			ini := m.nextMsg(t)
			if ini.Method != "initialize" {
				t.Fatalf("sent %s, want initialize", ini.Method)
			}
			reply(t, m, ini, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}`)
			if w := m.nextMsg(t); w.Method != "notifications/initialized" {
				t.Fatalf("sent %s, want notifications/initialized", w.Method)
			}
			r := waitFor(t, call)
			if !errors.As(r.err, new(*LostError)) || !strings.Contains(r.err.Error(), "the tool may or may not have run") {
				t.Fatalf("call = %v, want a *LostError", r.err)
			}
			synctest.Wait()
			m.assertQuiet(t) // not sent again
		})
	})
	t.Run("still modern, busy with the request", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			c, m := silentRecall(t, &Recall{State: rememberedModern, Fresh: true}, newHandClock())
			call := goCall(t.Context(), c.Call, "tools/call", json.RawMessage(`{"name":"slow"}`))
			first, disc := requestAndProbe(t, m, "tools/call")
			reply(t, m, disc, discovered)                                // within the probe's first wait: no ping
			reply(t, m, first, `{"content":[],"resultType":"complete"}`) // the request's answer, after the probe's
			if r := waitFor(t, call); r.err != nil || !strings.Contains(string(r.result), `"content":[]`) {
				t.Fatalf("call = %s, %v", r.result, r.err)
			}
			synctest.Wait()
			m.assertQuiet(t) // not sent again
		})
	})
	t.Run("the request answered while the probe waits", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			c, m := silentRecall(t, &Recall{State: rememberedModern, Fresh: true}, newHandClock())
			call := goCall(t.Context(), c.Call, "tools/call", json.RawMessage(`{"name":"slow"}`))
			first, _ := requestAndProbe(t, m, "tools/call")
			reply(t, m, first, `{"content":[],"resultType":"complete"}`)
			if r := waitFor(t, call); r.err != nil {
				t.Fatal(r.err)
			}
			synctest.Wait()
			m.assertQuiet(t)
		})
	})
	t.Run("silent to everything", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			clock := newHandClock()
			rec := &Recall{State: rememberedModern, Fresh: true, Where: "/state/servers/abc.json"}
			c, m := silentRecall(t, rec, clock)
			call := goCall(t.Context(), c.Call, "tools/call", json.RawMessage(`{"name":"x"}`))
			requestAndProbe(t, m, "tools/call")
			if w := m.nextMsg(t); w.Method != "ping" { // the probe's first wait passes while the test waits
				t.Fatalf("sent %s, want the probe's ping", w.Method)
			}
			close(clock.end) // the connect bound
			r := waitFor(t, call)
			var ce *ChangedError
			var te *TimeoutError
			if !errors.As(r.err, &ce) || !errors.As(r.err, &te) || !te.Connect {
				t.Fatalf("call = %v, want a ChangedError of the connect bound", r.err)
			}
			for _, want := range []string{"remembered from an earlier run", "server/discover result kept", "--connect-timeout", "is forgotten (/state/servers/abc.json)"} {
				if !strings.Contains(r.err.Error(), want) {
					t.Errorf("%q does not say %q", r.err, want)
				}
			}
			synctest.Wait()
			m.assertQuiet(t)
		})
	})
}

// A first answer that refuses the remembered version, or is no object,
// is a sign too: a probe finds what the server speaks now.
func TestRecalledFreshDiscoverOddAnswers(t *testing.T) {
	t.Run("a version mcpv does not speak", func(t *testing.T) {
		rec := &Recall{State: rememberedModern, Fresh: true, Where: "/state/servers/abc.json"}
		c, m := recalledClient(t, rec)
		call := goCall(t.Context(), c.Call, "tools/list", nil)
		w := m.nextMsg(t)
		m.send(t, `{"jsonrpc":"2.0","id":`+string(w.ID)+`,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2099-01-01"]}}}`)
		disc := m.nextMsg(t)
		if disc.Method != "server/discover" {
			t.Fatalf("then %s, want server/discover", disc.Method)
		}
		m.send(t, `{"jsonrpc":"2.0","id":`+string(disc.ID)+`,"error":{"code":-32022,"message":"unsupported","data":{"supported":["2099-01-01"]}}}`)
		var ce *ChangedError
		if r := waitFor(t, call); !errors.As(r.err, &ce) || !strings.Contains(r.err.Error(), "is forgotten (/state/servers/abc.json)") {
			t.Fatalf("call = %v, want a ChangedError", r.err)
		}
	})
	t.Run("a result that is no object, from a server of the initialize era now", func(t *testing.T) {
		c, m := recalledClient(t, &Recall{State: rememberedModern, Fresh: true})
		call := goCall(t.Context(), c.Call, "tools/list", nil)
		reply(t, m, m.nextMsg(t), `"not initialized"`)
		refuse(t, m, m.nextMsg(t), CodeMethodNotFound, "Method not found") // server/discover
		listedAfterInitialize(t, m, call)
	})
}

// A server remembered in the initialize era that now says nothing to
// initialize gets server/discover after it: a modern answer settles the
// modern era (and is remembered); silence to the connect bound is the
// memory's error.
func TestRecalledInitializeEraSilence(t *testing.T) {
	legacy := &Recall{State: State{Version: "2025-11-25"}, Where: "/state/servers/abc.json"}
	t.Run("now modern", func(t *testing.T) {
		s, m := newTestSession(t, SessionOptions{})
		clock := newHandClock()
		init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, Recall: legacy,
			DiscoverWait: time.Millisecond, silenceWait: testWait, ConnectLimit: clock.limit, StartClock: clock.start})
		readInitialize(t, m, initParams(LatestVersion))
		disc := m.nextMsg(t)
		if disc.Method != "server/discover" {
			t.Fatalf("then %s, want server/discover", disc.Method)
		}
		reply(t, m, disc, discovered)
		r := waitFor(t, init)
		if r.err != nil || !r.c.Modern() {
			t.Fatalf("Initialize = %v, modern %v", r.err, r.c != nil && r.c.Modern())
		}
		if st, _, ok := r.c.Learnt(); !ok || !st.Modern {
			t.Errorf("Learnt = %+v, %v", st, ok)
		}
		m.assertQuiet(t)
	})
	t.Run("slow, still of the initialize era", func(t *testing.T) {
		s, m := newTestSession(t, SessionOptions{})
		init := goInitialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, Recall: legacy,
			DiscoverWait: time.Millisecond, silenceWait: testWait})
		req := readInitialize(t, m, initParams(LatestVersion))
		disc := m.nextMsg(t)
		reply(t, m, req, `{"protocolVersion":"2025-11-25","capabilities":{}}`)
		refuse(t, m, disc, CodeMethodNotFound, "Method not found")
		if r := waitFor(t, init); r.err != nil || r.c.Modern() {
			t.Fatalf("Initialize = %v", r.err)
		}
	})
	t.Run("silent to everything", func(t *testing.T) {
		s, m := newTestSession(t, SessionOptions{})
		clock := newHandClock()
		ctx, cancel := clock.start(t.Context(), time.Minute, clock.limit) // Open's bound on Initialize
		defer cancel()
		init := goInitialize(ctx, s, ClientOptions{Info: testInfo(), Probe: true, Recall: legacy,
			DiscoverWait: time.Millisecond, silenceWait: testWait})
		readInitialize(t, m, initParams(LatestVersion))
		m.nextMsg(t) // server/discover
		close(clock.end)
		var ce *ChangedError
		if r := waitFor(t, init); !errors.As(r.err, &ce) || !strings.Contains(r.err.Error(), "(the initialize era, 2025-11-25)") {
			t.Fatalf("Initialize = %v, want a ChangedError", r.err)
		}
	})
}
