package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type listResult struct {
	result json.RawMessage
	next   string
	err    error
}

// runList runs List against a server whose pages are keyed by cursor ("" is
// the first page). It returns List's result and the params of every request.
func runList(t *testing.T, pages map[string]string, p Pages) (listResult, []string) {
	t.Helper()
	var r listResult
	params := serveList(t, pages, func(c *Client) {
		r.result, r.next, r.err = c.List(t.Context(), "tools/list", "tools", p)
	})
	return r, params
}

// serveList runs run with a client of a server whose pages are keyed by
// cursor, and returns the params of every request it sent.
func serveList(t *testing.T, pages map[string]string, run func(c *Client)) []string {
	t.Helper()
	s, m := newTestSession(t, SessionOptions{})
	c := &Client{s: s}
	done := make(chan struct{})
	go func() { // ends with run, which ends with the transport's answers
		defer close(done)
		run(c)
	}()
	var params []string
	for {
		select {
		case <-done:
			m.assertQuiet(t)
			return params
		case b := <-m.out:
			var req wireMsg
			if err := json.Unmarshal(b, &req); err != nil || req.Method != "tools/list" {
				t.Fatalf("client sent %s", b)
			}
			params = append(params, string(req.Params))
			if len(params) > 20 {
				t.Fatal("List does not stop")
			}
			var cur struct{ Cursor string }
			json.Unmarshal(req.Params, &cur)
			page, ok := pages[cur.Cursor]
			if !ok {
				m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32602,"message":"bad cursor"}}`)
				continue
			}
			m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+page+`}`)
		case <-m.closed:
			t.Fatal("transport closed")
		}
	}
}

func TestList(t *testing.T) {
	threePages := map[string]string{
		"":   `{"_meta":{"m":1}, "tools":[{"name":"a"}], "nextCursor":"c1", "z": "last"}`,
		"c1": `{"tools":[{"name":"b"}, {"name" : "c",  "n": 1.50}],"nextCursor":"c2"}`,
		"c2": "{\"tools\":[ {\"name\":\"d\",\n \"odd\":  [1, 2e0]} ],\"nextCursor\":null}",
	}
	merged := `{"_meta":{"m":1},"tools":[{"name":"a"},{"name":"b"},{"name" : "c",  "n": 1.50},{"name":"d",` + "\n" + ` "odd":  [1, 2e0]}],"z":"last"}`
	tests := []struct {
		name       string
		pages      map[string]string
		p          Pages
		want       string
		wantNext   string
		wantParams []string
	}{
		{"one page byte-exact", map[string]string{"": "{ \"tools\" : [ {\"name\":\"a\",  \"x\" : 1} ] ,\"_meta\":{}}"}, Pages{},
			"{ \"tools\" : [ {\"name\":\"a\",  \"x\" : 1} ] ,\"_meta\":{}}", "", []string{""}},
		{"empty nextCursor is the end", map[string]string{"": `{"tools":[],"nextCursor":""}`}, Pages{},
			`{"tools":[],"nextCursor":""}`, "", []string{""}},
		{"null nextCursor is the end", map[string]string{"": `{"tools":[],"nextCursor":null}`}, Pages{},
			`{"tools":[],"nextCursor":null}`, "", []string{""}},
		{"three pages merged", threePages, Pages{}, merged, "",
			[]string{"", `{"cursor":"c1"}`, `{"cursor":"c2"}`}},
		{"Max above the page count", threePages, Pages{Max: 5}, merged, "",
			[]string{"", `{"cursor":"c1"}`, `{"cursor":"c2"}`}},
		{"Max 2 keeps nextCursor", threePages, Pages{Max: 2},
			`{"_meta":{"m":1},"tools":[{"name":"a"},{"name":"b"},{"name" : "c",  "n": 1.50}],"z":"last","nextCursor":"c2"}`, "c2",
			[]string{"", `{"cursor":"c1"}`}},
		{"Max 1", threePages, Pages{Max: 1},
			`{"_meta":{"m":1},"tools":[{"name":"a"}],"z":"last","nextCursor":"c1"}`, "c1", []string{""}},
		{"Cursor fetches one page as sent", threePages, Pages{Cursor: "c1"},
			threePages["c1"], "", []string{`{"cursor":"c1"}`}},
		{"Cursor ignores Max", threePages, Pages{Cursor: "c2", Max: 3},
			threePages["c2"], "", []string{`{"cursor":"c2"}`}},
		{"empty nextCursor ends a walk", map[string]string{
			"":   `{"tools":[1],"nextCursor":"x"}`,
			"x":  `{"tools":[2],"nextCursor":""}`,
			"xx": `{"tools":[3]}`,
		}, Pages{}, `{"tools":[1,2]}`, "", []string{"", `{"cursor":"x"}`}},
		{"first page without items", map[string]string{
			"":  `{"nextCursor":"x","a":1}`,
			"x": `{"tools":[{"n":1}]}`,
		}, Pages{}, `{"a":1,"tools":[{"n":1}]}`, "", []string{"", `{"cursor":"x"}`}},
		{"null items skipped", map[string]string{
			"":  `{"tools":null,"nextCursor":"x"}`,
			"x": `{"tools":[true]}`,
		}, Pages{}, `{"tools":[true]}`, "", []string{"", `{"cursor":"x"}`}},
		{"cursor with characters to escape", map[string]string{
			"":      `{"tools":[1],"nextCursor":"a\"b\\c"}`,
			`a"b\c`: `{"tools":[2]}`,
		}, Pages{}, `{"tools":[1,2]}`, "", []string{"", `{"cursor":"a\"b\\c"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, params := runList(t, tt.pages, tt.p)
			if r.err != nil {
				t.Fatalf("List: %v", r.err)
			}
			if diff := cmp.Diff(tt.want, string(r.result)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if r.next != tt.wantNext {
				t.Errorf("next = %q, want %q", r.next, tt.wantNext)
			}
			if diff := cmp.Diff(tt.wantParams, params); diff != "" {
				t.Errorf("request params (-want +got):\n%s", diff)
			}
			if !json.Valid(r.result) {
				t.Errorf("result is not JSON: %s", r.result)
			}
			// ListTo writes the same bytes, in pieces as the pages come.
			var streamed strings.Builder
			var next string
			var err error
			serveList(t, tt.pages, func(c *Client) {
				next, err = c.ListTo(t.Context(), "tools/list", "tools", tt.p, func(b []byte) error {
					streamed.Write(b)
					return nil
				})
			})
			if err != nil || next != tt.wantNext {
				t.Fatalf("ListTo: next %q, %v", next, err)
			}
			if diff := cmp.Diff(tt.want, streamed.String()); diff != "" {
				t.Errorf("ListTo wrote (-want +got):\n%s", diff)
			}
		})
	}
}

// A walk that fails after pages were written closes what it wrote: one
// JSON value of the items read, the error returned.
func TestListToClosesWhatItWrote(t *testing.T) {
	pages := map[string]string{
		"":   `{"tools":[{"name":"a"}],"nextCursor":"c1","z":1}`,
		"c1": `{"tools":[{"name":"b"}],"nextCursor":"c1"}`,
	}
	var streamed strings.Builder
	var err error
	serveList(t, pages, func(c *Client) {
		_, err = c.ListTo(t.Context(), "tools/list", "tools", Pages{}, func(b []byte) error {
			streamed.Write(b)
			return nil
		})
	})
	var rc *RepeatedCursorError
	if !errors.As(err, &rc) {
		t.Fatalf("ListTo = %v, want the repeated cursor", err)
	}
	if got := streamed.String(); got != `{"tools":[{"name":"a"},{"name":"b"}],"z":1}` {
		t.Errorf("wrote %s", got)
	}
}

func TestListErrors(t *testing.T) {
	tests := []struct {
		name       string
		pages      map[string]string
		wantErr    func(error) bool
		wantParams []string
	}{
		{"repeated cursor", map[string]string{
			"":   `{"tools":[1],"nextCursor":"c1"}`,
			"c1": `{"tools":[2],"nextCursor":"c1"}`,
		}, listError(&RepeatedCursorError{Page: 2, Cursor: "c1"}), []string{"", `{"cursor":"c1"}`}},
		{"cursor cycle", map[string]string{
			"":   `{"tools":[1],"nextCursor":"c1"}`,
			"c1": `{"tools":[2],"nextCursor":"c2"}`,
			"c2": `{"tools":[3],"nextCursor":"c1"}`,
		}, listError(&RepeatedCursorError{Page: 3, Cursor: "c1"}), []string{"", `{"cursor":"c1"}`, `{"cursor":"c2"}`}},
		{"items not an array", map[string]string{"": `{"tools":{}}`},
			listError(&NotAListError{Page: 1, Reason: `"tools" is not an array`}), []string{""}},
		{"nextCursor not a string", map[string]string{"": `{"tools":[],"nextCursor":5}`},
			listError(&NotAListError{Page: 1, Reason: "nextCursor is not a string"}), []string{""}},
		// The page's items, sound, are kept with the error (before or
		// after the broken cursor): what it listed stands.
		{"nextCursor not a string, the items kept", map[string]string{"": `{"nextCursor":5,"tools":[1,{"a":2}]}`},
			listError(&NotAListError{Page: 1, Reason: "nextCursor is not a string", Items: []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`{"a":2}`)}}), []string{""}},
		{"page not an object", map[string]string{"": `[]`},
			transportErrorSaying("page 1: not a JSON object"), []string{""}},
		{"error on a later page", map[string]string{"": `{"tools":[1],"nextCursor":"gone"}`},
			func(err error) bool {
				var ce *CallError
				return errors.As(err, &ce) && ce.Method == "tools/list" && ce.Err.Code == CodeInvalidParams
			}, []string{"", `{"cursor":"gone"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, params := runList(t, tt.pages, Pages{})
			if r.result != nil || !tt.wantErr(r.err) {
				t.Errorf("List = %s, %v", r.result, r.err)
			}
			if diff := cmp.Diff(tt.wantParams, params); diff != "" {
				t.Errorf("request params (-want +got):\n%s", diff)
			}
		})
	}
}

