package check

// Lists and pagination: each list has its shape, ends, lists nothing
// twice, keeps its cursors stable, and refuses a cursor it never gave.

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

func listsChecks() []*Check {
	return []*Check{
		{ID: "lists.shape", run: func(t *T) {
			t.lintDone()
			for _, l := range t.r.facts.lists() {
				// A result of a type the client does not know is
				// modern.result-type's, which blocks this check.
				if _, err := t.r.facts.items(t.ctx, l.Method); errors.As(err, new(*mcp.ResultTypeError)) {
					t.listingBroke(err)
				}
			}
			lintFindings(t, surface.SeverityError, surface.RuleList)
			if _, s := t.r.watches.firstNulls(); s != nil {
				t.FailExchange(s.method, s.raw, "%s answered a page with \"nextCursor\": null: the cursor is a string, and a last page has none", s.method)
			}
			if refused := t.r.facts.lintOf(surface.SeverityError, surface.RuleListRefused); len(refused) > 0 {
				t.Skip("%s: a list answered with an error (its backend unreachable, say) has no shape to judge; the lists given have theirs", refused[0].Message)
			}
		}},
		ruleCheck("lists.terminates", surface.RulePagination), // the lint has no warning of it
		{ID: "lists.unique", run: func(t *T) {
			lists := t.r.facts.lists()
			t.skipIf(len(lists) == 0, "the server declares no list")
			for _, l := range lists {
				counts := map[string]int{}
				for _, it := range t.listed(l.Method) {
					if k, ok := str(member(it, l.Field)); ok {
						counts[k]++
						if counts[k] == 2 {
							t.FailExchange(l.Method+" (every page)", clipped(it), "%s lists %s %q more than once", l.Method, l.Field, k)
						}
					}
				}
			}
		}},
		{ID: "lists.cursor-stable", run: func(t *T) {
			paged := false
			for _, l := range t.r.facts.lists() {
				first, rerr := t.call(l.Method, nil)
				if rerr != nil {
					continue
				}
				next, ok := str(member(first, "nextCursor"))
				if !ok {
					continue
				}
				paged = true
				params, _ := json.Marshal(map[string]string{"cursor": next})
				a, e1 := t.call(l.Method, params)
				b, e2 := t.call(l.Method, params)
				t.Sent(fmt.Sprintf("%s with cursor %q, twice", l.Method, clip(next, 80)))
				switch {
				case e1 != nil || e2 != nil:
					t.FailGot(errText(cmp.Or(e1, e2)), "the cursor %s gave was refused (the same cursor, sent twice)", l.Method)
				case !slices.Equal(keysOf(a, l.Key, l.Field), keysOf(b, l.Key, l.Field)):
					t.FailGot(fmt.Sprintf("%v, then %v", keysOf(a, l.Key, l.Field), keysOf(b, l.Key, l.Field)), "the same cursor gave two different pages")
				}
			}
			t.skipIf(!paged, "no list the server declares has a second page")
		}},
		modernCheck("lists.tools-order", needs{capability: "tools"}, func(t *T) {
			c := t.fresh(connOptions{era: "modern"})
			a, _ := t.request(c, "tools/list", nil)
			b, _ := t.ask(c, "tools/list, twice", "tools/list", nil)
			if x, y := keysOf(a.Result, "tools", "name"), keysOf(b.Result, "tools", "name"); a.Error == nil && b.Error == nil && !slices.Equal(x, y) {
				t.FailGot(fmt.Sprintf("%v, then %v", x, y), "tools/list gave the same tools in two orders")
			}
		}),
		// The named tools are called on the first connection first (those
		// whose calls, made once a run, took a quarter of the check's time
		// in all): its lists may not change as a side effect of them.
		modernCheck("lists.per-connection", needs{}, func(t *T) {
			shared, fresh := t.fresh(connOptions{era: "modern"}), t.fresh(connOptions{era: "modern"})
			mark, spent := shared.mark(), time.Duration(0)
			for _, i := range t.r.untasked(t) {
				if rec := t.r.callOnce(t, i); spent+rec.took < t.r.opts.CheckTimeout/4 {
					spent += rec.took
					params, _ := t.r.callParams(t, i, json.RawMessage(fmt.Sprintf(`"mcpv-check-progress-per-connection-%d"`, i)))
					t.request(shared, "tools/call", params)
				}
			}
			for _, l := range t.r.facts.lists() {
				t.Sent(l.Method + " on a connection the named tools were called on, on a new one, then on the first again")
				set := func(c *conn) ([]string, bool) {
					m, _ := t.request(c, l.Method, nil)
					return slices.Sorted(slices.Values(keysOf(m.Result, l.Key, l.Field))), m.Error == nil
				}
				x, ok := set(shared)
				y, ok2 := set(fresh)
				changed := slices.ContainsFunc(shared.since(mark), func(s seen) bool { return strings.HasSuffix(s.msg.Method, "/list_changed") })
				if x2, ok3 := set(shared); ok && ok2 && ok3 && !changed && slices.Equal(x, x2) && !slices.Equal(x, y) {
					t.FailGot(fmt.Sprintf("%v on the first connection, %v on a new one", x, y), "%s's first page lists other %ss on another connection, and no list_changed said it changed", l.Method, l.Item)
				}
			}
		}),
		{ID: "lists.invalid-cursor", run: func(t *T) {
			for _, l := range t.r.facts.lists() {
				res, rerr := t.callShown(l.Method, json.RawMessage(`{"cursor":"mcpv-check:not-a-cursor"}`))
				wantCode(t, res, rerr, -32602, "answered with a page", "answered with error %d, not -32602")
				return
			}
			t.Skip("the server declares no list")
		}},
	}
}

// keysOf are the keys of a page's items, in order; items of the wrong
// shape are their own one key, as sent.
func keysOf(page json.RawMessage, key, by string) []string {
	var items []json.RawMessage
	if p := malformed(member(page, key), &items, key); p != "" {
		return []string{p}
	}
	out := []string{}
	for _, it := range items {
		out = append(out, str1(member(it, by)))
	}
	return out
}
