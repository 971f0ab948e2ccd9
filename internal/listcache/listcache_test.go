package listcache

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clock is a time the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// held is how many bytes of results c holds.
func held(c *Cache) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// lookup is Lookup with its result as a string, "" for a miss.
func lookup(t *testing.T, c *Cache, method, params string) (string, Request, bool) {
	t.Helper()
	res, r, ok := c.Lookup(method, json.RawMessage(params), "")
	return string(res), r, ok
}

// TestLegacyKeptUntilChanged: in the initialize era a list is kept while
// the server declared listChanged for it, until the notification; a list
// without listChanged is not kept.
func TestLegacyKeptUntilChanged(t *testing.T) {
	var c Cache
	res, r, ok := lookup(t, &c, "tools/list", `{}`)
	if res != "" || !ok {
		t.Fatalf("first lookup: %q %v", res, ok)
	}
	c.Keep(r, json.RawMessage(`{"tools":[1]}`), false, true)
	if res, _, _ := lookup(t, &c, "tools/list", `{}`); res != `{"tools":[1]}` {
		t.Errorf("kept: %q", res)
	}
	// Another list's change leaves it; its own drops it.
	c.Notified("notifications/prompts/list_changed")
	c.Notified("notifications/message")
	if res, _, _ := lookup(t, &c, "tools/list", `{}`); res == "" {
		t.Error("dropped by another list's change")
	}
	c.Notified("notifications/tools/list_changed")
	if res, _, _ := lookup(t, &c, "tools/list", `{}`); res != "" || held(&c) != 0 {
		t.Errorf("after tools/list_changed: %q, %d bytes held", res, held(&c))
	}

	_, r, _ = lookup(t, &c, "prompts/list", `{}`)
	c.Keep(r, json.RawMessage(`{"prompts":[]}`), false, false)
	if res, _, _ := lookup(t, &c, "prompts/list", `{}`); res != "" {
		t.Errorf("kept without listChanged: %q", res)
	}
}

// TestModernKeptForItsTTL: in the modern era a complete result is kept for
// its ttlMs; 0, none, a negative one or an input_required result is not.
func TestModernKeptForItsTTL(t *testing.T) {
	clk := &clock{t: time.Unix(1000, 0)}
	c := Cache{Now: clk.now}
	for _, tc := range []struct {
		result string
		kept   bool
	}{
		{`{"resultType":"complete","ttlMs":1500,"tools":[]}`, true},
		{`{"ttlMs":1500,"tools":[]}`, true},
		{`{"resultType":"complete","ttlMs":0,"tools":[]}`, false},
		{`{"resultType":"complete","tools":[]}`, false},
		{`{"resultType":"complete","ttlMs":-5,"tools":[]}`, false},
		{`{"resultType":"input_required","ttlMs":1500}`, false},
	} {
		c.Notified("notifications/tools/list_changed")
		_, r, _ := lookup(t, &c, "tools/list", `{"cursor":"a"}`)
		c.Keep(r, json.RawMessage(tc.result), true, true)
		res, _, _ := lookup(t, &c, "tools/list", `{"cursor":"a"}`)
		if (res != "") != tc.kept {
			t.Errorf("%s: kept %v, want %v", tc.result, res != "", tc.kept)
		}
	}
	c.Notified("notifications/tools/list_changed")
	_, r, _ := lookup(t, &c, "resources/templates/list", `{}`)
	c.Keep(r, json.RawMessage(`{"ttlMs":1500,"resourceTemplates":[]}`), true, false)
	clk.t = clk.t.Add(1499 * time.Millisecond)
	if res, _, _ := lookup(t, &c, "resources/templates/list", `{}`); res == "" {
		t.Error("stale before its TTL")
	}
	clk.t = clk.t.Add(time.Millisecond)
	if res, _, _ := lookup(t, &c, "resources/templates/list", `{}`); res != "" || held(&c) != 0 {
		t.Errorf("fresh at its TTL: %q, %d bytes held", res, held(&c))
	}
	// A resources change makes the templates stale too.
	_, r, _ = lookup(t, &c, "resources/templates/list", `{}`)
	c.Keep(r, json.RawMessage(`{"ttlMs":60000,"resourceTemplates":[]}`), true, false)
	c.Notified("notifications/resources/list_changed")
	if res, _, _ := lookup(t, &c, "resources/templates/list", `{}`); res != "" {
		t.Error("templates kept after resources/list_changed")
	}
}

