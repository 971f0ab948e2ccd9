package listcache

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Kept is a kept result as it is written down, for a cache that outlives
// its process (a state file kept between runs). Only results kept for a
// ttl are written down: what is kept until a list_changed notification
// cannot outlive the session that would hear it.
type Kept struct {
	Key     string          `json:"key"` // the request: its method and params, cursor and all
	List    string          `json:"list"`
	Result  json.RawMessage `json:"result"`
	Expires time.Time       `json:"expires"`
	Private bool            `json:"private,omitempty"` // cacheScope "private"
}

// Export returns the results kept for a ttl that are still fresh, in the
// order of their keys: what is written down of one cache is written
// alike.
func (c *Cache) Export() []Kept {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	var out []Kept
	for key, e := range c.entries {
		if !e.expires.IsZero() && e.fresh(now) {
			out = append(out, Kept{Key: key, List: e.list, Result: e.result, Expires: e.expires, Private: e.private})
		}
	}
	slices.SortFunc(out, func(a, b Kept) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Import keeps what Export wrote down, as if each had been answered at the
// time it was: those still fresh, of a list the cache keeps, whose result
// is a JSON object, and, with private false, none of cacheScope
// "private" (another authorization context's). A list_changed notification
// heard since drops them as it drops the others.
func (c *Cache) Import(kept []Kept, private bool) {
	now := c.now()
	for _, k := range kept {
		method, _, _ := strings.Cut(k.Key, "\x00")
		if list, _ := changedBy(method); list != k.List || k.List == "" || k.Private && !private || k.Expires.IsZero() || !now.Before(k.Expires) ||
			len(k.Result) > MaxBytes/4 || !rawjson.IsObject(k.Result) || !json.Valid(k.Result) {
			continue
		}
		base, _, _ := strings.Cut(k.Key, cursorPart[:1]) // a cursor's part begins with \x01, which no JSON has raw
		c.mu.Lock()
		gen := c.gen[k.List]
		c.mu.Unlock()
		c.keep(k.Key, base, k.List, gen, entry{list: k.List, result: k.Result, expires: k.Expires, private: k.Private})
	}
}
