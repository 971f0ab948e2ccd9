// Package listcache keeps the list results of one session (tools/list,
// prompts/list, resources/list, resources/templates/list) for the
// commands that share it through a session keeper, as MCP's caching rules
// allow, so that a command that lists (call lists the tools to type and
// check its arguments) is answered without a round trip to the server.
//
// What is kept, and for how long:
//
//   - In the modern era (2026-07-28) a result whose ttlMs is positive, for
//     that long; ttlMs 0 (or none) is stale at once and is not kept. A
//     result that is not complete (input_required) is not kept.
//   - In the initialize era, which has no ttlMs, a list whose server
//     declared listChanged for it, until the server says it changed: the
//     heuristic the caching rules leave to a client without a TTL.
//   - Either way, a list_changed notification drops what was kept of that
//     list, and a result whose request began before that notification
//     came is not kept.
//
// A result is kept under its method and its params but the request's own
// progress token: a request with other params (another cursor, other
// _meta) is another entry. The kept pages of tools/list also answer a
// request that seeks one tool, found by following the pages a command's
// walk would read, without sending it every page. A request that answers
// an input request
// (inputResponses, requestState) is never answered from the cache. The
// cache holds at most MaxBytes of results, none larger than a quarter of
// that; a session's keeper is one authorization context, so a "private"
// result is served to the same user's commands only, as the rules allow.
//
// What was kept for a ttl may outlive the process (Export, Import):
// internal/serverstate keeps it between one-shot runs, a "private" result
// for the same credentials alone, and there a result that gives no hints
// (Hinted) for a default of the user's (KeepFor).
package listcache

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// MaxBytes bounds the results one Cache holds.
const MaxBytes = 16 << 20

// changedBy is the list whose change notification makes a kept result
// of method stale (its capability: tools, prompts or resources); ok is
// false for a method that is no list.
func changedBy(method string) (list string, ok bool) {
	l, ok := mcp.ListOf(method)
	return l.Capability, ok
}

// Cache is one session's kept list results. The zero value is ready; it is
// safe for concurrent use.
type Cache struct {
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	mu      sync.Mutex // guards entries, size and gen
	entries map[string]entry
	size    int
	gen     map[string]uint64 // by list: bumped by each change
}

type entry struct {
	list    string
	result  json.RawMessage
	expires time.Time // zero: until the list changes
	private bool      // cacheScope "private": for the authorization context that asked alone

	// A tools/list page's tools by name (the first of a name), sub-slices
	// of result; tools is nil when the page could not be read so. next is
	// the key of the page its nextCursor names, "" when there is none or
	// it cannot be told: either way a search stops there.
	tools map[string]json.RawMessage
	next  string

	size int // what it costs the cache: its key, the result, its index
}

// fresh says whether e may still be served at now.
func (e entry) fresh(now time.Time) bool { return e.expires.IsZero() || now.Before(e.expires) }

// Request is a request that may be answered from the cache, or whose
// result may be kept: Lookup makes it, Keep takes it back with the result.
type Request struct {
	key  string
	base string // the key but for the cursor: the walk's
	list string
	gen  uint64
}

// List is the list r asks for: tools, prompts or resources.
func (r Request) List() string { return r.list }

// Lookup returns the kept result of method with params when one is fresh;
// otherwise, when the request may be kept at all, the Request to give Keep
// with its result (ok false when it may not). A tools/list request that
// seeks a tool (mcp.ToolSought) the kept pages hold (findTool) is answered
// with a page of that tool alone.
func (c *Cache) Lookup(method string, params json.RawMessage, seek string) (result json.RawMessage, r Request, ok bool) {
	list, cacheable := changedBy(method)
	if !cacheable {
		return nil, Request{}, false
	}
	base, cursor, cacheable := keyParts(method, params)
	if !cacheable {
		return nil, Request{}, false
	}
	key := base + cursor
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if list == "tools" && seek != "" && cursor == "" { // a walk is looked up once, at its start
		if tool, found := c.findTool(base, seek, now); found {
			return slices.Concat([]byte(`{"tools":[`), tool, []byte(`]}`)), Request{}, true
		}
	}
	if e, found := c.entries[key]; found {
		if e.fresh(now) {
			return e.result, Request{}, true
		}
		c.drop(key)
	}
	return nil, Request{key: key, base: base, list: list, gen: c.gen[list]}, true
}

