package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// Each progress notification for a call restarts its timeout, and only
// its own token's: the call lives on past any number of timeouts while
// progress comes, ends with a TimeoutError when a timeout passes without
// progress, and the cap (MaxTimeout) ends it whatever progress says.
func TestProgressRestartsTheTimeout(t *testing.T) {
	const idle, hard = time.Hour, 2 * time.Hour // durations to tell the timers apart; none passes
	start := func(t *testing.T) (*memTransport, *mcptest.Clock, <-chan callResult, wireMsg) {
		s, m := newTestSession(t, SessionOptions{})
		clock := mcptest.NewClock()
		c := &Client{s: s, opts: ClientOptions{Timeout: idle, MaxTimeout: hard, AfterFunc: clock.AfterFunc}}
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
			clock.WaitUntil(t, "the timeout reset by progress "+strconv.Itoa(i), func(ts mcptest.Timers) bool { return ts.Resets[idle] == i })
		}
		m.send(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"another","progress":1}}`)
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"content":[]}}`)
		if r := waitFor(t, done); r.err != nil || string(r.result) != `{"content":[]}` {
			t.Fatalf("call: %s, %v", r.result, r.err)
		}
		if ts := clock.Timers(); len(ts.Resets) != 1 || ts.Resets[idle] != 3 {
			t.Errorf("resets %v: another token's progress reset the timeout, or something else did", ts.Resets)
		}
	})
	t.Run("no progress", func(t *testing.T) {
		m, clock, done, req := start(t)
		if clock.Fire(idle) != 1 {
			t.Fatalf("no timer of %v was running", idle)
		}
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
		clock.WaitUntil(t, "the timeout reset by progress", func(ts mcptest.Timers) bool { return ts.Resets[idle] == 1 })
		if clock.Fire(hard) != 1 {
			t.Fatalf("no timer of %v was running", hard)
		}
		var te *TimeoutError
		if r := waitFor(t, done); !errors.As(r.err, &te) || !te.Cap {
			t.Fatalf("call: %v, want the cap's TimeoutError", r.err)
		}
	})
}

// A timer of the request's that fires past a deadline of the caller's (a
// walk of lists bounded by --timeout as a whole) leaves the end to the
// caller: its clock started first, so its end is the one told, whichever
// timer's goroutine runs first. A race-tier run told the request's.
func TestACallersDeadlineEndsTheCall(t *testing.T) {
	const idle, hard = time.Hour, 2 * time.Hour
	s, m := newTestSession(t, SessionOptions{})
	clock := mcptest.NewClock()
	c := &Client{s: s, opts: ClientOptions{Timeout: idle, MaxTimeout: hard, AfterFunc: clock.AfterFunc}}
	parent, end := context.WithCancelCause(t.Context())
	done := goCall(pastDeadline{parent}, c.Call, "tools/call", []byte(`{"name":"slow"}`))
	m.nextMsg(t)
	if clock.Fire(idle) != 1 || clock.Fire(hard) != 1 {
		t.Fatal("the call's timers were not running")
	}
	walk := errors.New("the walk's own end")
	end(walk)
	if r := waitFor(t, done); !errors.Is(r.err, walk) {
		t.Fatalf("call: %v, want the caller's end", r.err)
	}
}

// pastDeadline is a context whose deadline has passed while its own
// timer has not yet ended it.
type pastDeadline struct{ context.Context }

func (pastDeadline) Deadline() (time.Time, bool) { return time.Unix(1, 0), true }
