package serve

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
)

// teller is an Upstream in the process that tells each call's client a
// log message naming the call, once every call of the round is in
// flight: what the Busy rule alone (one request in flight) cannot route.
type teller struct {
	round   int // calls in flight at once before any answers
	mu      sync.Mutex
	entered int
	all     chan struct{} // closed when round calls are in flight
	told    []bool        // Tell's answers
}

func (u *teller) State() mcp.State {
	return mcp.State{Version: "2025-11-25", InitializeResult: servetest.Init(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"teller","version":"1"}}`)}
}

func (u *teller) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method != "tools/call" {
		return json.RawMessage(`{}`), nil
	}
	u.mu.Lock()
	if u.entered++; u.entered == u.round {
		close(u.all)
	}
	u.mu.Unlock()
	select {
	case <-u.all:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var p struct{ Name string }
	json.Unmarshal(params, &p)
	ok := Tell(ctx, "notifications/message", json.RawMessage(`{"level":"info","data":"for `+p.Name+`"}`))
	u.mu.Lock()
	u.told = append(u.told, ok)
	u.mu.Unlock()
	return json.RawMessage(`{"content":[]}`), nil
}

func (u *teller) Relay(ctx context.Context, m string, p json.RawMessage) (json.RawMessage, error) {
	return u.Forward(ctx, m, p)
}
func (u *teller) ForwardNotification(context.Context, string, json.RawMessage) error { return nil }
func (u *teller) Tool(context.Context, string) (json.RawMessage, bool)               { return nil, false }
func (u *teller) Done() <-chan struct{}                                              { return nil }
func (u *teller) Err() error                                                         { return nil }
func (u *teller) Close()                                                             {}

// TestTellGoesToItsRequest: an Upstream's log message about a request
// reaches that request's client alone, while other clients' requests are
// in flight, over stdio and HTTP; outside a request, Tell sends nothing.
func TestTellGoesToItsRequest(t *testing.T) {
	t.Parallel()
	up := &teller{round: 3, all: make(chan struct{})}
	srv := &Server{Open: func(context.Context, Relay) (Upstream, error) { return up, nil }}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	url := serveHTTP(t, srv, "")
	a, ra := servetest.StdioClient(t, srv, "legacy")
	b, rb := servetest.HTTPClient(t, url, "legacy", "b")
	c, rc := servetest.HTTPClient(t, url, "legacy", "c")
	var wg sync.WaitGroup
	for name, cl := range map[string]*mcp.Client{"a": a, "b": b, "c": c} {
		wg.Go(func() { servetest.Call(t, cl, "tools/call", `{"name":"`+name+`","arguments":{}}`) })
	}
	wg.Wait()
	for name, rec := range map[string]*servetest.Recorder{"a": ra, "b": rb, "c": rc} {
		for _, other := range []string{"a", "b", "c"} {
			if got := rec.Saw(`"data":"for ` + other + `"`); got != (other == name) {
				t.Errorf("client %s got the message for %s: %v", name, other, got)
			}
		}
	}
	if Tell(context.Background(), "notifications/message", json.RawMessage(`{"level":"info","data":"x"}`)) {
		t.Error("Tell outside a request reported it sent")
	}
	for _, ok := range up.told {
		if !ok {
			t.Error("Tell in a request reported it did not send")
		}
	}
}

// TestObserve: every message of each client is told, numbered by client:
// initialize, each request with its answer (an error as an error), and
// notifications.
func TestObserve(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []Exchange
	srv := serverFor(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil))
	srv.Observe = func(e Exchange) {
		mu.Lock()
		seen = append(seen, e)
		mu.Unlock()
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	first, _ := servetest.StdioClient(t, srv, "legacy")
	servetest.Call(t, first, "tools/call", `{"name":"echo","arguments":{"message":"hi"}}`)
	if _, err := first.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"nope","arguments":{}}`)); err == nil {
		t.Fatal("an unknown tool answered")
	}
	if err := first.Notify(context.Background(), "notifications/roots/list_changed", nil); err != nil {
		t.Fatal(err)
	}
	second, _ := servetest.StdioClient(t, srv, "modern")
	servetest.Call(t, second, "tools/list", `{}`)
	var lines []string
	servetest.WaitFor(t, "seven messages observed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		lines = lines[:0]
		for _, e := range seen {
			line := e.Method
			switch {
			case e.Err != nil:
				var re *mcp.RPCError
				if errors.As(e.Err, &re) {
					line += " error"
				}
			case e.ID != nil && e.Result != nil:
				line += " result"
			case e.ID == nil:
				line += " notification"
			}
			lines = append(lines, string(rune('0'+e.Client))+" "+line)
		}
		return len(lines) >= 7
	})
	got := strings.Join(lines, "\n")
	for _, want := range []string{"1 initialize result", "1 notifications/initialized notification", "1 tools/call result",
		"1 tools/call error", "1 notifications/roots/list_changed notification", "2 tools/list result"} {
		if !strings.Contains(got, want+"\n") && !strings.HasSuffix(got, want) {
			t.Errorf("no %q in what was observed:\n%s", want, got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range seen {
		if e.Method == "tools/call" && e.Result != nil && (!strings.Contains(string(e.Params), `"message":"hi"`) || !strings.Contains(string(e.Result), "hi") || e.Time.IsZero()) {
			t.Errorf("the call as observed: %+v", e)
		}
	}
}
