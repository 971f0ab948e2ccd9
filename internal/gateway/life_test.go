package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
)

// getHealth GETs the gateway's /healthz with header, and decodes it.
func getHealth(t testing.TB, base string, header http.Header) (int, map[string]any) {
	t.Helper()
	resp, body := servetest.Send(t, http.MethodGet, strings.TrimSuffix(base, "/mcp")+"/healthz", header, "")
	var out map[string]any
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatalf("healthz: %q: %v", body, err)
	}
	return resp.StatusCode, out
}

// memberState is member name's state in a /healthz body that names them.
func memberState(h map[string]any, name string) string {
	list, _ := h["servers"].([]any)
	for _, it := range list {
		m, _ := it.(map[string]any)
		if m["name"] == name {
			s, _ := m["state"].(string)
			return s
		}
	}
	return ""
}

// TestGatewayOneServerDies: a server that dies mid-call fails that call
// alone; its items are withdrawn (the client is told its lists changed),
// the others' calls go on, /healthz says degraded (200) and names it
// down, it is said once on the log, and it comes back by itself with its
// items.
func TestGatewayOneServerDies(t *testing.T) {
	t.Parallel()
	// Tried again after an hour: it is down while the test looks, however
	// slow the machine; then the test tries it again itself.
	g, log := startGatewayWith(t, func(g *Gateway) { g.retryFirst = time.Hour },
		testMember{name: "ok", settings: twoTools(t, "ok")}, testMember{name: "bad", settings: servetest.FakeStdio("crash")})
	_, base := gatewayHTTP(t, g, nil)
	c, rec := servetest.HTTPClient(t, base, "legacy", "client")
	if got := strings.Join(listAll(t, c, "tools/list", "tools"), " "); !strings.Contains(got, "bad__") || !strings.Contains(got, "ok__add") {
		t.Fatalf("tools before: %s", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"bad__x","arguments":{}}`)); err == nil {
		t.Fatal("a call that kills its server succeeded")
	}
	servetest.WaitFor(t, "bad to be down", func() bool { st, _ := g.member("bad").life.status(); return st == lifeDown })
	code, h := getHealth(t, base, nil)
	if code != http.StatusOK || h["status"] != "degraded" || memberState(h, "bad") != "down" || memberState(h, "ok") != "up" {
		t.Errorf("healthz with bad down: %d %v", code, h)
	}
	servetest.WaitFor(t, "the client to hear its lists changed", func() bool { return rec.Saw("notifications/tools/list_changed") })
	if got := servetest.Call(t, c, "tools/call", `{"name":"ok__add","arguments":{}}`); !strings.Contains(string(got), "ok added") {
		t.Errorf("ok__add with bad down: %s", got)
	}
	if n := log.count(`server \"bad\" is down`); n != 1 {
		t.Errorf("bad's going down was said %d times:\n%s", n, log)
	}
	bad := g.member("bad").life
	bad.mu.Lock()
	bad.retryAt = time.Now() // the hour is up
	bad.mu.Unlock()
	bad.wake()
	servetest.WaitFor(t, "bad to come back", func() bool {
		return strings.Contains(strings.Join(listAll(t, c, "tools/list", "tools"), " "), "bad__")
	})
	if n := log.count(`server \"bad\" is up`); n < 2 {
		t.Errorf("bad coming up was said %d times, want at start and again:\n%s", n, log)
	}
}

// TestGatewayServerThatNeverStarts: a server that cannot start (its
// program exits at once) is down from the first, said once however often
// it is tried again; the endpoint serves the others all the while, and a
// request for its tools is told it is down.
func TestGatewayServerThatNeverStarts(t *testing.T) {
	t.Parallel()
	broken := servetest.FakeStdio("plain")
	broken.Command = []string{"/nonexistent/mcp-server"}
	g, log := startGatewayWith(t, func(g *Gateway) { g.retryFirst = 10 * time.Millisecond },
		testMember{name: "ok", settings: twoTools(t, "ok"), eager: true}, testMember{name: "broken", settings: broken, eager: true})
	c, _ := servetest.StdioClient(t, g.Server(), "legacy")
	servetest.WaitFor(t, "broken to be down", func() bool { st, _ := g.member("broken").life.status(); return st == lifeDown })
	if got := strings.Join(listAll(t, c, "tools/list", "tools"), " "); got != "ok__add ok__echo" {
		t.Errorf("tools: %s", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"broken__x","arguments":{}}`))
	var ce *mcp.CallError
	if !errors.As(err, &ce) || !strings.Contains(ce.Err.Message, `server "broken" is down`) {
		t.Errorf("a call to the broken server: %v", err)
	}
	servetest.WaitFor(t, "a second attempt", func() bool {
		g.member("broken").life.mu.Lock()
		defer g.member("broken").life.mu.Unlock()
		return g.member("broken").life.backoff >= 2*g.retryFirst
	})
	if n := log.count(`server \"broken\" is down`); n != 1 {
		t.Errorf("broken's state said %d times, want once:\n%s", n, log)
	}
}