// TestChangeDuringRequest: a result whose request began before the list
// changed is not kept.
func TestChangeDuringRequest(t *testing.T) {
	var c Cache
	_, r, _ := lookup(t, &c, "tools/list", `{}`)
	c.Notified("notifications/tools/list_changed")
	c.Keep(r, json.RawMessage(`{"tools":["old"]}`), false, true)
	if res, _, _ := lookup(t, &c, "tools/list", `{}`); res != "" {
		t.Errorf("a result from before the change was kept: %q", res)
	}
}

// TestKeys: each cursor and each _meta is its own entry, the progress token
// aside; other methods, and requests that answer input requests, are not
// cached at all.
func TestKeys(t *testing.T) {
	var c Cache
	keep := func(params, result string) {
		t.Helper()
		_, r, ok := lookup(t, &c, "tools/list", params)
		if !ok {
			t.Fatalf("%s: not cacheable", params)
		}
		c.Keep(r, json.RawMessage(result), false, true)
	}
	keep(`{"_meta":{"progressToken":1,"x":"a"}}`, `"a"`)
	keep(`{"cursor":"c2","_meta":{"progressToken":2}}`, `"c2"`)
	keep(`null`, `"none"`)
	for params, want := range map[string]string{
		`{"_meta":{"x":"a","progressToken":"other"}}`: `"a"`,
		`{"_meta":{"x":"a"}}`:                         `"a"`,
		`{"_meta":{"x":"b"}}`:                         ``,
		`{"cursor":"c2"}`:                             `"c2"`,
		`{"cursor":"c3"}`:                             ``,
		``:                                            `"none"`,
		`{}`:                                          `"none"`,
		`{"_meta":{"progressToken":3}}`:               `"none"`,
	} {
		if res, _, _ := lookup(t, &c, "tools/list", params); res != want {
			t.Errorf("tools/list %s: %q, want %q", params, res, want)
		}
	}
	for _, tc := range []struct{ method, params string }{
		{"tools/call", `{}`},
		{"resources/read", `{"uri":"x"}`},
		{"tools/list", `{"requestState":"s"}`},
		{"tools/list", `{"inputResponses":{}}`},
		{"tools/list", `[1]`},
		{"tools/list", `{"_meta":7}`},
		{"tools/list", `{"cursor":`},
	} {
		if _, _, ok := lookup(t, &c, tc.method, tc.params); ok {
			t.Errorf("%s %s: cacheable", tc.method, tc.params)
		}
	}
}

// TestBounded: the cache never holds more than MaxBytes, and a result over
// a quarter of that is not kept.
func TestBounded(t *testing.T) {
	var c Cache
	page := `"` + strings.Repeat("x", MaxBytes/5) + `"`
	for i := range 12 {
		_, r, _ := lookup(t, &c, "tools/list", `{"cursor":"`+string(rune('a'+i))+`"}`)
		c.Keep(r, json.RawMessage(page), false, true)
		if held(&c) > MaxBytes {
			t.Fatalf("after %d pages: %d bytes held, over %d", i+1, held(&c), MaxBytes)
		}
	}
	if held(&c) == 0 {
		t.Error("nothing kept")
	}
	huge := `"` + strings.Repeat("x", MaxBytes/4) + `"`
	_, r, _ := lookup(t, &c, "prompts/list", `{}`)
	c.Keep(r, json.RawMessage(huge), false, true)
	if res, _, _ := lookup(t, &c, "prompts/list", `{}`); res != "" {
		t.Error("a result over a quarter of the bound was kept")
	}
}