// listError matches a *TransportError for tools/list holding want, of
// want's type and equal to it.
func listError[E error](want E) func(error) bool {
	return func(err error) bool {
		var te *TransportError
		var got E
		return errors.As(err, &te) && te.Op == "tools/list" && errors.As(te.Err, &got) && cmp.Equal(got, want)
	}
}

func transportErrorSaying(s string) func(error) bool {
	return func(err error) bool {
		var te *TransportError
		return errors.As(err, &te) && te.Op == "tools/list" && strings.Contains(err.Error(), s)
	}
}

// Merging rebuilds the first page's object; its other members must keep
// their bytes, keys included (List's doc: "Other members keep their place and
// bytes").
func TestListMergeKeepsKeyBytes(t *testing.T) {
	r, _ := runList(t, map[string]string{
		"":  `{"a<b&c>":1,"caf\u00e9":2,"tools":[1],"nextCursor":"x"}`,
		"x": `{"tools":[2]}`,
	}, Pages{})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := `{"a<b&c>":1,"caf\u00e9":2,"tools":[1,2]}`
	if diff := cmp.Diff(want, string(r.result)); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}
}

// A list is followed to its end however long it is, as long as its pages
// bring something new; one whose pages stop bringing anything new, though
// each names a new cursor, is endless, and the walk stops with an error
// that says so. Pages.Max still stops quietly, keeping nextCursor.
func TestListFollowsProgressToTheEnd(t *testing.T) {
	t.Parallel()
	const long = 1500 // past the 1,000 pages that once ended every walk
	honest := func(n int) string {
		if n == long {
			return fmt.Sprintf(`{"tools":[%d]}`, n)
		}
		return fmt.Sprintf(`{"tools":[%d],"nextCursor":"c%d"}`, n, n)
	}
	tests := []struct {
		name      string
		p         Pages
		page      func(n int) string
		wantPages int
		wantErr   func(error) bool
		wantNext  string
	}{
		{"a long honest list", Pages{}, honest, long, nil, ""},
		{"Max stops quietly", Pages{Max: 1005}, honest, 1005, nil, "c1005"},
		{"new cursors, no items", Pages{}, func(n int) string {
			return fmt.Sprintf(`{"tools":[],"nextCursor":"c%d"}`, n)
		}, MaxStalePages, listError(&EndlessListError{Page: MaxStalePages, Stale: MaxStalePages}), ""},
		{"new cursors, the same items", Pages{}, func(n int) string {
			return fmt.Sprintf(`{"tools":[{"name":"a"}],"nextCursor":"c%d"}`, n)
		}, MaxStalePages + 1, listError(&EndlessListError{Page: MaxStalePages + 1, Stale: MaxStalePages}), ""},
		{"new cursors, a cycle of pages", Pages{}, func(n int) string {
			return fmt.Sprintf(`{"tools":[%d],"nextCursor":"c%d"}`, n%7, n)
		}, MaxStalePages + 7, listError(&EndlessListError{Page: MaxStalePages + 7, Stale: MaxStalePages}), ""},
		{"progress, then none", Pages{}, func(n int) string {
			return fmt.Sprintf(`{"tools":[%d],"nextCursor":"c%d"}`, min(n, 1200), n)
		}, 1200 + MaxStalePages, listError(&EndlessListError{Page: 1200 + MaxStalePages, Stale: MaxStalePages}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, m := newTestSession(t, SessionOptions{})
			c := &Client{s: s}
			done := make(chan listResult, 1)
			go func() {
				r, next, err := c.List(t.Context(), "tools/list", "tools", tt.p)
				done <- listResult{r, next, err}
			}()
			for n := 1; ; n++ {
				select {
				case r := <-done:
					if got := n - 1; got != tt.wantPages {
						t.Errorf("List asked for %d pages, want %d", got, tt.wantPages)
					}
					if tt.wantErr != nil {
						if !tt.wantErr(r.err) {
							t.Errorf("List error = %v", r.err)
						}
						return
					}
					if r.err != nil || r.next != tt.wantNext {
						t.Fatalf("List = next %q, %v; want next %q", r.next, r.err, tt.wantNext)
					}
					var got struct{ Tools []int }
					if err := json.Unmarshal(r.result, &got); err != nil || len(got.Tools) != tt.wantPages || got.Tools[len(got.Tools)-1] != tt.wantPages {
						t.Errorf("List gave %d tools (%v), want %d", len(got.Tools), err, tt.wantPages)
					}
					return
				case b := <-m.out:
					var req wireMsg
					if err := json.Unmarshal(b, &req); err != nil {
						t.Fatal(err)
					}
					if n > 3*long {
						t.Fatal("List does not stop")
					}
					m.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, tt.page(n)))
				}
			}
		})
	}
}