// TestGatewayLazyStart: with twenty servers that take their time to
// start, the endpoint answers initialize (and server/discover) before
// any has started; none starts until a request needs it.
func TestGatewayLazyStart(t *testing.T) {
	t.Parallel()
	var members []testMember
	for i := range 20 {
		members = append(members, testMember{name: fmt.Sprintf("m%02d", i), settings: servetest.FakeStdio("slow-start=600000")})
	}
	g, _ := startGateway(t, members...)
	for _, era := range []string{"legacy", "modern"} {
		c, _ := servetest.StdioClient(t, g.Server(), era)
		if c.State().InitializeResult.Raw() == nil {
			t.Fatalf("%s: no initialize result", era)
		}
	}
	for _, m := range g.Members {
		if st, _ := m.life.status(); st != lifeIdle {
			t.Errorf("%s is %v before any request needed it", m.Name, st)
		}
	}
}

// TestGatewaySlowListLeftOut: a server that does not answer a list
// within the bound is left out of that list (said once), and the list
// of the others comes: one still starting (it never finishes), one up
// that never answers again. The bound is far beyond what the other
// server needs, however loaded the machine.
func TestGatewaySlowListLeftOut(t *testing.T) {
	testkit.SkipLong(t, "each list waits out the bound of the servers that never answer")
	t.Parallel()
	g, log := startGatewayWith(t, func(g *Gateway) { g.ListWait = 3 * time.Second },
		testMember{name: "ok", settings: twoTools(t, "ok"), eager: true},
		testMember{name: "starting", settings: servetest.FakeStdio("slow-start=600000"), eager: true},
		testMember{name: "deaf", settings: servetest.FakeStdio("deaf"), eager: true})
	servetest.WaitFor(t, "deaf to be up", func() bool { st, _ := g.member("deaf").life.status(); return st == lifeUp })
	c, _ := servetest.StdioClient(t, g.Server(), "legacy")
	for range 2 {
		if got := strings.Join(listAll(t, c, "tools/list", "tools"), " "); got != "ok__add ok__echo" {
			t.Errorf("tools: %s", got)
		}
	}
	if n := log.count(`server \"deaf\" did not answer tools/list`); n != 1 {
		t.Errorf("deaf left out was said %d times, want once:\n%s", n, log)
	}
	if n := log.count(`server \"starting\" did not answer`); n != 0 {
		t.Errorf("a server still starting was said to be slow to list (its start is said on its own):\n%s", log)
	}
}

// barrier is an upstream whose tools/list answers once n of its kind
// have been asked (or its request ends): a list that asks its servers
// one after the other never gets an answer from any of them.
type barrier struct {
	name  string
	n     int
	asked *atomic.Int64
	all   chan struct{} // closed by the nth asked
	done  chan struct{}
}

