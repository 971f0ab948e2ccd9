package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// TestListsKept: a server that declared tools.listChanged lists its tools
// once for every command that asks, until it says they changed; another
// cursor is another request, and a server that declared no listChanged is
// asked every time.
func TestListsKept(t *testing.T) {
	var lists atomic.Int32
	handle := func(f *fakeServer, m wire) {
		if m.Method == "tools/list" {
			f.reply(m, fmt.Sprintf(`{"tools":[],"n":%d}`, lists.Add(1)))
		}
	}
	r := startKeeperOf(t, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"fake","version":"1"}}`, handle)
	a, b := r.attach(t), r.attach(t)
	for _, c := range []*command{a, b, a} {
		if res, err := c.call("tools/list", `{"_meta":{"progressToken":"p"}}`); err != nil || res != `{"tools":[],"n":1}` {
			t.Fatalf("tools/list: %s, %v", res, err)
		}
	}
	if res, err := b.call("tools/list", `{"cursor":"next"}`); err != nil || res != `{"tools":[],"n":2}` {
		t.Errorf("another cursor: %s, %v", res, err)
	}
	r.srv.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	select {
	case note := <-a.notes: // the keeper has seen it: the notes go out after
		if !strings.HasPrefix(note, "notifications/tools/list_changed") {
			t.Fatalf("the command got %s", note)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the change never reached the command")
	}
	if res, err := b.call("tools/list", `{}`); err != nil || res != `{"tools":[],"n":3}` {
		t.Errorf("after the change: %s, %v", res, err)
	}

	lists.Store(0)
	r = startKeeper(t, handle) // tools, but no listChanged
	c := r.attach(t)
	for want := 1; want <= 2; want++ {
		if res, err := c.call("tools/list", `{}`); err != nil || res != fmt.Sprintf(`{"tools":[],"n":%d}`, want) {
			t.Errorf("without listChanged, list %d: %s, %v", want, res, err)
		}
	}
}

// TestToolFoundInKeptPages: a command that looks for one tool (a call)
// gets it from the pages the keeper keeps, in one request and a page of
// that tool alone, however far down the list it is; a tool the kept pages
// do not hold is walked for page by page as before (from the pages kept,
// with every name for the error); a server whose list is not kept is
// asked every time.
func TestToolFoundInKeptPages(t *testing.T) {
	var lists atomic.Int32
	handle := func(f *fakeServer, m wire) {
		page, ok := toolsPage(m, &lists)
		if !ok {
			return
		}
		tools := fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}},{"name":"u%d"}`, page, page)
		if page < 4 {
			f.reply(m, fmt.Sprintf(`{"tools":[%s],"nextCursor":"%d"}`, tools, page+1))
		} else {
			f.reply(m, `{"tools":[`+tools+`,{"name":"x\ufffd"}]}`)
		}
	}
	const listChanged = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"fake","version":"1"}}`
	r := startKeeperOf(t, listChanged, handle)
	a, b := r.attach(t), r.attach(t)
	ctx := context.Background()
	if tool, err := a.client.FindTool(ctx, "t4"); err != nil || string(tool.Raw) != `{"name":"t4","inputSchema":{"type":"object"}}` {
		t.Fatalf("first FindTool: %s, %v", tool.Raw, err)
	}
	if n := lists.Load(); n != 5 {
		t.Fatalf("the first walk sent %d tools/list, want 5", n)
	}
	// The page b gets holds t4 alone: the keeper sent it no other page.
	var pages []string
	for p, err := range b.client.Walk(mcp.WithToolSought(ctx, "t4"), "tools/list", "tools", 0) {
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, string(p.Raw))
	}
	if len(pages) != 1 || pages[0] != `{"tools":[{"name":"t4","inputSchema":{"type":"object"}}]}` {
		t.Errorf("pages a command looking for t4 got: %q", pages)
	}
	for _, name := range []string{"u0", "t2", "u4"} {
		if tool, err := b.client.FindTool(ctx, name); err != nil || mcp.ToolName(tool.Raw) != name {
			t.Errorf("FindTool(%s) = %s, %v", name, tool.Raw, err)
		}
	}
	// A name that is not UTF-8 is not sought: encoded, it would name the
	// tool x\ufffd.
	for _, name := range []string{"nosuch", "x\xff"} {
		var missing *mcp.ToolNotListedError
		if _, err := b.client.FindTool(ctx, name); !errors.As(err, &missing) || len(missing.Listed) != 11 {
			t.Errorf("FindTool(%q) = %v, want not listed among all 11", name, err)
		}
	}
	if n := lists.Load(); n != 5 {
		t.Errorf("the server was asked for %d tools/list, want the first walk's 5 alone", n)
	}

	lists.Store(0)
	r = startKeeper(t, handle) // tools, but no listChanged: nothing is kept
	c := r.attach(t)
	for range 2 {
		if tool, err := c.client.FindTool(ctx, "t3"); err != nil || mcp.ToolName(tool.Raw) != "t3" {
			t.Fatalf("FindTool(t3) with nothing kept: %s, %v", tool.Raw, err)
		}
	}
	if n := lists.Load(); n != 8 {
		t.Errorf("with nothing kept the server was asked for %d tools/list, want 4 a walk", n)
	}
}

// TestToolFoundPastAThousandPages: a tool listed past page 1,000 is found
// by the command's walk, and then by the next command's in one request
// from the pages the keeper keeps.
func TestToolFoundPastAThousandPages(t *testing.T) {
	const pages = 1500
	var lists atomic.Int32
	handle := func(f *fakeServer, m wire) {
		page, ok := toolsPage(m, &lists)
		if !ok {
			return
		}
		next := ""
		if page < pages-1 {
			next = fmt.Sprintf(`,"nextCursor":"%d"`, page+1)
		}
		f.reply(m, fmt.Sprintf(`{"tools":[{"name":"t%d","inputSchema":{"type":"object"}}]%s}`, page, next))
	}
	r := startKeeperOf(t, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"fake","version":"1"}}`, handle)
	a, b := r.attach(t), r.attach(t)
	last := fmt.Sprint("t", pages-1)
	if tool, err := a.client.FindTool(t.Context(), last); err != nil || mcp.ToolName(tool.Raw) != last {
		t.Fatalf("FindTool(%s): %s, %v", last, tool.Raw, err)
	}
	if n := lists.Load(); n != pages {
		t.Fatalf("the first walk sent %d tools/list, want %d", n, pages)
	}
	if tool, err := b.client.FindTool(t.Context(), last); err != nil || mcp.ToolName(tool.Raw) != last {
		t.Fatalf("FindTool(%s) from the kept pages: %s, %v", last, tool.Raw, err)
	}
	if n := lists.Load(); n != pages {
		t.Errorf("the server was asked for %d tools/list, want the first walk's %d alone", n, pages)
	}
}

// toolsPage is the page a tools/list request asks for, by its cursor (a
// number, none for 0), counted in lists; ok is false for other requests.
func toolsPage(m wire, lists *atomic.Int32) (page int, ok bool) {
	if m.Method != "tools/list" {
		return 0, false
	}
	lists.Add(1)
	var p struct{ Cursor string }
	json.Unmarshal(m.Params, &p)
	page, _ = strconv.Atoi(p.Cursor)
	return page, true
}