// Ask returns the Request to give Keep with the result of a request that
// is not to be answered from the cache (a listing that wants the server's
// list as it is now): ok false when it may not be kept.
func (c *Cache) Ask(method string, params json.RawMessage) (r Request, ok bool) {
	list, cacheable := changedBy(method)
	if !cacheable {
		return Request{}, false
	}
	base, cursor, cacheable := keyParts(method, params)
	if !cacheable {
		return Request{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return Request{key: base + cursor, base: base, list: list, gen: c.gen[list]}, true
}

// Keep keeps result, the answer to r, when the rules allow it: modern says
// which era the session speaks, listChanged whether the server declared
// list_changed notifications for r's list.
func (c *Cache) Keep(r Request, result json.RawMessage, modern, listChanged bool) {
	if !modern {
		if listChanged {
			c.keepUntil(r, result, time.Time{}, false)
		}
		return
	}
	if ttl, scope, ok := FreshFor(result); ok {
		c.KeepFor(r, result, ttl, scope == "private")
	}
}

// KeepFor keeps result, the answer to r, for ttl, whatever it says of
// itself: what a client may keep of a result that gives no hints
// (Hinted), for as long as its user allows. private keeps it for the
// authorization context that asked alone.
func (c *Cache) KeepFor(r Request, result json.RawMessage, ttl time.Duration, private bool) {
	if ttl > 0 {
		c.keepUntil(r, result, c.now().Add(ttl), private)
	}
}

// keepUntil keeps result, the answer to r, until expires (zero: until
// its list changes).
func (c *Cache) keepUntil(r Request, result json.RawMessage, expires time.Time, private bool) {
	if r.key != "" && len(result) <= MaxBytes/4 {
		c.keep(r.key, r.base, r.list, r.gen, entry{list: r.list, result: result, expires: expires, private: private})
	}
}

// keep indexes e, kept under key (whose walk is base), and keeps it unless
// the list changed since gen.
func (c *Cache) keep(key, base, list string, gen uint64, e entry) {
	e.size = len(e.result)
	if list == "tools" { // outside the lock: a page of many tools takes a while
		e.tools, e.next, e.size = indexTools(base, e.result, MaxBytes/4)
	}
	e.size += len(key) + entryCost
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen[list] != gen {
		return // the list changed while the request was under way
	}
	if c.entries == nil {
		c.entries = map[string]entry{}
	}
	c.drop(key)
	for k := range c.entries {
		if c.size+e.size <= MaxBytes {
			break
		}
		c.drop(k)
	}
	c.entries[key] = e
	c.size += e.size
}

// findTool returns the definition of the tool called name from the kept
// pages of the tools/list walk whose first request's key is base: its
// first page, then the page its nextCursor names, and so on, as the
// command's own walk would read them, however many, the first definition
// of that name the walk would take (mcp.ParseTool). ok is false when a
// page on the way is not kept or no longer fresh at now, when the first
// definition of the name cannot be read, when the list ends without it,
// and when a page names one before it (the walk would stop there): then
// the command's request is answered as any other. c.mu is held.
func (c *Cache) findTool(base, name string, now time.Time) (tool json.RawMessage, ok bool) {
	key := base
	for seen := map[string]bool{}; !seen[key]; {
		seen[key] = true
		e, found := c.entries[key]
		if !found || !e.fresh(now) || e.tools == nil {
			return nil, false
		}
		if tool, ok := e.tools[name]; ok {
			_, usable := mcp.ParseTool(tool)
			return tool, usable
		}
		if e.next == "" {
			return nil, false
		}
		key = e.next
	}
	return nil, false
}

// indexTools reads a tools/list page kept under a key that begins with
// base for findTool: its tools by name, the key of the page its nextCursor
// names ("" for none, and for one that cannot be followed), and what the
// page costs the cache with them (size). tools is nil for a page that is not one, and for one whose
// index would cost more than budget: a page of many small tools (250,000
// in 4 MiB) would cost several times its size, so it is kept without one.
func indexTools(base string, result json.RawMessage, budget int) (tools map[string]json.RawMessage, next string, size int) {
	tools = map[string]json.RawMessage{}
	size = len(result)
	err := rawjson.ForEachValidMember(result, func(k string, v []byte) (err error) {
		switch k {
		case "tools":
			if v[0] != '[' {
				return errNotCacheable
			}
			rawjson.ForEachElement(v, func(_ int, el []byte) {
				if size > budget {
					return
				}
				if n := mcp.ToolName(el); n != "" && tools[n] == nil {
					tools[n] = el
					size += indexed + len(n)
				}
			})
		case "nextCursor": // null and "" end the list, as the command's walk reads them
			next = ""
			if cursor, err := rawjson.String(v); err == nil && cursor != "" && !strings.ContainsRune(cursor, utf8.RuneError) {
				next = base + cursorPart + cursor // as keyParts makes it of the command's next request
			}
		}
		return err
	})
	if err != nil || size+len(next) > budget {
		return nil, "", len(result)
	}
	return tools, next, size + len(next)
}

// entryCost is what an entry costs beyond its bytes and its tools (its
// place in the map, its index's own map): 560 bytes of heap an entry
// measured in a cache of pages of one tool each, rounded up.
const entryCost = 576

// indexed is what one tool in a page's index costs beyond its name: 114
// bytes of heap a tool measured in a page of 250,000 (a map entry, the
// string and slice headers, the map's spare room), rounded up.
const indexed = 128

// Notified drops what is kept of the list a list_changed notification
// (method) names; any other method changes nothing.
func (c *Cache) Notified(method string) {
	list, ok := mcp.ListChanged(method)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == nil {
		c.gen = map[string]uint64{}
	}
	c.gen[list]++
	for key, e := range c.entries {
		if e.list == list {
			c.drop(key)
		}
	}
}

func (c *Cache) drop(key string) {
	if e, ok := c.entries[key]; ok {
		c.size -= e.size
		delete(c.entries, key)
	}
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// The cursor's part of a key: none for the first page, cursorPart and the
// cursor for a string (as a nextCursor names it, however it was escaped),
// rawCursorPart and its JSON for anything else.
const (
	cursorPart    = "\x01s"
	rawCursorPart = "\x01r"
)

// keyParts is the cache key of a request, base + cursor: its method and
// params, without the progress token within _meta (each request has its
// own), in two parts: all but the cursor, the walk's, and the cursor's
// part, the page's. A request with params that are not a JSON object, or
// that answer an input request, has none.
func keyParts(method string, params json.RawMessage) (base, cursor string, ok bool) {
	key := append([]byte(method), 0)
	if len(params) == 0 || string(params) == "null" {
		return string(key), "", true
	}
	err := rawjson.ForEachMember(params, func(k string, v []byte) error {
		switch k {
		case "inputResponses", "requestState":
			return errNotCacheable
		case "cursor":
			if cursor != "" {
				return errNotCacheable // which one the server reads is its own
			}
			// A lone surrogate decodes to U+FFFD, as does U+FFFD itself:
			// such a cursor is kept as it was written.
			if s, err := rawjson.String(v); err == nil && !strings.ContainsRune(s, utf8.RuneError) {
				cursor = cursorPart + s
			} else {
				cursor = rawCursorPart + string(v)
			}
			return nil
		case "_meta":
			var meta []byte
			err := rawjson.ForEachValidMember(v, func(mk string, mv []byte) error {
				if mk != "progressToken" {
					meta = append(append(append(append(meta, mk...), 0), mv...), 0)
				}
				return nil
			})
			if len(meta) > 0 {
				key = append(append(key, "_meta\x00\x00"...), meta...)
			}
			return err
		}
		key = append(append(append(append(key, k...), 0), v...), 0)
		return nil
	})
	if err != nil {
		return "", "", false
	}
	return string(key), cursor, true
}

// FreshFor is how long a modern result (a list's, server/discover's) stays
// fresh, and for whom (its cacheScope: "private", or "public", which an
// absent or unknown scope is taken for): its ttlMs, when the result is
// complete and the TTL positive, at most a day
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
func FreshFor(result json.RawMessage) (ttl time.Duration, scope string, ok bool) {
	var r struct {
		ResultType string   `json:"resultType"`
		TTLMs      *float64 `json:"ttlMs"`
		CacheScope string   `json:"cacheScope"`
	}
	if json.Unmarshal(result, &r) != nil || r.TTLMs == nil || *r.TTLMs <= 0 {
		return 0, "", false
	}
	if r.ResultType != "" && r.ResultType != "complete" {
		return 0, "", false
	}
	scope = "public"
	if r.CacheScope == "private" {
		scope = "private"
	}
	ms := min(*r.TTLMs, float64(24*time.Hour/time.Millisecond))
	return time.Duration(ms * float64(time.Millisecond)), scope, true
}

// Hinted reports whether a list result says how long it may be kept: a
// ttlMs, even 0 (kept not at all), or a resultType other than complete
// (never kept). A result without hints, of either era, is kept for a
// default of the client's (KeepFor).
func Hinted(result json.RawMessage) bool {
	var r struct {
		ResultType string          `json:"resultType"`
		TTLMs      json.RawMessage `json:"ttlMs"`
	}
	return json.Unmarshal(result, &r) != nil || r.TTLMs != nil || r.ResultType != "" && r.ResultType != "complete"
}

var errNotCacheable = errors.New("not cacheable")
