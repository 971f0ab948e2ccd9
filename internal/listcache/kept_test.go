package listcache

import (
	"encoding/json"
	"testing"
	"time"
)

// TestExportImport: what a cache kept for a ttl is written down and read
// back into another, as fresh as it was: the walk's pages still find a tool
// for a seek; what was kept until a list_changed notification, what is
// stale, a private result for another authorization context, and entries
// that are not what Export writes are left out.
func TestExportImport(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	a := Cache{Now: clk.now}
	keepPage(t, &a, `{}`, "2", true, "a")
	keepPage(t, &a, `{"cursor":"2"}`, "", true, "b")
	_, r, _ := lookup(t, &a, "prompts/list", `{}`)
	a.Keep(r, json.RawMessage(`{"prompts":[],"ttlMs":1000,"cacheScope":"private"}`), true, false)
	_, r, _ = lookup(t, &a, "resources/list", `{}`)
	a.Keep(r, json.RawMessage(`{"resources":[]}`), false, true) // the initialize era's: until list_changed
	kept := a.Export()
	if len(kept) != 3 {
		t.Fatalf("exported %d, want the 3 kept for a ttl: %+v", len(kept), kept)
	}
	b, err := json.Marshal(kept)
	if err != nil {
		t.Fatal(err)
	}
	var read []Kept
	if err := json.Unmarshal(b, &read); err != nil {
		t.Fatal(err)
	}

	clk.t = clk.t.Add(500 * time.Millisecond)
	for _, private := range []bool{true, false} {
		c := Cache{Now: clk.now}
		c.Import(read, private)
		if got := found(&c, `{}`, "b"); got != `{"cursor":"2"}` {
			t.Errorf("private %v: tool b found on %q after the import", private, got)
		}
		res, _, _ := lookup(t, &c, "prompts/list", `{}`)
		if private != (res != "") {
			t.Errorf("private %v: the private prompts/list imported: %q", private, res)
		}
		if res, _, _ := lookup(t, &c, "resources/list", `{}`); res != "" {
			t.Errorf("the initialize era's list outlived its session: %q", res)
		}
	}

	clk.t = clk.t.Add(time.Second) // past every ttlMs
	var stale Cache
	stale.Now = clk.now
	stale.Import(read, true)
	if held(&stale) != 0 {
		t.Errorf("stale results imported: %d bytes", held(&stale))
	}

	clk.t = time.Unix(1000, 0)
	later := clk.t.Add(time.Hour)
	var odd Cache
	odd.Now = clk.now
	odd.Import([]Kept{
		{Key: "tools/list\x00", List: "prompts", Result: json.RawMessage(`{"tools":[]}`), Expires: later}, // the wrong list
		{Key: "nosuch/list\x00", List: "", Result: json.RawMessage(`{}`), Expires: later},
		{Key: "tools/list\x00", List: "tools", Result: json.RawMessage(`[1]`), Expires: later},
		{Key: "tools/list\x00", List: "tools", Result: json.RawMessage(`{"tools":`), Expires: later},
		{Key: "tools/list\x00", List: "tools", Result: json.RawMessage(`{"tools":[]}`)}, // no expiry: not one of Export's
	}, true)
	if held(&odd) != 0 {
		t.Errorf("entries Export never writes imported: %d bytes", held(&odd))
	}
	// A list_changed notification drops what was imported.
	var c Cache
	c.Now = clk.now
	c.Import(read, true)
	c.Notified("notifications/tools/list_changed")
	if got := found(&c, `{}`, "a"); got != "" {
		t.Errorf("found after list_changed: %q", got)
	}
}
