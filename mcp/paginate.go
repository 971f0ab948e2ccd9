package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Pages says how much of a paginated list to fetch
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).
type Pages struct {
	// Cursor, when set, fetches the single page that starts there; the page is
	// returned as sent, nextCursor included.
	Cursor string
	// Max caps the number of pages walked from the start; 0 means no cap.
	Max int
}

// List fetches a paginated list (tools/list, resources/list, ...) whose items
// are under key. Walking from the start, it follows nextCursor to the end and
// returns the first page's object with key holding every page's items in
// order, without nextCursor. A single page is returned exactly as sent. When
// Max stops the walk early, the result keeps nextCursor and next returns it.
func (c *Client) List(ctx context.Context, method, key string, p Pages) (result json.RawMessage, next string, err error) {
	if p.Cursor != "" {
		page, err := c.Call(ctx, method, cursorParams(p.Cursor))
		return page, "", err
	}
	var first json.RawMessage
	var items []json.RawMessage
	err = c.walk(ctx, method, key, func(n int, page json.RawMessage, pageItems []json.RawMessage, nextCursor string) bool {
		if first == nil {
			if nextCursor == "" {
				result = page
				return true
			}
			first = page
		}
		items = append(items, pageItems...)
		if nextCursor == "" {
			result = mergePages(first, key, items, "")
			return true
		}
		if p.Max > 0 && n >= p.Max {
			result, next = mergePages(first, key, items, nextCursor), nextCursor
			return true
		}
		return false
	})
	if err != nil {
		return nil, "", err
	}
	return result, next, nil
}

// Each walks a paginated list page by page, calling fn with each page's
// items until fn returns true or the list ends.
func (c *Client) Each(ctx context.Context, method, key string, fn func(items []json.RawMessage) (stop bool)) error {
	return c.walk(ctx, method, key, func(_ int, _ json.RawMessage, items []json.RawMessage, next string) bool {
		return fn(items) || next == ""
	})
}

// walk follows nextCursor from the start, calling fn with page n (from 1),
// its items and its nextCursor, until fn returns true. A server that sends
// a cursor twice would loop for ever: that is a transport error.
func (c *Client) walk(ctx context.Context, method, key string, fn func(n int, page json.RawMessage, items []json.RawMessage, next string) bool) error {
	seen := map[string]bool{}
	cursor := ""
	for n := 1; ; n++ {
		var params json.RawMessage
		if cursor != "" {
			params = cursorParams(cursor)
		}
		page, err := c.Call(ctx, method, params)
		if err != nil {
			return err
		}
		items, nextCursor, err := splitPage(page, key)
		if err != nil {
			return &TransportError{Op: method, Err: err}
		}
		if fn(n, page, items, nextCursor) {
			return nil
		}
		if seen[nextCursor] {
			return &TransportError{Op: method, Err: fmt.Errorf("server sent cursor %q twice; stopped after %d pages", nextCursor, n)}
		}
		seen[nextCursor] = true
		cursor = nextCursor
	}
}

func cursorParams(cursor string) json.RawMessage {
	b, _ := json.Marshal(struct {
		Cursor string `json:"cursor"`
	}{cursor})
	return b
}

// splitPage returns a page's items and its nextCursor ("" at the end; some
// servers send "" or null for the last page).
func splitPage(page json.RawMessage, key string) (items []json.RawMessage, next string, err error) {
	err = rawjson.ForEachValidMember(page, func(k string, v []byte) error {
		switch k {
		case key:
			if string(v) == "null" {
				return nil
			}
			if v[0] != '[' {
				return fmt.Errorf("%q is not an array", key)
			}
			// Sub-slices of the page, which the session has checked: no
			// second scan, no copy per item.
			rawjson.ForEachElement(v, func(_ int, el []byte) { items = append(items, el) })
		case "nextCursor":
			if string(v) != "null" {
				if err := json.Unmarshal(v, &next); err != nil {
					return fmt.Errorf("nextCursor is not a string")
				}
			}
		}
		return nil
	})
	return items, next, err
}

// mergePages rebuilds first with key set to items and nextCursor set to next
// (or removed when next is ""). Other members keep their place and bytes.
func mergePages(first json.RawMessage, key string, items []json.RawMessage, next string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	sep := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	writeItems := func(rawKey []byte) {
		sep()
		if rawKey != nil {
			b.Write(rawKey)
			b.WriteByte(':')
		} else {
			writeKey(&b, key)
		}
		b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(it)
		}
		b.WriteByte(']')
	}
	wrote := false
	rawjson.ForEachValidRawMember(first, func(k string, rawKey, v []byte) error {
		switch k {
		case key:
			writeItems(rawKey)
			wrote = true
		case "nextCursor":
		default:
			sep()
			b.Write(rawKey)
			b.WriteByte(':')
			b.Write(v)
		}
		return nil
	})
	if !wrote {
		writeItems(nil)
	}
	if next != "" {
		sep()
		writeKey(&b, "nextCursor")
		nb, _ := json.Marshal(next)
		b.Write(nb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeKey(b *bytes.Buffer, k string) {
	kb, _ := json.Marshal(k)
	b.Write(kb)
	b.WriteByte(':')
}
