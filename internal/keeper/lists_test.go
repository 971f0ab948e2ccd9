package keeper

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
