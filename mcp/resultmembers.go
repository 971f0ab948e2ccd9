package mcp

import (
	"context"
	"encoding/json"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// A relay answers a client of one era with what a server of the other
// gave: a result it passes on as it is, except for a member or two the
// client's era requires (the modern era's resultType, say). The result may
// be a hundred megabytes; the members go in front of it as a part of their
// own, so that it is never copied.

// resultMembersKey marks a RequestHandler's context with where the members
// to put at the front of its result are kept.
type resultMembersKey struct{}

// resultMembers is that place: one per request handled.
type resultMembers struct{ members []byte }

// AddResultMembers has the answer of the request a RequestHandler is
// answering begin its result object with members: `"key":value` pairs,
// comma-separated, none of which the result holds. It does nothing
// outside a handler, for an error, or for a result that is no object.
func AddResultMembers(ctx context.Context, members []byte) {
	if slot, ok := ctx.Value(resultMembersKey{}).(*resultMembers); ok {
		if len(slot.members) > 0 {
			slot.members = append(slot.members, ',')
		}
		slot.members = append(slot.members, members...)
	}
}

// SeparateResultMembers returns ctx with a place of its own for what
// AddResultMembers adds, and a function that returns what was added: a
// relay that makes one result of several requests' results (a list whose
// pages span several servers) decides that result's members itself.
func SeparateResultMembers(ctx context.Context) (context.Context, func() []byte) {
	slot := &resultMembers{}
	return context.WithValue(ctx, resultMembersKey{}, slot), func() []byte { return slot.members }
}

// responseWithMembers is responseParts for a result that begins with
// members: its opening brace and the members are a part of their own,
// and the rest of the result, not copied, the next.
func responseWithMembers(id, result json.RawMessage, members []byte) (parts, error) {
	i := rawjson.SkipSpace(result, 0)
	if len(members) == 0 || i >= len(result) || result[i] != '{' {
		return responseParts(id, result, nil)
	}
	j := rawjson.SkipSpace(result, i+1)
	if j >= len(result) {
		return responseParts(id, result, nil)
	}
	open := make([]byte, 0, len(members)+2)
	open = append(append(open, '{'), members...)
	if result[j] != '}' {
		open = append(open, ',')
	}
	p, err := responseParts(id, result, nil)
	if err != nil || len(p) != 3 {
		// json.Marshal rewrites this result (or its id): the response is
		// one part from it, of the result with its members in front.
		whole := append(open, result[j:]...)
		return responseParts(id, whole, nil)
	}
	return parts{p[0], open, result[j:], p[2]}, nil
}

// sentIDKey marks a context with a function told the id of the request
// sent with it.
type sentIDKey struct{}

// WithSentID returns ctx such that a request sent with it (Call, Forward,
// Relay) tells f the id it goes under, before it is written: a relay that
// must recognise what the server says about that request (a
// subscriptions/listen's notifications, which carry its id) learns it.
func WithSentID(ctx context.Context, f func(id json.RawMessage)) context.Context {
	return context.WithValue(ctx, sentIDKey{}, f)
}
