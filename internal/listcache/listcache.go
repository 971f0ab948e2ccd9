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
// _meta) is another entry. A request that answers an input request
// (inputResponses, requestState) is never answered from the cache. The
// cache holds at most MaxBytes of results, none larger than a quarter of
// that; a session's keeper is one authorization context, so a "private"
// result is served to the same user's commands only, as the rules allow.
package listcache

import (
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// MaxBytes bounds the results one Cache holds.
const MaxBytes = 16 << 20

// kinds maps each cacheable method to the list whose change notification
// makes it stale.
var kinds = map[string]string{
	"tools/list":               "tools",
	"prompts/list":             "prompts",
	"resources/list":           "resources",
	"resources/templates/list": "resources",
}

// Cache is one session's kept list results. The zero value is ready; it is
// safe for concurrent use.
type Cache struct {
	// Now is the clock; nil is time.Now.
	Now func() time.Time

	mu      sync.Mutex
	entries map[string]entry
	size    int
	gen     map[string]uint64 // by list: bumped by each change
}

type entry struct {
	list    string
	result  json.RawMessage
	expires time.Time // zero: until the list changes
}

// Request is a request that may be answered from the cache, or whose
// result may be kept: Lookup makes it, Keep takes it back with the result.
type Request struct {
	key  string
	list string
	gen  uint64
}

// List is the list r asks for: tools, prompts or resources.
func (r Request) List() string { return r.list }

// Lookup returns the kept result of method with params when one is fresh;
// otherwise, when the request may be kept at all, the Request to give Keep
// with its result (ok false when it may not).
func (c *Cache) Lookup(method string, params json.RawMessage) (result json.RawMessage, r Request, ok bool) {
	list, cacheable := kinds[method]
	if !cacheable {
		return nil, Request{}, false
	}
	key, cacheable := keyOf(method, params)
	if !cacheable {
		return nil, Request{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, found := c.entries[key]; found {
		if e.expires.IsZero() || c.now().Before(e.expires) {
			return e.result, Request{}, true
		}
		c.drop(key)
	}
	return nil, Request{key: key, list: list, gen: c.gen[list]}, true
}

// Keep keeps result, the answer to r, when the rules allow it: modern says
// which era the session speaks, listChanged whether the server declared
// list_changed notifications for r's list.
func (c *Cache) Keep(r Request, result json.RawMessage, modern, listChanged bool) {
	if r.key == "" || len(result) > MaxBytes/4 {
		return
	}
	var expires time.Time
	if modern {
		ttl, ok := freshFor(result)
		if !ok {
			return
		}
		expires = c.now().Add(ttl)
	} else if !listChanged {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen[r.list] != r.gen {
		return // the list changed while the request was under way
	}
	if c.entries == nil {
		c.entries = map[string]entry{}
	}
	c.drop(r.key)
	for key := range c.entries {
		if c.size+len(result) <= MaxBytes {
			break
		}
		c.drop(key)
	}
	c.entries[r.key] = entry{list: r.list, result: result, expires: expires}
	c.size += len(result)
}

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
		c.size -= len(e.result)
		delete(c.entries, key)
	}
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// keyOf is the cache key of a request: its method and params, without the
// progress token within _meta (each request has its own). A request with
// params that are not a JSON object, or that answer an input request, has
// none.
func keyOf(method string, params json.RawMessage) (string, bool) {
	key := append([]byte(method), 0)
	if len(params) == 0 || string(params) == "null" {
		return string(key), true
	}
	err := rawjson.ForEachMember(params, func(k string, v []byte) error {
		switch k {
		case "inputResponses", "requestState":
			return errNotCacheable
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
		return "", false
	}
	return string(key), true
}

// freshFor is how long a modern result stays fresh: its ttlMs, when the
// result is complete and the TTL positive.
func freshFor(result json.RawMessage) (time.Duration, bool) {
	var r struct {
		ResultType string   `json:"resultType"`
		TTLMs      *float64 `json:"ttlMs"`
	}
	if json.Unmarshal(result, &r) != nil || r.TTLMs == nil || *r.TTLMs <= 0 {
		return 0, false
	}
	if r.ResultType != "" && r.ResultType != "complete" {
		return 0, false
	}
	ms := min(*r.TTLMs, float64(24*time.Hour/time.Millisecond))
	return time.Duration(ms * float64(time.Millisecond)), true
}

var errNotCacheable = errors.New("not cacheable")