// What an endless list's pages cost is bounded even when each brings
// something new: the walk stops once they add up to MaxWalkBytes, or past
// MaxWalkPages.
func TestWalkBoundedInBytes(t *testing.T) {
	big := make(json.RawMessage, 4<<20)
	var w walkGuard
	for n := 1; ; n++ {
		list := json.RawMessage(fmt.Sprintf("[%d]", n))
		err := w.next(Page{N: n, Raw: big, List: list, Items: []json.RawMessage{list[1:2]}, Next: fmt.Sprint("c", n)})
		if err == nil {
			if n > 16 {
				t.Fatalf("page %d of 4 MiB: still walking", n)
			}
			continue
		}
		var e *EndlessListError
		if !errors.As(err, &e) || e.Page != 16 || e.Stale != 0 || e.Bytes <= MaxWalkBytes || e.Bound != "64 MiB" {
			t.Fatalf("page %d: %v (%#v), want the walk stopped at page 16 past %d bytes", n, err, e, MaxWalkBytes)
		}
		if !strings.Contains(err.Error(), "at a walk's bound of 64 MiB (16 pages, 64 MiB read in ") {
			t.Errorf("error = %q", err)
		}
		return
	}
}

func TestWalkBoundedInPages(t *testing.T) {
	t.Parallel()
	var w walkGuard
	for n := 1; ; n++ {
		list := json.RawMessage(fmt.Sprintf("[%d]", n))
		err := w.next(Page{N: n, Raw: list, List: list, Items: []json.RawMessage{list[1 : len(list)-1]}, Next: fmt.Sprint("c", n)})
		if err == nil {
			continue
		}
		var e *EndlessListError
		if !errors.As(err, &e) || e.Page != MaxWalkPages || e.Stale != 0 || e.Bound != "100000 pages" {
			t.Fatalf("page %d: %v, want the walk stopped at page %d", n, err, MaxWalkPages)
		}
		if len(w.cursors) > MaxStalePages {
			t.Errorf("%d cursors kept, more than the last %d pages'", len(w.cursors), MaxStalePages)
		}
		return
	}
}

