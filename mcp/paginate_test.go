package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

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
	s, m := newTestSession(t, SessionOptions{})
	c := &Client{s: s}
	done := make(chan listResult, 1)
	go func() {
		r, next, err := c.List(t.Context(), "tools/list", "tools", p)
		done <- listResult{r, next, err}
	}()
	var params []string
	for {
		select {
		case r := <-done:
			m.assertQuiet(t)
			return r, params
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
		})
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

// A server that hands out a new cursor with every page is followed up to
// the cap, then the walk fails with the cursor it stopped at; --max-pages
// style caps (Pages.Max) still stop quietly with nextCursor.
func TestListStopsAtThePageCap(t *testing.T) {
	tests := []struct {
		name      string
		p         Pages
		wantPages int
		wantErr   error
		wantNext  string
	}{
		{"default cap", Pages{}, DefaultMaxPages, &PageCapError{Pages: DefaultMaxPages}, ""},
		{"Max above the default stops quietly", Pages{Max: DefaultMaxPages + 5}, DefaultMaxPages + 5, nil, "c1005"},
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
						if !listError(tt.wantErr.(*PageCapError))(r.err) {
							t.Errorf("List error = %v, want a *PageCapError %v", r.err, tt.wantErr)
						}
						return
					}
					if r.err != nil || r.next != tt.wantNext {
						t.Errorf("List = next %q, %v; want next %q", r.next, r.err, tt.wantNext)
					}
					return
				case b := <-m.out:
					var req wireMsg
					if err := json.Unmarshal(b, &req); err != nil {
						t.Fatal(err)
					}
					if n > 2*DefaultMaxPages {
						t.Fatal("List does not stop")
					}
					m.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[%d],"nextCursor":"c%d"}}`, req.ID, n, n))
				}
			}
		})
	}
}