// keepPage keeps a tools/list page of the tools named, for the request
// with params, with nextCursor next ("" for the last page).
func keepPage(t *testing.T, c *Cache, params, next string, modern bool, names ...string) {
	t.Helper()
	_, r, ok := lookup(t, c, "tools/list", params)
	if !ok {
		t.Fatalf("%s: not cacheable", params)
	}
	var tools []string
	for _, n := range names {
		tools = append(tools, `{"name":"`+n+`","inputSchema":{"type":"object"},"page":`+strconv.Quote(params)+`}`)
	}
	page := `{"tools":[` + strings.Join(tools, ",") + `]`
	if next != "" {
		page += `,"nextCursor":` + strconv.Quote(next)
	}
	if modern {
		page += `,"ttlMs":1000`
	}
	c.Keep(r, json.RawMessage(page+"}"), modern, true)
}

// seek is findTool of the walk a request with params begins (none for a
// later page's request, as Lookup looks).
func seek(c *Cache, params, name string) (json.RawMessage, bool) {
	base, cursor, ok := keyParts("tools/list", json.RawMessage(params))
	if !ok || cursor != "" {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.findTool(base, name, c.now())
}

// found is seek with the page the tool was kept from, "" for none.
func found(c *Cache, params, name string) string {
	tool, ok := seek(c, params, name)
	if !ok {
		return ""
	}
	var d struct{ Name, Page string }
	if json.Unmarshal(tool, &d) != nil || d.Name != name {
		return "not the tool: " + string(tool)
	}
	return d.Page
}

// TestFindToolInKeptPages: a walk's first request finds a tool on the kept page the
// walk reaches first, following each nextCursor (escaped or not) with the
// rest of the request as it was; a later page's request, a page not kept,
// stale or dropped on the way, a list that ends without it, and another
// _meta find nothing.
func TestFindToolInKeptPages(t *testing.T) {
	var c Cache
	meta := `"_meta":{"progressToken":1,"x":"a"}`
	keepPage(t, &c, `{`+meta+`}`, "p/2", false, "a", "b")
	keepPage(t, &c, `{"cursor":"p\/2",`+meta+`}`, "p3", false, "c", "dup")
	keepPage(t, &c, `{`+meta+`,"cursor":"p3"}`, "", false, "dup", "d")
	first, second, third := `{`+meta+`}`, `{"cursor":"p\/2",`+meta+`}`, `{`+meta+`,"cursor":"p3"}`
	for _, tc := range []struct{ params, name, page string }{
		{`{"_meta":{"x":"a","progressToken":"mine"}}`, "a", first},
		{`{"_meta":{"x":"a"}}`, "c", second},
		{`{"_meta":{"x":"a"}}`, "d", third},
		{`{"_meta":{"x":"a"}}`, "dup", second},
		{`{"_meta":{"x":"a"},"cursor":"p/2"}`, "d", ""},
		{`{"cursor":"p3","_meta":{"x":"a"}}`, "dup", ""},
		{`{"_meta":{"x":"a"}}`, "nosuch", ""},
		{`{"_meta":{"x":"b"}}`, "a", ""},
		{`{}`, "a", ""},
		{`{"_meta":{"x":"a"},"requestState":"s"}`, "a", ""},
	} {
		if got := found(&c, tc.params, tc.name); got != tc.page {
			t.Errorf("findTool(%s, %s) from %q, want %q", tc.params, tc.name, got, tc.page)
		}
	}
	// The first definition of a name that the command cannot read is
	// passed over by its walk: the walk decides, not the kept pages.
	var odd Cache
	_, r, _ := lookup(t, &odd, "tools/list", `{}`)
	odd.Keep(r, json.RawMessage(`{"tools":[{"name":"t","execution":1}],"nextCursor":"2"}`), false, true)
	keepPage(t, &odd, `{"cursor":"2"}`, "", false, "t")
	if got := found(&odd, `{}`, "t"); got != "" {
		t.Errorf("found past a definition the command cannot read: %q", got)
	}
	// A nextCursor of "" ends the list; one that does not decode as it was
	// written, or is no string, cannot be followed.
	for _, next := range []string{`""`, `"\ud800"`, `"\ufffd"`, `7`} {
		var ends Cache
		_, r, _ := lookup(t, &ends, "tools/list", `{}`)
		ends.Keep(r, json.RawMessage(`{"tools":[{"name":"a"}],"nextCursor":`+next+`}`), false, true)
		for _, cursor := range []string{`""`, `"\ufffd"`, `"\ud800"`, `"�"`, `7`} {
			keepPage(t, &ends, `{"cursor":`+cursor+`}`, "", false, "z")
		}
		if got := found(&ends, `{}`, "z"); got != "" {
			t.Errorf("nextCursor %s: found on %q", next, got)
		}
	}
	// A walk follows a list to its end, however long, and so does
	// findTool; a page that names one before it ends the search, as the
	// walk would end.
	var long Cache
	const pages = 1500
	for i := range pages {
		params, next := `{}`, fmt.Sprint(i+1)
		if i > 0 {
			params = fmt.Sprintf(`{"cursor":"%d"}`, i)
		}
		if i == pages-1 {
			next = ""
		}
		keepPage(t, &long, params, next, false, fmt.Sprint("t", i))
	}
	if got := found(&long, `{}`, fmt.Sprint("t", pages-1)); got != fmt.Sprintf(`{"cursor":"%d"}`, pages-1) {
		t.Errorf("the tool of page %d found on %q", pages, got)
	}
	var cycle Cache
	keepPage(t, &cycle, `{}`, "1", false, "a")
	keepPage(t, &cycle, `{"cursor":"1"}`, "2", false, "b")
	keepPage(t, &cycle, `{"cursor":"2"}`, "1", false, "c")
	if got := found(&cycle, `{}`, "nosuch"); got != "" {
		t.Errorf("found in a cycle of pages: %q", got)
	}

	// A page missing on the way: the walk cannot know what it held.
	var gap Cache
	keepPage(t, &gap, `{}`, "2", false, "a")
	keepPage(t, &gap, `{"cursor":"3"}`, "", false, "z")
	if got := found(&gap, `{}`, "z"); got != "" {
		t.Errorf("found past a page not kept: %q", got)
	}
	// Cursors that come round again end the walk.
	var loop Cache
	keepPage(t, &loop, `{}`, "2", false, "a")
	keepPage(t, &loop, `{"cursor":"2"}`, "2", false, "b")
	if got := found(&loop, `{}`, "z"); got != "" {
		t.Errorf("found in a loop: %q", got)
	}
	// A change drops every page; a modern page is found while it is fresh.
	c.Notified("notifications/tools/list_changed")
	if got := found(&c, `{}`, "a"); got != "" {
		t.Errorf("found after list_changed: %q", got)
	}
	clk := &clock{t: time.Unix(1000, 0)}
	modern := Cache{Now: clk.now}
	keepPage(t, &modern, `{}`, "2", true, "a")
	keepPage(t, &modern, `{"cursor":"2"}`, "", true, "b")
	if got := found(&modern, `{}`, "b"); got != `{"cursor":"2"}` {
		t.Errorf("modern, fresh: %q", got)
	}
	clk.t = clk.t.Add(time.Second)
	if got := found(&modern, `{}`, "b"); got != "" {
		t.Errorf("modern, past its ttlMs: %q", got)
	}
	// A page that is no list of tools is not searched.
	var notList Cache
	_, r, _ = lookup(t, &notList, "tools/list", `{}`)
	notList.Keep(r, json.RawMessage(`{"tools":{"name":"a"}}`), false, true)
	if got := found(&notList, `{}`, "a"); got != "" {
		t.Errorf("found in a page whose tools is an object: %q", got)
	}
}

// toolsPage is a tools/list page of n tools named by their number in hex,
// each as small as a tool can be but for its description, desc.
func toolsPage(n int, desc string) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"%x"%s}`, i, desc)
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

// heapAfter is the live heap once fn has run, less what it was before.
func heapAfter(fn func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestToolIndexCounted: the index findTool reads costs the cache what it
// takes of the heap, or more, so that MaxBytes bounds it with the pages; a
// page of so many small tools that its index would cost more than a
// quarter of MaxBytes is kept without one (found page by page instead),
// and the index is not built only to be dropped.
func TestToolIndexCounted(t *testing.T) {
	var c Cache
	page := toolsPage(20000, `,"description":"a tool of twenty thousand"`)
	_, r, _ := lookup(t, &c, "tools/list", `{}`)
	grew := heapAfter(func() { c.Keep(r, page, false, true) })
	index := held(&c) - len(page)
	if index < 20000*indexed || int64(index) < grew-int64(len(page))/100 {
		t.Errorf("a page of 20,000 tools: its index is counted as %d bytes, and took %d of the heap", index, grew)
	}
	if tool, ok := seek(&c, `{}`, "4e1f"); !ok || !strings.HasPrefix(string(tool), `{"name":"4e1f",`) {
		t.Errorf("tool 0x4e1f in the indexed page: %s, %v", tool, ok)
	}

	var many Cache
	tiny := toolsPage(250000, "")
	if len(tiny) > MaxBytes/4 {
		t.Fatalf("the page of small tools is %d bytes, over what is kept", len(tiny))
	}
	_, r, _ = lookup(t, &many, "tools/list", `{}`)
	grew = heapAfter(func() { many.Keep(r, tiny, false, true) })
	if res, _, _ := lookup(t, &many, "tools/list", `{}`); res == "" {
		t.Fatal("the page of 250,000 small tools was not kept")
	}
	if held(&many) > len(tiny)+64+entryCost || grew > 1<<20 {
		t.Errorf("the page of 250,000 small tools costs %d bytes for %d, and took %d of the heap", held(&many), len(tiny), grew)
	}
	if _, ok := seek(&many, `{}`, "10"); ok {
		t.Error("found in a page kept without an index")
	}
}

// TestManySmallPagesCounted: the walk of a list that never ends gives
// the cache tens of thousands of pages of one tool each; what they take of
// the heap is what they cost the cache, so that MaxBytes bounds them (they
// took three times as much).
func TestManySmallPagesCounted(t *testing.T) {
	var c Cache
	var entries int
	grew := heapAfter(func() {
		for i := range 80_000 {
			_, r, _ := lookup(t, &c, "tools/list", fmt.Sprintf(`{"cursor":"%d"}`, i))
			c.Keep(r, json.RawMessage(fmt.Sprintf(`{"tools":[{"name":"endless-%d","inputSchema":{"type":"object"}}],"nextCursor":"%d"}`, i, i+1)), false, true)
		}
		entries = len(c.entries)
	})
	if held(&c) > MaxBytes || grew > MaxBytes*5/4 {
		t.Errorf("%d pages kept, counted as %d bytes, took %d of the heap; want at most %d", entries, held(&c), grew, MaxBytes)
	}
}

// TestLookupSeeking: a tools/list request that seeks a tool the kept pages
// hold is answered with a page of that tool alone, and is not to be kept;
// one they do not hold, or any other request, is looked up as ever.
func TestLookupSeeking(t *testing.T) {
	var c Cache
	keepPage(t, &c, `{}`, "2", false, "a")
	keepPage(t, &c, `{"cursor":"2"}`, "", false, "b", "c")
	res, r, ok := c.Lookup("tools/list", json.RawMessage(`{}`), "b")
	if !ok || string(res) != `{"tools":[{"name":"b","inputSchema":{"type":"object"},"page":"{\"cursor\":\"2\"}"}]}` || r.key != "" {
		t.Errorf("seeking b: %s, %+v, %v", res, r, ok)
	}
	first, _, _ := lookup(t, &c, "tools/list", `{}`)
	second, _, _ := lookup(t, &c, "tools/list", `{"cursor":"2"}`)
	for _, tc := range []struct{ method, params, seek, want string }{
		{"tools/list", `{}`, "nosuch", first},
		{"tools/list", `{"cursor":"2"}`, "b", second}, // a later page's request: the walk was looked up at its start
		{"prompts/list", `{}`, "b", ""},
	} {
		res, _, _ := c.Lookup(tc.method, json.RawMessage(tc.params), tc.seek)
		want := tc.want
		if string(res) != want {
			t.Errorf("%s seeking %s: %s, want %s", tc.method, tc.seek, res, want)
		}
	}
}
