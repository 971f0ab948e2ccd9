package mcp

import (
	"context"
	"encoding/json"
)

// KeptLists holds the list results a server allows to be kept (for their
// ttlMs, in the modern era: https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching;
// for a default of the user's when a result gives no hints, in either
// era), beyond one session: internal/serverstate keeps them between runs. A
// list walked to look something up (Seek, FindTool) is answered from them
// while they are fresh; every list the server answers is given to be kept.
type KeptLists interface {
	// Kept returns the kept result of a list request (method, its params
	// as they go out, seek the tool it looks for) when lookup is set and
	// one is fresh; otherwise keep, when not nil, takes the server's
	// result, and the era it was answered in (modern: whether its caching
	// hints mean anything).
	Kept(method string, params json.RawMessage, seek string, lookup bool) (result json.RawMessage, keep func(result json.RawMessage, modern bool))
	// Forget drops what is kept of a list (its capability: "tools",
	// "prompts" or "resources"): a walk found it broken (Broken), and
	// the pages kept on the way are of a list that cannot be read.
	Forget(list string)
}

// callKept is Call, and for a list request of a session with kept lists,
// what the server answers is kept unless the era changed under the
// request; lookup says the request looks something up (Seek), not to
// show the list, so that a list kept may answer it.
func (c *Client) callKept(ctx context.Context, method string, params json.RawMessage, lookup bool, st *Streamed) (json.RawMessage, error) {
	l := c.opts.Lists
	if l == nil || !isList(method) {
		return c.call(ctx, method, params, st)
	}
	meta, _, err := c.prepare(method, params)
	if err != nil {
		return c.call(ctx, method, params, st)
	}
	res, keep := l.Kept(method, stamped(params, meta), ToolSought(ctx), lookup)
	if res != nil {
		return res, nil
	}
	was := c.era()
	res, err = c.call(ctx, method, params, st)
	if e := c.era(); err == nil && keep != nil && e.modern == was.modern && e.version == was.version {
		keep(res, e.modern)
	}
	return res, err
}
