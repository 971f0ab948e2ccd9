package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
)

// slowLister is an upstream that answers one request at a time, as many
// servers do: a tools/call holds everything up until it is released or
// cancelled, and each tools/list is answered only when the test hands it
// the tools to list (asked tells it one came).
type slowLister struct {
	asked   chan struct{} // told of each tools/list
	answer  chan string   // the next tools/list's tool names, space-separated
	release chan struct{} // ends the calls
	called  chan struct{} // told of each tools/call
	done    chan struct{} // closed: the server is gone
	mu      sync.Mutex    // guards note
	note    func(string, json.RawMessage)
}

func newSlowLister() *slowLister {
	return &slowLister{asked: make(chan struct{}, 16), answer: make(chan string), release: make(chan struct{}),
		called: make(chan struct{}, 16), done: make(chan struct{})}
}

func (s *slowLister) State() mcp.State {
	return mcp.State{Version: "2025-11-25", InitializeResult: servetest.Init(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"slow","version":"1"}}`)}
}

func (s *slowLister) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "tools/list":
		s.asked <- struct{}{}
		select {
		case names := <-s.answer:
			var tools []string
			for _, n := range strings.Fields(names) {
				tools = append(tools, `{"name":"`+n+`","inputSchema":{"type":"object"}}`)
			}
			return json.RawMessage(`{"tools":[` + strings.Join(tools, ",") + `]}`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "tools/call":
		s.called <- struct{}{}
		select {
		case <-s.release:
			return json.RawMessage(`{"content":[]}`), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return json.RawMessage(`{}`), nil
}
func (s *slowLister) Relay(ctx context.Context, m string, p json.RawMessage) (json.RawMessage, error) {
	return s.Forward(ctx, m, p)
}
func (s *slowLister) ForwardNotification(context.Context, string, json.RawMessage) error { return nil }
func (s *slowLister) Tool(context.Context, string) (json.RawMessage, bool)               { return nil, false }
func (s *slowLister) Done() <-chan struct{}                                              { return s.done }
func (s *slowLister) Err() error                                                         { return errors.New("gone") }
func (s *slowLister) Close()                                                             {}

// say makes the server send a notification.
func (s *slowLister) say(method string) {
	s.mu.Lock()
	note := s.note
	s.mu.Unlock()
	note(method, nil)
}

// slowGateway is a gateway of the slow lister (named slow, eager) and
// the two-tool server ok, every bound an hour: nothing here may wait
// for one.
func slowGateway(t *testing.T, up *slowLister) (*Gateway, *logBuf) {
	t.Helper()
	g, log := startingGateway(t, up, nil)
	servetest.WaitFor(t, "both up", func() bool { return g.member("slow").upNow() != nil && g.member("ok").upNow() != nil })
	return g, log
}

// startingGateway is slowGateway as it starts: the slow lister's start
// ends when started closes (nil: at once).
func startingGateway(t *testing.T, up *slowLister, started <-chan struct{}) (*Gateway, *logBuf) {
	t.Helper()
	log := &logBuf{}
	g := &Gateway{Log: slog.New(slog.NewTextHandler(log, nil)), Secrets: redact.NewScrubber(nil), ListWait: time.Hour, firstWait: time.Hour}
	slow := &serve.Server{Open: func(ctx context.Context, r serve.Relay) (serve.Upstream, error) {
		if started != nil {
			select {
			case <-started:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		up.mu.Lock()
		up.note = r.OnNotification
		up.mu.Unlock()
		return up, nil
	}}
	g.Members = []*Member{{Name: "slow", Server: slow, Eager: true}, {Name: "ok", Server: serverFor(t, twoTools(t, "ok")), Eager: true}}
	if err := g.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return g, log
}

// answered has the member named answer its first tools/list, waited for
// by the gateway's bounds as they stand (an hour): a test whose first
// bound is short makes it the subject's alone, which a busy machine
// cannot make the other member miss.
func answered(t *testing.T, g *Gateway, name string) {
	t.Helper()
	if res, err := g.page(t.Context(), g.member(name), "tools/list", ""); err != nil || res == nil {
		t.Fatalf("%s's first page: %s, %v", name, res, err)
	}
}

// listing lists tools through c in the background: its names come on
// the channel (a hang guard of a minute fails the test).
func listing(t *testing.T, c *mcp.Client) <-chan string {
	got := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := c.Call(ctx, "tools/list", json.RawMessage(`{}`))
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- strings.Join(itemKeys(t, res, "tools"), " ")
	}()
	return got
}

// TestGatewayListsBesideABusyServer: a server inside a long call (an
// hour) answers no list; the gateway's lists serve its last good list at
// once, said once, and a call to another server goes through, for a
// client of either era; every bound the gateway has is an hour, so that
// any wait on the busy server would hang the test.
func TestGatewayListsBesideABusyServer(t *testing.T) {
	t.Parallel()
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			listsBesideABusyServer(t, era)
		})
	}
}

func listsBesideABusyServer(t *testing.T, era string) {
	up := newSlowLister()
	g, log := slowGateway(t, up)
	c, _ := servetest.StdioClient(t, g.Server(), era)
	first := listing(t, c)
	<-up.asked
	up.answer <- "x y"
	if got := <-first; got != "slow__x slow__y ok__add ok__echo" {
		t.Fatalf("the first list: %s", got)
	}
	calling := make(chan error, 1)
	go func() {
		_, err := c.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"slow__x","arguments":{}}`))
		calling <- err
	}()
	<-up.called // the server is inside its call
	for range 3 {
		if got := <-listing(t, c); got != "slow__x slow__y ok__add ok__echo" {
			t.Errorf("a list beside the busy server: %s, want its last good list", got)
		}
	}
	if got := servetest.Call(t, c, "tools/call", `{"name":"ok__add","arguments":{}}`); !strings.Contains(string(got), "ok added") {
		t.Errorf("a call to the other server: %s", got)
	}
	if n := log.count(`server \"slow\" is busy: its tools/list`); n != 1 {
		t.Errorf("the busy server's list served was said %d times, want once:\n%s", n, log)
	}
	close(up.release)
	if err := <-calling; err != nil {
		t.Errorf("the long call: %v", err)
	}
}

