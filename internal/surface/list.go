package surface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpv/mcpv/mcp"
)

// Lister walks each of a server's lists once, for Gather and Lint to
// share: a snapshot and a lint of the same server, one after the other,
// list it once between them. A walk that ended because the server could
// not be talked to (ctx ended, the session broke, a request timed out) is
// not kept. A Lister is for one goroutine, and for as long as the
// server's lists stay as they are.
type Lister struct {
	c      *mcp.Client
	walked map[string]walked // by method
	// Budget, when positive, bounds the bytes of the items a walk keeps
	// of one list: past it the walk stops with a *BudgetError, its items
	// so far kept.
	Budget int64
}

// BudgetError is a list whose items outgrew a Lister's Budget.
type BudgetError struct {
	Method string
	Budget int64
	Items  int // how many were read before the walk stopped
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("%s: the list is larger than %d MiB; only its first %d items are checked", e.Method, e.Budget>>20, e.Items)
}

// Items are the items of one of the lists (tools/list, prompts/list,
// resources/list, resources/templates/list), walked once for Lint,
// Gather and Items alike, and the error that ended the walk.
func (l *Lister) Items(ctx context.Context, method string) ([]json.RawMessage, error) {
	for _, li := range mcp.Lists {
		if li.Method == method {
			items, _, err := l.walk(ctx, li)
			return items, err
		}
	}
	return nil, fmt.Errorf("%s is not a list method", method)
}

type walked struct {
	items []json.RawMessage
	notes []string
	err   error
}

// NewLister is a Lister of c's lists, none walked yet.
func NewLister(c *mcp.Client) *Lister { return &Lister{c: c, walked: map[string]walked{}} }

// walk is walk, once per list.
func (l *Lister) walk(ctx context.Context, li mcp.List) ([]json.RawMessage, []string, error) {
	if w, ok := l.walked[li.Method]; ok {
		return w.items, w.notes, w.err
	}
	items, notes, err := walk(ctx, l.c, li, l.Budget)
	if err == nil || !gone(ctx, l.c) && !errors.As(err, new(*mcp.TimeoutError)) {
		l.walked[li.Method] = walked{items, notes, err}
	}
	return items, notes, err
}

// walk lists every page of l from the start, to its end, and returns the items as the server sent them. A page whose list is
// missing or null counts as empty, and is noted. The walk's errors are the
// client's; with one of them the items of the pages read so far come back
// too.
func walk(ctx context.Context, c *mcp.Client, l mcp.List, budget int64) (items []json.RawMessage, notes []string, err error) {
	var size int64
	for p, err := range c.Walk(ctx, l.Method, l.Key, 0) {
		if nl, ok := errors.AsType[*mcp.NotAListError](err); ok {
			// A page whose nextCursor alone is broken: what it listed
			// stands, though the walk ends there.
			p.Items = nl.Items
		} else if err != nil {
			return items, notes, err
		}
		switch {
		case err != nil:
		case p.List == nil:
			notes = append(notes, fmt.Sprintf("%s: page %d: the result has no %q", l.Method, p.N, l.Key))
		case string(p.List) == "null":
			notes = append(notes, fmt.Sprintf("%s: page %d: %q is null, not an array", l.Method, p.N, l.Key))
		}
		for _, it := range p.Items {
			if size += int64(len(it)); budget > 0 && size > budget {
				return items, notes, &BudgetError{Method: l.Method, Budget: budget, Items: len(items)}
			}
			items = append(items, it)
		}
		if err != nil {
			return items, notes, err
		}
	}
	return items, notes, nil
}

// brokenList says which rule a walk's error breaks, when it is a list
// that cannot be walked to its end though the server answered every
// request: RulePagination for a repeated cursor or a list that never
// ends, RuleList for a page that is no list page.
func brokenList(err error) (rule string, ok bool) {
	switch {
	case errors.As(err, new(*mcp.NotAListError)):
		return RuleList, true
	case mcp.Broken(err), errors.As(err, new(*mcp.PageCapError)):
		return RulePagination, true
	}
	return "", false
}
