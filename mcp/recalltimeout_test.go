package mcp

import (
	"encoding/json"
	"errors"
	"runtime"
	"testing"
	"testing/synctest"
	"time"
)

// inBubble runs f in a synctest bubble, with the session's pool of reply
// channels emptied before and after (two collections empty a sync.Pool):
// a channel made in one bubble may be used in no other, nor outside.
func inBubble(t *testing.T, f func(t *testing.T)) {
	flush := func() { runtime.GC(); runtime.GC() }
	flush()
	defer flush()
	synctest.Test(t, f)
}

// initializeOnly is a server of the initialize era that says nothing to
// anything before initialize (it spoke the modern era last run), and, once
// initialized, answers only the methods in answers (their results); it
// reads what the client writes until the session ends.
func initializeOnly(m *memTransport, answers map[string]string) {
	for {
		select {
		case b := <-m.out:
			var w wireMsg
			if json.Unmarshal(b, &w) != nil || w.ID == nil {
				continue
			}
			res, ok := answers[w.Method]
			if w.Method == "initialize" {
				res, ok = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`, true
			}
			if ok {
				select {
				case m.in <- []byte(`{"jsonrpc":"2.0","id":` + string(w.ID) + `,"result":` + res + `}`):
				case <-m.closed:
					return
				}
			}
		case <-m.closed:
			return
		}
	}
}

// The first request to a server remembered in the modern era, the probe
// that finds it of the initialize era now, and the request sent again in
// that era share one timeout: the call ends at its timeout, where the
// request sent again had a timeout of its own after the probe's wait (15
// s of the probe, then 30 s more). On synctest's clock, so the times are
// the code's, whatever the machine.
func TestRecalledRequestSharesItsTimeout(t *testing.T) {
	for _, fresh := range []bool{false, true} {
		name := "discover sent"
		if fresh {
			name = "discover kept"
		}
		t.Run(name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				const timeout = 30 * time.Second // past the probe's waits: 5 s for discover, 10 s of silence after its ping
				s, m := newTestSession(t, SessionOptions{})
				go initializeOnly(m, nil) // silent to tools/list too
				c, err := Initialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, Recall: &Recall{State: rememberedModern, Fresh: fresh}, Timeout: timeout})
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				_, err = c.Call(t.Context(), "tools/list", nil)
				var te *TimeoutError
				if !errors.As(err, &te) || te.Timeout != timeout {
					t.Fatalf("call: %v, want its timeout", err)
				}
				if took := time.Since(start); took > timeout {
					t.Errorf("the call ended %v after it began, past its timeout of %v", took, timeout)
				}
				if c.Modern() {
					t.Error("the era found is not the server's")
				}
				s.Close(t.Context())
			})
		})
	}
}

// Ping asks a server remembered in the modern era, of the initialize era
// now and silent before initialize, ping once initialized (server/discover
// is no method there), within its one timeout; a server still modern is
// asked server/discover once, its answer the ping's.
func TestRecalledPing(t *testing.T) {
	t.Run("now of the initialize era", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			const timeout = 30 * time.Second
			s, m := newTestSession(t, SessionOptions{})
			go initializeOnly(m, map[string]string{"ping": `{"pong":1}`})
			c, err := Initialize(t.Context(), s, ClientOptions{Info: testInfo(), Probe: true, Recall: &Recall{State: rememberedModern}, Timeout: timeout})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := c.Ping(t.Context())
			if err != nil || string(res) != `{"pong":1}` {
				t.Fatalf("ping: %s, %v", res, err)
			}
			if took := time.Since(start); took > timeout {
				t.Errorf("ping took %v, past its timeout of %v", took, timeout)
			}
			s.Close(t.Context())
		})
	})
	t.Run("still modern", func(t *testing.T) {
		c, m := recalledClient(t, &Recall{State: rememberedModern})
		done := make(chan error, 1)
		go func() { res, err := c.Ping(t.Context()); done <- errors.Join(err, wantJSON(res, `{}`)) }()
		if w := m.nextMsg(t); w.Method != "server/discover" {
			t.Fatalf("sent %s", w.Method)
		} else {
			reply(t, m, w, discovered)
		}
		if err := waitFor(t, done); err != nil {
			t.Fatal(err)
		}
		m.assertQuiet(t)
	})
}

func wantJSON(got json.RawMessage, want string) error {
	if string(got) != want {
		return errors.New("got " + string(got) + ", want " + want)
	}
	return nil
}