// Walk asks for the next page only while the loop goes on, and ends with
// its error, yielded once.
func TestWalkIsAnIterator(t *testing.T) {
	pages := map[string]string{
		"":   `{"tools":[{"name":"a"}],"nextCursor":"c1"}`,
		"c1": `{"tools":[{"name":"b"}],"nextCursor":"c2"}`,
		"c2": `{"tools":[{"name":"c"}]}`,
	}
	type step struct {
		n    int
		next string
		err  string
	}
	for _, tt := range []struct {
		name       string
		max, stop  int // stop: break after this page (0 never)
		want       []step
		wantParams int
	}{
		{"to the end", 0, 0, []step{{1, "c1", ""}, {2, "c2", ""}, {3, "", ""}}, 3},
		{"a break asks no more", 0, 1, []step{{1, "c1", ""}}, 1},
		{"the cap's error after its pages", 2, 0, []step{{1, "c1", ""}, {2, "c2", ""}, {0, "", "still not at the end after 2 pages"}}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []step
			params := serveList(t, pages, func(c *Client) {
				for p, err := range c.Walk(t.Context(), "tools/list", "tools", tt.max) {
					s := step{n: p.N, next: p.Next}
					var pc *PageCapError
					if errors.As(err, &pc) {
						s.err = pc.Error()
					} else if err != nil {
						s.err = err.Error()
					}
					got = append(got, s)
					if p.N == tt.stop {
						break
					}
				}
			})
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(step{})); diff != "" {
				t.Errorf("pages (-want +got):\n%s", diff)
			}
			if len(params) != tt.wantParams {
				t.Errorf("%d requests, want %d", len(params), tt.wantParams)
			}
		})
	}
}

