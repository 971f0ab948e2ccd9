package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// Tokens gives the requests a relay sends on for several owners (its
// clients, the commands attached to a session) progress tokens of its
// own, so that two owners' tokens never meet upstream, and takes each
// progress notification back to the owner of its request, with the
// owner's own token. The zero value is ready to use; Prefix, set before
// first use, starts every token it gives.
type Tokens[T any] struct {
	Prefix string

	mu   sync.Mutex               // guards m and next
	m    map[string]tokenOwner[T] // our token, as JSON -> whose it is
	next int64                    // numbers our tokens
}

type tokenOwner[T any] struct {
	owner T
	token json.RawMessage // the owner's own token
}

// Swap returns params with their progress token, if any, replaced by one
// of ours that owner owns until release is called (when the request is
// over). Params without a token, or that cannot carry ours, are returned
// as they are, with a release that does nothing.
func (t *Tokens[T]) Swap(params json.RawMessage, owner T) (json.RawMessage, func()) {
	return t.SwapWith(params, owner, func(params, _, ours json.RawMessage) (json.RawMessage, error) {
		return SetProgressToken(params, ours)
	})
}

// SwapWith is Swap with params' token, tok as ProgressToken finds it,
// replaced by set: a relay that holds a large request once can replace
// the token in one copy around it rather than decode and encode params.
// The owner's token is kept as a copy of its own, so that nothing holds
// params once the request is sent.
func (t *Tokens[T]) SwapWith(params json.RawMessage, owner T, set func(params, tok, ours json.RawMessage) (json.RawMessage, error)) (json.RawMessage, func()) {
	tok := ProgressToken(params)
	if tok == nil {
		return params, func() {}
	}
	t.mu.Lock()
	t.next++
	ours := strconv.Quote(t.Prefix + strconv.FormatInt(t.next, 10))
	t.mu.Unlock()
	p, err := set(params, tok, json.RawMessage(ours))
	if err != nil {
		return params, func() {}
	}
	t.mu.Lock()
	lazy.Put(&t.m, ours, tokenOwner[T]{owner, bytes.Clone(tok)})
	t.mu.Unlock()
	return p, func() {
		t.mu.Lock()
		delete(t.m, ours)
		t.mu.Unlock()
	}
}

// Back takes the params of a notifications/progress to the owner of the
// request it reports on: the owner, and the params with the owner's own
// token. ok is false for a token that is not ours, or no longer is.
func (t *Tokens[T]) Back(params json.RawMessage) (owner T, out json.RawMessage, ok bool) {
	var token []byte // params that are no object have none, and no owner takes them
	if rawjson.IsObject(params) {
		token = rawjson.Member(params, "progressToken")
	}
	t.mu.Lock()
	r, ok := t.m[string(token)]
	t.mu.Unlock()
	if !ok {
		return owner, nil, false
	}
	out, err := Retoken(params, r.token)
	if err != nil {
		return owner, nil, false
	}
	return r.owner, out, true
}