// TestGatewayKeptListGoesWithItsChange: a busy server's list_changed
// withdraws the list kept of it: the next list waits for its new list
// (which the test gives it) rather than serve the old one; so does its
// restart.
func TestGatewayKeptListGoesWithItsChange(t *testing.T) {
	t.Parallel()
	up := newSlowLister()
	g, _ := slowGateway(t, up)
	c, rec := servetest.StdioClient(t, g.Server(), "legacy")
	first := listing(t, c)
	<-up.asked
	up.answer <- "old"
	<-first
	go c.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"slow__old","arguments":{}}`))
	<-up.called
	up.say("notifications/tools/list_changed")
	servetest.WaitFor(t, "the client told", func() bool { return rec.Saw("notifications/tools/list_changed") })
	next := listing(t, c)
	<-up.asked // asked again: nothing kept to serve
	up.answer <- "new"
	if got := <-next; got != "slow__new ok__add ok__echo" {
		t.Errorf("after its list changed: %s, want the new list", got)
	}
	g.member("slow").kept.forget("") // as its restart does (changed)
	again := listing(t, c)
	<-up.asked
	up.answer <- "newer"
	if got := <-again; got != "slow__newer ok__add ok__echo" {
		t.Errorf("after its restart: %s, want what it lists now", got)
	}
	close(up.release)
}

// TestGatewayServerThatNeverLists: a server up that answers no list is
// waited for once, the first bound (a second, the test's), and left out
// at once by every list after, said once, however long the gateway's
// list bound (an hour); when it answers at last, the clients are told
// the list changed, and its items are listed.
func TestGatewayServerThatNeverLists(t *testing.T) {
	testkit.SkipLong(t, "the first list waits out the first bound, a second")
	t.Parallel()
	up := newSlowLister()
	g, log := slowGateway(t, up)
	answered(t, g, "ok")
	g.firstWait = time.Second
	c, rec := servetest.StdioClient(t, g.Server(), "legacy")
	for range 3 {
		if got := <-listing(t, c); got != "ok__add ok__echo" {
			t.Errorf("a list beside a server that never lists: %s", got)
		}
	}
	if n := log.count(`server \"slow\" did not answer tools/list`); n != 1 {
		t.Errorf("the server left out was said %d times, want once:\n%s", n, log)
	}
	<-up.asked
	up.answer <- "late"
	servetest.WaitFor(t, "the client told its list changed", func() bool { return rec.Saw("notifications/tools/list_changed") })
	now := listing(t, c) // an idle server that answered is asked again
	<-up.asked
	up.answer <- "late"
	if got := <-now; got != "slow__late ok__add ok__echo" {
		t.Errorf("once it answered: %s", got)
	}
}