// ListTo writes each page before it asks for the next: what it holds is
// one page, whatever the list's length.
func TestListToWritesEachPageAsItComes(t *testing.T) {
	pages := map[string]string{
		"":   `{"tools":[{"name":"a"}],"nextCursor":"c1"}`,
		"c1": `{"tools":[{"name":"b"}],"nextCursor":"c2"}`,
		"c2": `{"tools":[{"name":"c"}]}`,
	}
	var mu sync.Mutex
	var written strings.Builder
	var atRequest []string // what was written when each page was asked for
	s, m := newTestSession(t, SessionOptions{})
	c := &Client{s: s}
	done := make(chan error, 1)
	go func() {
		_, err := c.ListTo(t.Context(), "tools/list", "tools", Pages{}, func(b []byte) error {
			mu.Lock()
			written.Write(b)
			mu.Unlock()
			return nil
		})
		done <- err
	}()
	for range 3 {
		req := m.nextMsg(t)
		mu.Lock()
		atRequest = append(atRequest, written.String())
		mu.Unlock()
		var cur struct{ Cursor string }
		json.Unmarshal(req.Params, &cur)
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+pages[cur.Cursor]+`}`)
	}
	if err := waitFor(t, done); err != nil {
		t.Fatal(err)
	}
	want := []string{``, `{"tools":[{"name":"a"}`, `{"tools":[{"name":"a"},{"name":"b"}`}
	if d := cmp.Diff(want, atRequest); d != "" {
		t.Errorf("written when each page was asked for (-want +got):\n%s", d)
	}
}

// Keep leaves items out of whatever List returns: every page of a walk,
// a single page, the page a cursor names; the pages' other members stay.
func TestListKeep(t *testing.T) {
	keep := func(item json.RawMessage) bool { return !strings.Contains(string(item), "bad") }
	many := map[string]string{
		"":  `{"tools":[{"name":"bad1"},{"name":"a"}],"nextCursor":"2","x":1}`,
		"2": `{"tools":[{"name":"bad2"}],"nextCursor":"3"}`,
		"3": `{"tools":[{"name":"b"},{"name":"bad3"}]}`,
	}
	for _, tt := range []struct {
		name  string
		pages map[string]string
		p     Pages
		want  string
	}{
		{"every page", many, Pages{Keep: keep}, `{"tools":[{"name":"a"},{"name":"b"}],"x":1}`},
		{"one page", map[string]string{"": `{"tools":[{"name":"bad"},{"name":"a"}],"y":2}`}, Pages{Keep: keep}, `{"tools":[{"name":"a"}],"y":2}`},
		{"a cursor's page", many, Pages{Cursor: "3", Keep: keep}, `{"tools":[{"name":"b"}]}`},
		{"none kept", many, Pages{Keep: func(json.RawMessage) bool { return false }}, `{"tools":[],"x":1}`},
	} {
		r, _ := runList(t, tt.pages, tt.p)
		if r.err != nil || string(r.result) != tt.want {
			t.Errorf("%s: %s, %v; want %s", tt.name, r.result, r.err, tt.want)
		}
	}
}

