package demoserver

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clockServer returns a demo server whose clock ticks every 10ms, and a
// channel that sees the ticker start (true) and stop (false).
func clockServer() (*mcp.Server, chan bool) {
	ticker := make(chan bool, 16)
	return newServer(config{clockEvery: 10 * time.Millisecond, onClock: func(running bool) { ticker <- running }}), ticker
}

// connectClassic connects as mcpv does, with 2025-11-25: the go-sdk client
// would otherwise speak 2026-07-28, where subscriptions work differently.
func connectClassic(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, opts).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("negotiated %q", v)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func updatesTo(ch chan string) *mcp.ClientOptions {
	return &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		ch <- req.Params.URI
	}}
}

func wantTicker(t *testing.T, ticker chan bool, want bool) {
	t.Helper()
	select {
	case got := <-ticker:
		if got != want {
			t.Fatalf("ticker running = %v, want %v", got, want)
		}
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatalf("ticker running never became %v", want)
	}
}

func wantUpdates(t *testing.T, updates chan string, n int) {
	t.Helper()
	for range n {
		select {
		case uri := <-updates:
			if uri != clockURI {
				t.Fatalf("update for %q", uri)
			}
		case <-time.After(30 * time.Second): // a hang guard
			t.Fatal("no update")
		}
	}
}

// quiet checks that no update of a resource that never changes arrives
// for a while (many clock intervals). A clock update is let by: one sent
// before the ticker stopped may still be on its way on a loaded machine,
// after settle gave up waiting for it; the ticker's stop is wantTicker's
// to check.
func quiet(t *testing.T, updates chan string) {
	t.Helper()
	end := time.After(100 * time.Millisecond)
	for {
		select {
		case uri := <-updates:
			if uri != clockURI {
				t.Fatalf("update for %q, which never changes", uri)
			}
		case <-end:
			return
		}
	}
}

// settle takes the updates sent before the ticker stopped, which may still
// be on their way (the client handles notifications apart from the
// answers), until none has come for many clock intervals; with the ticker
// stopped they end.
func settle(t *testing.T, updates chan string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		select {
		case <-updates:
			if time.Now().After(deadline) {
				t.Fatal("updates still came 30 s after the ticker stopped")
			}
		case <-time.After(100 * time.Millisecond):
			return
		}
	}
}

func TestClockSubscribeUnsubscribe(t *testing.T) {
	ctx := context.Background()
	srv, ticker := clockServer()
	updates := make(chan string, 100)
	cs := connectClassic(t, srv, updatesTo(updates))
	if r := cs.InitializeResult().Capabilities.Resources; r == nil || !r.Subscribe {
		t.Fatalf("resources capability = %+v, want subscribe", r)
	}

	read := func() string {
		t.Helper()
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: clockURI})
		if err != nil || len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "text/plain" {
			t.Fatalf("read clock: %v %+v", err, rr)
		}
		if _, err := time.Parse(time.RFC3339Nano, rr.Contents[0].Text); err != nil {
			t.Fatalf("clock text: %v", err)
		}
		return rr.Contents[0].Text
	}
	before := read()

	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: clockURI}); err != nil {
		t.Fatal(err)
	}
	wantTicker(t, ticker, true)
	wantUpdates(t, updates, 3)
	if after := read(); after == before {
		t.Errorf("the clock did not change: %q", after)
	}

	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: clockURI}); err != nil {
		t.Fatal(err)
	}
	wantTicker(t, ticker, false)
	settle(t, updates)

	// Resources that never change can be subscribed to; unknown ones cannot.
	for _, uri := range []string{"demo://readme", "demo://notes/7"} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Errorf("subscribe %s: %v", uri, err)
		}
	}
	quiet(t, updates)
	err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "demo://nothing"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != codeResourceNotFound {
		t.Errorf("subscribe unknown: err = %v, want code %d", err, codeResourceNotFound)
	}
	select {
	case running := <-ticker:
		t.Errorf("ticker changed to %v without a clock subscription", running)
	default:
	}
}

// TestClockSessionEnd checks that a session that goes away while subscribed
// stops the ticker, and that one session leaving does not stop another's updates.
func TestClockSessionEnd(t *testing.T) {
	ctx := context.Background()
	srv, ticker := clockServer()
	updates1, updates2 := make(chan string, 1000), make(chan string, 1000)
	cs1 := connectClassic(t, srv, updatesTo(updates1))
	cs2 := connectClassic(t, srv, updatesTo(updates2))
	for _, cs := range []*mcp.ClientSession{cs1, cs2} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: clockURI}); err != nil {
			t.Fatal(err)
		}
	}
	wantTicker(t, ticker, true) // one ticker for both
	wantUpdates(t, updates1, 2)
	wantUpdates(t, updates2, 2)

	if err := cs2.Close(); err != nil {
		t.Fatal(err)
	}
	for len(updates1) > 0 {
		<-updates1
	}
	wantUpdates(t, updates1, 3)

	if err := cs1.Close(); err != nil {
		t.Fatal(err)
	}
	wantTicker(t, ticker, false)
	select {
	case running := <-ticker:
		t.Errorf("ticker changed again to %v", running)
	case <-time.After(50 * time.Millisecond):
	}
}

// codeResourceNotFound is the error a server answers for an unknown resource:
// invalid params, since MCP 2025-11-25.
const codeResourceNotFound = -32602