func (b *barrier) State() mcp.State {
	return mcp.State{Version: "2025-11-25", InitializeResult: servetest.Init(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"b","version":"1"}}`)}
}

func (b *barrier) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method != "tools/list" {
		return json.RawMessage(`{}`), nil
	}
	if b.asked.Add(1) == int64(b.n) {
		close(b.all)
	}
	select {
	case <-b.all:
		return json.RawMessage(`{"tools":[{"name":"` + b.name + `","inputSchema":{"type":"object"}}]}`), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
func (b *barrier) Relay(ctx context.Context, m string, p json.RawMessage) (json.RawMessage, error) {
	return b.Forward(ctx, m, p)
}
func (b *barrier) ForwardNotification(context.Context, string, json.RawMessage) error { return nil }
func (b *barrier) Tool(context.Context, string) (json.RawMessage, bool)               { return nil, false }
func (b *barrier) Done() <-chan struct{}                                              { return b.done }
func (b *barrier) Err() error                                                         { return errors.New("x") }
func (b *barrier) Close()                                                             {}

// TestGatewayListAsksAtOnce: a list's first page asks its servers at
// once, so that twenty servers slow to answer (or to start) cost it the
// wait of one, not twenty waits one after the other; their items still
// come in the servers' order.
func TestGatewayListAsksAtOnce(t *testing.T) {
	t.Parallel()
	const n = 20
	var asked atomic.Int64
	all, done := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(done) })
	g := &Gateway{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Secrets: redact.NewScrubber(io.Discard)}
	var want []string
	for i := range n {
		name := fmt.Sprintf("m%02d", i)
		up := &barrier{name: "t", n: n, asked: &asked, all: all, done: done}
		g.Members = append(g.Members, &Member{Name: name, Server: &serve.Server{Open: func(context.Context, serve.Relay) (serve.Upstream, error) { return up, nil }}})
		want = append(want, name+"__t")
	}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	c, _ := servetest.StdioClient(t, g.Server(), "legacy")
	if got := strings.Join(listAll(t, c, "tools/list", "tools"), " "); got != strings.Join(want, " ") {
		t.Errorf("tools: %s\nwant %s", got, strings.Join(want, " "))
	}
}

// TestGatewayFloodingServer: a server that floods the gateway with
// notifications is marked down (its session closed), and the others go
// on.
func TestGatewayFloodingServer(t *testing.T) {
	testkit.SkipLong(t, "a server that sends a million notes")
	t.Parallel()
	g, log := startGateway(t, testMember{name: "ok", settings: twoTools(t, "ok")}, testMember{name: "flood", settings: servetest.FakeStdio("log-flood=1000000")})
	g.Members[1].life.floodNotes, g.Members[1].life.floodWindow = 5000, time.Hour
	c, _ := servetest.StdioClient(t, g.Server(), "legacy")
	listAll(t, c, "tools/list", "tools")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c.Call(ctx, "tools/call", json.RawMessage(`{"name":"flood__x","arguments":{}}`))
	servetest.WaitFor(t, "flood to be down", func() bool { st, _ := g.member("flood").life.status(); return st == lifeDown })
	if !strings.Contains(log.String(), "a flood") {
		t.Errorf("the flood was not said:\n%s", log)
	}
	if got := servetest.Call(t, c, "tools/call", `{"name":"ok__add","arguments":{}}`); !strings.Contains(string(got), "ok added") {
		t.Errorf("ok__add after the flood: %s", got)
	}
}

// TestGatewayHangingServer: a server that stops answering (it reads
// nothing more once initialized) is found out by a ping while nothing
// else is in flight, and marked down; the others go on.
func TestGatewayHangingServer(t *testing.T) {
	testkit.SkipLong(t, "a ping left unanswered for 5 s")
	t.Parallel()
	log := &logBuf{}
	g := &Gateway{Log: slog.New(slog.NewTextHandler(log, nil)), pingEvery: 50 * time.Millisecond, pingWait: 5 * time.Second}
	for _, tm := range []testMember{{name: "ok", settings: twoTools(t, "ok"), eager: true}, {name: "deaf", settings: servetest.FakeStdio("deaf"), eager: true}} {
		g.Members = append(g.Members, &Member{Name: tm.name, Server: serverFor(t, tm.settings), Eager: tm.eager})
	}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	servetest.WaitFor(t, "deaf to be found out", func() bool { return strings.Contains(log.String(), "did not answer a ping") })
	c, _ := servetest.StdioClient(t, g.Server(), "legacy")
	if got := servetest.Call(t, c, "tools/call", `{"name":"ok__add","arguments":{}}`); !strings.Contains(string(got), "ok added") {
		t.Errorf("ok__add: %s", got)
	}
	if st, _ := g.member("ok").life.status(); st != lifeUp {
		t.Errorf("ok is %v: an answering server was taken for a hung one", st)
	}
}

// TestGatewayCancelReachesItsServer: a client that cancels its call at
// the endpoint, or leaves with it in flight, has the call cancelled at
// the server it went to, while the other server answers on.
func TestGatewayCancelReachesItsServer(t *testing.T) {
	t.Parallel()
	up := &servetest.Hang{End: make(chan struct{}), Called: make(chan struct{}, 1), Cancelled: make(chan struct{}, 1)}
	hangSrv := &serve.Server{Open: func(context.Context, serve.Relay) (serve.Upstream, error) { return up, nil }}
	g := &Gateway{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Secrets: redact.NewScrubber(io.Discard),
		Members: []*Member{{Name: "h", Server: hangSrv}, {Name: "ok", Server: serverFor(t, twoTools(t, "ok"))}}}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	_, base := gatewayHTTP(t, g, nil)
	for _, how := range []string{"cancel", "leave"} {
		c, _ := servetest.HTTPClient(t, base, "legacy", how)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"h__x","arguments":{}}`))
			done <- err
		}()
		select {
		case <-up.Called:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the call did not reach its server", how)
		}
		if how == "cancel" {
			cancel()
		} else {
			c.Close(context.Background())
		}
		select {
		case <-up.Cancelled:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the call was not cancelled at its server", how)
		}
		<-done
		cancel()
		other, _ := servetest.HTTPClient(t, base, "legacy", "other")
		if got := servetest.Call(t, other, "tools/call", `{"name":"ok__add","arguments":{}}`); !strings.Contains(string(got), "ok added") {
			t.Errorf("%s: ok__add after: %s", how, got)
		}
	}
}