// A walk whose pages come as slowly as the server likes ends once they
// have taken MaxWalkTime, at the page past it, with the bound's error:
// which bound, and how much was read in how long. A page under way is
// its request's own timeout's to end, never the walk's: a list whose one
// page takes longer than the bound is read. The caller's own end is its
// own error.
func TestWalkBoundedInTime(t *testing.T) {
	t.Parallel()
	// pages is a list whose pages each take d to come (as a request
	// waits for its answer, until ctx ends), the last at cursor c<last>
	// (-1: none is).
	pages := func(d time.Duration, last int) func(context.Context, string) (json.RawMessage, error) {
		return func(ctx context.Context, cursor string) (json.RawMessage, error) {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return nil, context.Cause(ctx)
			}
			n, _ := strconv.Atoi(strings.TrimPrefix(cursor, "c"))
			next := fmt.Sprintf(`,"nextCursor":"c%d"`, n+1)
			if n == last {
				next = ""
			}
			return json.RawMessage(fmt.Sprintf(`{"tools":[{"name":"t%d"}]%s}`, n, next)), nil
		}
	}
	walk := func(ctx context.Context, fetch func(context.Context, string) (json.RawMessage, error)) (read int, err error) {
		for p, perr := range WalkPages(ctx, "tools/list", "tools", 0, fetch) {
			if perr != nil {
				return read, perr
			}
			read = p.N
		}
		return read, nil
	}
	t.Run("pages of four minutes", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			read, err := walk(t.Context(), pages(4*time.Minute, -1))
			var e *EndlessListError
			if !errors.As(err, &e) || e.Bound != "10m0s" || e.Page != 3 || read != 3 || e.Took != 12*time.Minute {
				t.Fatalf("after %d pages: %v (%#v), want the time bound after three", read, err, e)
			}
			if want := "still not at the end at a walk's bound of 10m0s (3 pages, 0 MiB read in 12m0s)"; !strings.Contains(err.Error(), want) {
				t.Errorf("error = %q, want it to hold %q", err, want)
			}
		})
	})
	t.Run("one page of an hour", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			if read, err := walk(t.Context(), pages(time.Hour, 0)); err != nil || read != 1 {
				t.Errorf("a list of one page that takes an hour: %d pages read, %v; want it read", read, err)
			}
		})
	})
	t.Run("the caller's end", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			asked := errors.New("the caller's end")
			var err error
			for p, perr := range WalkPages(ctx, "tools/list", "tools", 0, pages(time.Second, -1)) {
				if p.N == 2 {
					cancel(asked)
				}
				err = perr
			}
			if !errors.Is(err, asked) {
				t.Errorf("a walk its caller ended: %v, want the caller's error", err)
			}
		})
	})
}

// forgetful is kept lists that remember what they were told to forget.
type forgetful struct{ forgot []string }

func (f *forgetful) Kept(string, json.RawMessage, string, bool) (json.RawMessage, func(json.RawMessage, bool)) {
	return nil, nil
}
func (f *forgetful) Forget(list string) { f.forgot = append(f.forgot, list) }

// The pages a walk found broken were kept on the way: the kept lists
// forget them. A walk that ends, or that its own cap stops, keeps them.
func TestBrokenWalkForgetsKeptPages(t *testing.T) {
	for _, tt := range []struct {
		name   string
		pages  map[string]string
		max    int
		forgot []string
	}{
		{"a cursor sent twice", map[string]string{"": `{"tools":[{"name":"a"}],"nextCursor":"c1"}`, "c1": `{"tools":[{"name":"b"}],"nextCursor":"c1"}`}, 0, []string{"tools"}},
		{"no list page", map[string]string{"": `{"tools":[{"name":"a"}],"nextCursor":"c1"}`, "c1": `{"tools":{}}`}, 0, []string{"tools"}},
		{"to the end", map[string]string{"": `{"tools":[{"name":"a"}],"nextCursor":"c1"}`, "c1": `{"tools":[{"name":"b"}]}`}, 0, nil},
		{"its cap", map[string]string{"": `{"tools":[{"name":"a"}],"nextCursor":"c1"}`, "c1": `{"tools":[{"name":"b"}]}`}, 1, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kept := &forgetful{}
			serveList(t, tt.pages, func(c *Client) {
				c.opts.Lists = kept
				for range c.Walk(t.Context(), "tools/list", "tools", tt.max) {
				}
			})
			if diff := cmp.Diff(tt.forgot, kept.forgot); diff != "" {
				t.Errorf("forgotten (-want +got):\n%s", diff)
			}
		})
	}
}
