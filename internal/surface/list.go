package surface

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpv/mcpv/mcp"
)

// MaxPages caps a list walk: a server whose every page has a new cursor is
// stopped there rather than followed for ever. Lists of tools, prompts
// and templates are far shorter.
const MaxPages = 1000

// list is one paginated list method: the capability that gates it and the
// key its items are under.
type list struct {
	method, key, capability string
}

var (
	toolsList     = list{"tools/list", "tools", "tools"}
	promptsList   = list{"prompts/list", "prompts", "prompts"}
	resourcesList = list{"resources/list", "resources", "resources"}
	templatesList = list{"resources/templates/list", "resourceTemplates", "resources"}
)

// listError is a list that could not be walked to its end though the
// server answered every request: a cursor sent twice, the page cap, or a
// page that is no list page. Rule is the lint rule it breaks.
type listError struct {
	Method string
	Rule   string // RulePagination or RuleList
	Msg    string
}

func (e *listError) Error() string { return e.Method + ": " + e.Msg }

// walk lists every page of l from the start and returns the items. Items
// are the server's bytes. A page whose list is missing or null counts as
// empty, and is noted. On a *listError the items of the pages read so far
// come back too.
//
// The client's own page walk stops at a repeated cursor but has no page
// cap and does not say which of its errors is which; this one does both.
func walk(ctx context.Context, c *mcp.Client, l list) (items []json.RawMessage, notes []string, err error) {
	seen := map[string]bool{}
	cursor := ""
	for n := 1; ; n++ {
		var params json.RawMessage
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		page, err := c.Call(ctx, l.method, params)
		if err != nil {
			return items, notes, err
		}
		got, next, note, err := splitPage(page, l.key)
		if err != nil {
			return items, notes, &listError{l.method, RuleList, fmt.Sprintf("page %d: %v", n, err)}
		}
		if note != "" {
			notes = append(notes, fmt.Sprintf("%s: page %d: %s", l.method, n, note))
		}
		items = append(items, got...)
		switch {
		case next == "":
			return items, notes, nil
		case seen[next]:
			return items, notes, &listError{l.method, RulePagination,
				fmt.Sprintf("page %d repeats nextCursor %.60q, so the list never ends", n, next)}
		case n >= MaxPages:
			return items, notes, &listError{l.method, RulePagination,
				fmt.Sprintf("still not at the end after %d pages", MaxPages)}
		}
		seen[next] = true
		cursor = next
	}
}

// splitPage returns a page's items and nextCursor ("" at the end; some
// servers send "" or null for the last page), or an error for a page that
// is not an object, a list that is not an array or a cursor that is not a
// string. A missing or null list is a note, and no items.
func splitPage(page json.RawMessage, key string) (items []json.RawMessage, next, note string, err error) {
	var p map[string]json.RawMessage
	if json.Unmarshal(page, &p) != nil || p == nil {
		return nil, "", "", fmt.Errorf("the result is not a JSON object")
	}
	switch raw, ok := p[key]; {
	case !ok:
		note = fmt.Sprintf("the result has no %q", key)
	case string(raw) == "null":
		note = fmt.Sprintf("%q is null, not an array", key)
	default:
		if json.Unmarshal(raw, &items) != nil || items == nil {
			return nil, "", "", fmt.Errorf("%q is not an array", key)
		}
	}
	if raw, ok := p["nextCursor"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &next) != nil {
			return nil, "", "", fmt.Errorf("nextCursor is not a string")
		}
	}
	return items, next, note, nil
}
