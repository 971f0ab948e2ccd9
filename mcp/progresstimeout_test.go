package mcp

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock hands out timers that fire only when the test says so, and
// tells of each Reset: what restarts a timeout is shown by events, not by
// how fast a machine is.
type fakeClock struct {
	mu     sync.Mutex
	timers []*fakeTimer
	resets chan time.Duration
}

type fakeTimer struct {
	c       *fakeClock
	d       time.Duration
	f       func()
	stopped bool
}

func (c *fakeClock) afterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, d: d, f: f}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool { t.c.resets <- d; return true }
func (t *fakeTimer) Stop() bool                 { t.stopped = true; return true }

// fire runs the timer of duration d as if its time had passed.
func (c *fakeClock) fire(t *testing.T, d time.Duration) {
	t.Helper()
	c.mu.Lock()
	var f func()
	for _, tm := range c.timers {
		if tm.d == d {
			f = tm.f
		}
	}
	c.mu.Unlock()
	if f == nil {
		t.Fatalf("no timer of %v was started", d)
	}
	f()
}

// Each progress notification for a call restarts its timeout, and only
// its own token's: the call lives on past any number of timeouts while
// progress comes, ends with a TimeoutError when a timeout passes without
// progress, and the cap (MaxTimeout) ends it whatever progress says.
func TestProgressRestartsTheTimeout(t *testing.T) {
	const idle, hard = time.Hour, 2 * time.Hour // durations to tell the timers apart; none passes
	start := func(t *testing.T) (*memTransport, *fakeClock, <-chan callResult, wireMsg) {
		s, m := newTestSession(t, SessionOptions{})
		clock := &fakeClock{resets: make(chan time.Duration, 16)}
		c := &Client{s: s, opts: ClientOptions{Timeout: idle, MaxTimeout: hard, AfterFunc: clock.afterFunc}}
		done := goCall(t.Context(), c.Call, "tools/call", []byte(`{"name":"slow"}`))
		return m, clock, done, m.nextMsg(t)
	}
	token := func(t *testing.T, req wireMsg) string {
		var p struct {
			Meta struct {
				Token string `json:"progressToken"`
			} `json:"_meta"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil || p.Meta.Token == "" {
			t.Fatalf("the call carries no progress token: %s", req.Params)
		}
		return p.Meta.Token
	}

	t.Run("progress", func(t *testing.T) {
		m, clock, done, req := start(t)
		tok := token(t, req)
		for i := 1; i <= 3; i++ {
			m.send(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"`+tok+`","progress":`+strconv.Itoa(i)+`}}`)
			if d := waitFor(t, clock.resets); d != idle {
				t.Fatalf("progress reset a timer to %v, want the timeout's %v", d, idle)
			}
		}
		m.send(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"another","progress":1}}`)
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"content":[]}}`)
		if r := waitFor(t, done); r.err != nil || string(r.result) != `{"content":[]}` {
			t.Fatalf("call: %s, %v", r.result, r.err)
		}
		select {
		case d := <-clock.resets:
			t.Errorf("another token's progress reset the timeout (%v)", d)
		default:
		}
	})
	t.Run("no progress", func(t *testing.T) {
		m, clock, done, req := start(t)
		clock.fire(t, idle)
		r := waitFor(t, done)
		var te *TimeoutError
		if !errors.As(r.err, &te) || te.Cap || te.Timeout != idle {
			t.Fatalf("call: %v, want the timeout's TimeoutError", r.err)
		}
		if c := m.nextMsg(t); c.Method != "notifications/cancelled" || !strings.Contains(string(c.Params), `"requestId":`+string(req.ID)) {
			t.Errorf("after the timeout the client sent %s %s, want notifications/cancelled of the call", c.Method, c.Params)
		}
	})
	t.Run("the cap", func(t *testing.T) {
		m, clock, done, req := start(t)
		m.send(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"`+token(t, req)+`","progress":1}}`)
		waitFor(t, clock.resets)
		clock.fire(t, hard)
		var te *TimeoutError
		if r := waitFor(t, done); !errors.As(r.err, &te) || !te.Cap {
			t.Fatalf("call: %v, want the cap's TimeoutError", r.err)
		}
	})
}