// TestGatewayServerThatNeverListsOnAFreshGateway: a list that comes
// while a server is still starting waits for its start, then for its
// list by the first bound (the test's: 10 ms), not the list bound (an
// hour): a fresh gateway's first list costs a server that never lists
// the first bound once, as a running gateway's does. ok has answered a
// list before (so it is waited for by the list bound, an hour): the
// first bound, which a busy machine can miss, is slow's alone.
func TestGatewayServerThatNeverListsOnAFreshGateway(t *testing.T) {
	t.Parallel()
	up, started := newSlowLister(), make(chan struct{})
	g, log := startingGateway(t, up, started)
	servetest.WaitFor(t, "ok up", func() bool { return g.member("ok").upNow() != nil })
	answered(t, g, "ok")
	g.firstWait = 10 * time.Millisecond
	k := &g.member("ok").kept
	k.mu.Lock()
	first := k.lists["tools/list"].pages[""]
	k.mu.Unlock()
	c, _ := servetest.StdioClient(t, g.Server(), "legacy")
	got := listing(t, c)
	// The list asks every server at once: once ok's page is kept anew, it
	// waits on slow, still starting.
	servetest.WaitFor(t, "ok's page kept anew", func() bool {
		k.mu.Lock()
		defer k.mu.Unlock()
		return k.lists["tools/list"].pages[""] != first
	})
	close(started)
	if names := <-got; names != "ok__add ok__echo" {
		t.Errorf("the first list beside a server that never lists: %s", names)
	}
	if n := log.count(`server \"slow\" did not answer tools/list within 10ms`); n != 1 {
		t.Errorf("the server left out was said %d times, want once, after the first bound:\n%s", n, log)
	}
}

// TestGatewayFirstListsTogether: clients that list at the same time,
// before any server has answered a list, all wait for the same first
// answer: none is given a list that leaves a server out.
func TestGatewayFirstListsTogether(t *testing.T) {
	t.Parallel()
	up := newSlowLister()
	g, _ := slowGateway(t, up)
	var lists []<-chan string
	for range 5 {
		c, _ := servetest.StdioClient(t, g.Server(), "legacy")
		lists = append(lists, listing(t, c))
	}
	servetest.WaitFor(t, "the five lists to wait for the server's first", func() bool {
		k := &g.member("slow").kept
		k.mu.Lock()
		defer k.mu.Unlock()
		fl := k.list("tools/list").flights[""]
		return fl != nil && fl.lists == 5
	})
	done := make(chan struct{})
	defer close(done)
	go func() { // the server answers each list it is asked, once asked
		for {
			select {
			case <-up.asked:
				select {
				case up.answer <- "x":
				case <-done:
					return
				}
			case <-done:
				return
			}
		}
	}()
	for _, l := range lists {
		if got := <-l; got != "slow__x ok__add ok__echo" {
			t.Errorf("a list made beside others: %s", got)
		}
	}
}

// TestGatewayKeptBytesBound: an answer too big to keep takes the page
// kept before it away with it (it is no longer the member's last good
// page) and leaves the bytes counted at nothing: however many such
// answers come, the count never goes below what is kept, and so never
// lets more than the bound be kept.
func TestGatewayKeptBytesBound(t *testing.T) {
	t.Parallel()
	up := newSlowLister()
	g, _ := slowGateway(t, up)
	g.maxKept = 200
	c, _ := servetest.StdioClient(t, g.Server(), "legacy")
	k := &g.member("slow").kept
	kept := func() (pages, bytes int) {
		k.mu.Lock()
		defer k.mu.Unlock()
		return len(k.list("tools/list").pages), k.bytes
	}
	first := listing(t, c)
	<-up.asked
	up.answer <- "x"
	<-first
	if pages, bytes := kept(); pages != 1 || bytes <= 0 || bytes > g.maxKept {
		t.Fatalf("after a small answer: %d pages, %d bytes kept", pages, bytes)
	}
	long := strings.Repeat("a", 300)
	for i := range 3 {
		next := listing(t, c)
		<-up.asked
		up.answer <- long
		if got := <-next; got != "slow__"+long+" ok__add ok__echo" {
			t.Fatalf("answer %d: %s", i, got)
		}
		if pages, bytes := kept(); pages != 0 || bytes != 0 {
			t.Errorf("after oversized answer %d: %d pages and %d bytes kept, want none", i, pages, bytes)
		}
	}
}