// TestGatewayCloseWaitsForDownNotice: the clients being told that a
// server went down is done before Gateway.Close returns, however long
// the telling takes: nothing of the gateway's runs on after it.
func TestGatewayCloseWaitsForDownNotice(t *testing.T) {
	t.Parallel()
	up := &servetest.Hang{End: make(chan struct{}), Called: make(chan struct{}, 1)}
	g := &Gateway{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Secrets: redact.NewScrubber(io.Discard),
		Members: []*Member{{Name: "h", Server: &serve.Server{Open: func(context.Context, serve.Relay) (serve.Upstream, error) { return up, nil }}}}}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	l := g.member("h").life // lazy: nothing of it runs yet
	var told atomic.Bool
	telling := make(chan struct{})
	l.change = func(st lifeState) {
		if st == lifeDown {
			close(telling)
			<-l.ctx.Done() // the clients are still being told as serving ends
			told.Store(true)
		}
	}
	if _, err := l.Get(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(up.End) // the server dies
	<-telling
	g.Close()
	if !told.Load() {
		t.Error("Gateway.Close returned while the clients were still being told a server went down")
	}
}

// flapper is an upstream that ends soon after it opens: a server that
// comes up and dies, again and again.
type flapper struct{ done chan struct{} }

func (f *flapper) State() mcp.State {
	return mcp.State{Version: "2025-11-25", InitializeResult: servetest.Init(`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}}`)}
}
func (f *flapper) Forward(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}
func (f *flapper) Relay(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}
func (f *flapper) ForwardNotification(context.Context, string, json.RawMessage) error { return nil }
func (f *flapper) Tool(context.Context, string) (json.RawMessage, bool)               { return nil, false }
func (f *flapper) Done() <-chan struct{}                                              { return f.done }
func (f *flapper) Err() error                                                         { return errors.New("it died") }
func (f *flapper) Close()                                                             {}

// TestGatewayFlappingServerBacksOff: a server that dies as soon as it
// came up is opened again after a back-off that keeps growing across its
// ups and downs, rather than starting anew at each up.
func TestGatewayFlappingServerBacksOff(t *testing.T) {
	t.Parallel()
	var opened atomic.Int64
	srv := &serve.Server{Open: func(context.Context, serve.Relay) (serve.Upstream, error) {
		opened.Add(1)
		f := &flapper{done: make(chan struct{})}
		close(f.done) // it dies at once
		return f, nil
	}}
	g := &Gateway{Log: slog.New(slog.DiscardHandler), retryFirst: time.Millisecond,
		Members: []*Member{{Name: "f", Server: srv, Eager: true}}}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	servetest.WaitFor(t, "five ups and downs", func() bool { return opened.Load() >= 5 })
	l := g.member("f").life
	l.mu.Lock()
	backoff := l.backoff
	l.mu.Unlock()
	if backoff < 8*time.Millisecond {
		t.Errorf("after %d ups and downs the back-off is %v, want it doubled each time from 1ms", opened.Load(), backoff)
	}
}

// A gateway whose members are starting and none is up yet tells a
// balancer so (503, "starting"); once one is up, it is ready (200).
func TestGatewayHealthWhileStarting(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	srv := serverFor(t, twoTools(t, "ok"))
	open := srv.Open
	srv.Open = func(ctx context.Context, r serve.Relay) (serve.Upstream, error) {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return open(ctx, r)
	}
	g := &Gateway{Log: slog.New(slog.DiscardHandler), Secrets: redact.NewScrubber(nil), Members: []*Member{{Name: "ok", Server: srv, Eager: true}}}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	_, base := gatewayHTTP(t, g, nil)
	servetest.WaitFor(t, "ok to be starting", func() bool { st, _ := g.member("ok").life.status(); return st == lifeStarting })
	if code, h := getHealth(t, base, nil); code != http.StatusServiceUnavailable || h["status"] != "starting" {
		t.Errorf("healthz while starting: %d %v", code, h)
	}
	close(gate)
	servetest.WaitFor(t, "ok to be up", func() bool { st, _ := g.member("ok").life.status(); return st == lifeUp })
	if code, h := getHealth(t, base, nil); code != http.StatusOK || h["status"] != "ok" {
		t.Errorf("healthz once up: %d %v", code, h)
	}
}
