package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// askedLists is KeptLists that holds one tool, given to a lookup only,
// and notes how each list request asked for it.
type askedLists struct {
	mu    sync.Mutex
	asked []string
}

func (k *askedLists) Kept(method string, params json.RawMessage, seek string, lookup bool) (json.RawMessage, func(json.RawMessage, bool)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.asked = append(k.asked, fmt.Sprintf("%s lookup=%v seek=%q", method, lookup, seek))
	if lookup {
		return json.RawMessage(`{"tools":[{"name":"kept","inputSchema":{"type":"object"}}]}`), nil
	}
	return nil, nil
}

func (k *askedLists) Forget(string) {}

// Whether a list may be answered from what was kept is the walk's to
// say, whatever its context holds: Walk and Call show the list and ask
// the server; Seek, and so FindTool, Items over Seek and the tool cache,
// look something up and take the list kept.
func TestSeekAloneTakesKeptLists(t *testing.T) {
	tr := &answerTransport{in: make(chan []byte, 1), done: make(chan struct{})}
	s := NewSession(tr, SessionOptions{})
	defer s.Close(context.Background())
	kept := &askedLists{}
	c := Attach(s, ClientOptions{Lists: kept}, State{Version: LatestVersion, InitializeResult: parsedInit(`{"capabilities":{"tools":{}}}`)})
	ctx := WithToolSought(t.Context(), "elsewhere")

	shown, err := Items(c.Walk(ctx, "tools/list", "tools", 0), nil)
	if err != nil || len(shown) != 0 {
		t.Errorf("Walk: %s, %v; want the server's empty list", shown, err)
	}
	if res, err := c.Call(ctx, "tools/list", nil); err != nil || string(res) != `{"content":[]}` {
		t.Errorf("Call: %s, %v; want the server's answer", res, err)
	}
	sought, err := Items(c.Seek(t.Context(), "tools/list", "tools"), nil)
	if err != nil || len(sought) != 1 {
		t.Errorf("Seek: %s, %v; want the kept tool", sought, err)
	}
	if tool, err := c.FindTool(t.Context(), "kept"); err != nil || tool.Name != "kept" {
		t.Errorf("FindTool: %+v, %v; want the kept tool", tool, err)
	}
	if _, err := new(ToolCache).Find(t.Context(), c, "kept"); err != nil {
		t.Errorf("ToolCache.Find: %v; want the kept tool", err)
	}
	want := []string{
		`tools/list lookup=false seek="elsewhere"`,
		`tools/list lookup=false seek="elsewhere"`,
		`tools/list lookup=true seek=""`,
		`tools/list lookup=true seek="kept"`,
		`tools/list lookup=true seek=""`,
	}
	if d := cmp.Diff(want, kept.asked); d != "" {
		t.Errorf("asked of the kept lists (-want +got):\n%s", d)
	}
}
