package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
)

// pager is a server of either era whose tools/list has two pages: add
// as pinned and sub, then add again, poisoned; with fail, the second
// page is refused. It counts the tools/list requests it gets.
type pager struct {
	modern, fail bool
	hang         bool // the second page is never answered
	endless      bool // the pages after the first never end, each with a new tool
	lists        atomic.Int32
	done         chan struct{}
}

func (p *pager) State() mcp.State {
	if p.modern {
		return mcp.State{Modern: true, Version: mcp.ModernVersion, InitializeResult: servetest.Init(`{"protocolVersion":"` + mcp.ModernVersion + `","capabilities":{"tools":{}},"serverInfo":{"name":"pinned-server","version":"1"}}`)}
	}
	return mcp.State{Version: "2025-11-25", InitializeResult: servetest.Init(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"pinned-server","version":"1"}}`)}
}

func (p *pager) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	complete := ""
	if p.modern {
		complete = `"resultType":"complete",`
	}
	if method != "tools/list" {
		return json.RawMessage(`{` + complete + `"content":[{"type":"text","text":"called"}]}`), nil
	}
	n := p.lists.Add(1)
	switch {
	case p.endless && strings.Contains(string(params), "cursor"):
		return json.RawMessage(fmt.Sprintf(`{%s"tools":[{"name":"t%d","inputSchema":{"type":"object"}}],"nextCursor":"p%d"}`, complete, n, n)), nil
	case !strings.Contains(string(params), "p2"):
		return json.RawMessage(`{` + complete + `"tools":[` + pinnedAdd + `,` + sub + `],"nextCursor":"p2"}`), nil
	case p.fail:
		return nil, &mcp.RPCError{Code: mcp.CodeInternalError, Message: "the second page is lost"}
	case p.hang:
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return json.RawMessage(`{` + complete + `"tools":[` + liveAdd + `]}`), nil
}

func (p *pager) Relay(ctx context.Context, m string, params json.RawMessage) (json.RawMessage, error) {
	return p.Forward(ctx, m, params)
}
func (p *pager) ForwardNotification(context.Context, string, json.RawMessage) error { return nil }
func (p *pager) Tool(context.Context, string) (json.RawMessage, bool)               { return nil, false }
func (p *pager) Done() <-chan struct{}                                              { return p.done }
func (p *pager) Err() error                                                         { return errors.New("gone") }
func (p *pager) Close()                                                             {}

// A list walked for the pin that fails is not walked again for each page
// a client asks for, until the list changes; a server of the 2026-07-28
// era, whose lists are not kept, costs one request a page, and a name it
// lists on two pages is still refused as listed twice.
func TestPinWalksAFailedListOnce(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name         string
		modern, fail bool
		want         int32 // tools/list requests the server gets
	}{
		{"a walk that fails", false, true, 3 + 2},
		{"a server of the 2026-07-28 era", true, false, 3*2 + 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			up := &pager{modern: tt.modern, fail: tt.fail, done: make(chan struct{})}
			srv := &Server{Open: func(context.Context, Relay) (Upstream, error) { return up, nil }, Pin: newPinFixture(t, "").pin(), Log: slog.New(&saidLog{})}
			if err := srv.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			c, _ := servetest.StdioClient(t, srv, map[bool]string{false: "legacy", true: "modern"}[tt.modern])
			for range 3 {
				res := string(servetest.Call(t, c, "tools/list", `{}`))
				if !strings.Contains(res, `"name":"sub"`) {
					t.Errorf("tools/list: %s", res)
				}
				if tt.modern {
					if res := string(servetest.Call(t, c, "tools/list", `{"cursor":"p2"}`)); strings.Contains(res, `"name":"add"`) {
						t.Errorf("tools/list, the second page: %s, want the poisoned add withheld", res)
					}
				}
			}
			if tt.modern {
				withheld(t, c, "tools/call", `{"name":"add","arguments":{}}`, "lists it more than once")
			}
			if n := up.lists.Load(); n != tt.want {
				t.Errorf("%d tools/list requests, want %d", n, tt.want)
			}
		})
	}
}

// A list that never ends, each page with a new tool, is walked for the
// pin as every list is (mcp.WalkPages), to the pin's bound of pages
// (maxPinPages), once: the pages a client asks for next are not walked
// again, and are answered.
func TestPinWalkOfAnEndlessList(t *testing.T) {
	t.Parallel()
	up := &pager{endless: true, done: make(chan struct{})}
	// The client's three first pages, and the one walk's maxPinPages.
	if n := listThrice(t, up, 0); n != 3+maxPinPages {
		t.Errorf("%d tools/list requests, want %d", n, 3+maxPinPages)
	}
}

// A walk for the pin that runs out of its time (a server that never
// answers a later page) failed as one that is refused did: the pages a
// client asks for next do not each wait the walk's time again.
func TestPinWalkOutOfTimeWalkedOnce(t *testing.T) {
	testkit.SkipLong(t, "waits for a walk to run out of time")
	t.Parallel()
	up := &pager{hang: true, done: make(chan struct{})}
	// The client's three first pages, and the one walk's two pages.
	if n := listThrice(t, up, 2*time.Second); n != 3+2 {
		t.Errorf("%d tools/list requests, want %d", n, 3+2)
	}
}

// listThrice serves up with a pin (its walks bounded by pinWait, when
// set), has a client ask for the first page of the tools three times,
// and returns how many pages up was asked for.
func listThrice(t *testing.T, up *pager, pinWait time.Duration) int32 {
	t.Helper()
	srv := &Server{Open: func(context.Context, Relay) (Upstream, error) { return up, nil }, Pin: newPinFixture(t, "").pin(), Log: slog.New(&saidLog{}), pinWait: pinWait}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	c, _ := servetest.StdioClient(t, srv, "legacy")
	for range 3 {
		if res := string(servetest.Call(t, c, "tools/list", `{}`)); !strings.Contains(res, `"name":"sub"`) {
			t.Errorf("tools/list: %s", res)
		}
	}
	return up.lists.Load()
}
