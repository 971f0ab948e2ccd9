package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"slices"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Pages says how much of a paginated list to fetch
// (https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/pagination).
type Pages struct {
	// Cursor, when set, fetches the single page that starts there; the page is
	// returned as sent, nextCursor included.
	Cursor string
	// Max stops the walk from the start after Max pages, the result keeping
	// nextCursor; 0 walks to the end, however many pages it takes.
	Max int
	// Keep, when set, says which items the result holds: the others are
	// left out, each page's members kept as they were.
	Keep func(item json.RawMessage) bool
}

// A walk follows a list that makes progress to its end: only a list that
// shows it is endless stops it, with an error that says why. A walk that
// gets a cursor it got in the last MaxStalePages pages is one
// (RepeatedCursorError); so is one that gets new cursors but nothing new
// with them: MaxStalePages pages in a row whose items are none, or the
// items of one of the MaxStalePages pages before (EndlessListError). What
// a hostile server can still vary (new items with every page, or a cycle
// of pages longer than that, or pages as slow as it likes) is bounded by
// what it costs, far beyond any real list: a walk stops past
// MaxWalkPages pages, once its pages add up to MaxWalkBytes, or once they
// have taken MaxWalkTime to come (EndlessListError, which says which
// bound and how much was read); a page under way is its request's own
// timeout's to end (ClientOptions.Timeout), which no walk shortens. A
// walk holds one page at a time (ListTo writes each as it comes) and
// keeps of the pages before only fixed-size hashes: its memory is flat
// whatever the list's length. Every walk of a whole list is one
// (WalkPages), whoever asks for its pages.
const (
	MaxStalePages = 1000
	MaxWalkPages  = 100_000
	MaxWalkBytes  = 64 << 20
	MaxWalkTime   = 10 * time.Minute
)

// Page is one page of a walk.
type Page struct {
	N     int             // from 1
	Raw   json.RawMessage // the result as sent
	List  json.RawMessage // the member the items are under, as sent; nil when the page has none
	Items []json.RawMessage
	Next  string // "" on the last page
}

// A walk that cannot reach the end of a list though the server answered
// every request ends with one of these errors, inside a *TransportError
// whose Op is the method: the list is broken, whatever the request was.

// RepeatedCursorError is a nextCursor the server sent before: following it
// would go round for ever.
type RepeatedCursorError struct {
	Page   int // the page that repeats it
	Cursor string
}

func (e *RepeatedCursorError) Error() string {
	return fmt.Sprintf("page %d repeats nextCursor %.60q, so the list never ends", e.Page, e.Cursor)
}

// PageCapError is a walk stopped by its cap with pages still to come.
type PageCapError struct {
	Pages int // the cap
}

func (e *PageCapError) Error() string {
	return fmt.Sprintf("still not at the end after %d pages", e.Pages)
}

// EndlessListError is a list that gives new cursors without end: its pages
// stopped bringing anything new (Stale pages in a row up to Page), or the
// walk reached Bound, one of its bounds (MaxWalkPages, MaxWalkBytes or
// MaxWalkTime, as said), having read Page pages of Bytes bytes in Took
// (the time the pages took to come).
type EndlessListError struct {
	Page  int
	Stale int
	Bytes int64
	Took  time.Duration
	Bound string
}

func (e *EndlessListError) Error() string {
	if e.Bound == "" {
		return fmt.Sprintf("pages %d to %d bring nothing new, though each has a new nextCursor, so the list never ends", e.Page-e.Stale+1, e.Page)
	}
	return fmt.Sprintf("still not at the end at a walk's bound of %s (%d pages, %d MiB read in %s), so the list never ends", e.Bound, e.Page, e.Bytes>>20, e.Took.Round(time.Millisecond))
}

// NotAListError is a page that is not a list page: not an object, items
// that are not an array, or a nextCursor that is not a string.
type NotAListError struct {
	Page   int
	Reason string
	// Items are the page's items when its list is sound and its
	// nextCursor alone is broken: what the page did list, though the
	// walk cannot go past it.
	Items []json.RawMessage
}

func (e *NotAListError) Error() string { return fmt.Sprintf("page %d: %s", e.Page, e.Reason) }

// List fetches a paginated list (tools/list, resources/list, ...) whose items
// are under key. Walking from the start, it follows nextCursor to the end and
// returns the first page's object with key holding every page's items in
// order, without nextCursor. A single page is returned exactly as sent. When
// Max stops the walk early, the result keeps nextCursor and next returns it.
// It is ListTo's pieces, gathered.
func (c *Client) List(ctx context.Context, method, key string, p Pages) (result json.RawMessage, next string, err error) {
	var b bytes.Buffer
	next, err = c.ListTo(ctx, method, key, p, func(piece []byte) error {
		b.Write(piece)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return b.Bytes(), next, nil
}

// ListTo is List with its result handed to emit in pieces as the pages
// come, so that a list of any length costs the memory of one page: their
// concatenation is List's result, byte for byte. emit keeps none of a
// piece, each a run of whole JSON tokens; a nil piece marks the end of a
// page (what was given may be flushed). When the walk fails after a piece went out, the result is closed
// (the array, the first page's members after it) before the error
// returns: what emit was given is one JSON value still, of the items
// read, and the error says the list was not read to its end.
func (c *Client) ListTo(ctx context.Context, method, key string, p Pages, emit func([]byte) error) (next string, err error) {
	if p.Cursor != "" {
		page, err := c.Call(ctx, method, cursorParams(p.Cursor))
		if err != nil {
			return "", err
		}
		return "", emit(FilterPage(page, key, p.Keep))
	}
	var first json.RawMessage
	var items int
	for pg, err := range c.Walk(ctx, method, key, p.Max) {
		if err != nil {
			if first != nil {
				_, tail := splitFirst(first, key, "")
				if eerr := emit(tail); eerr != nil {
					return "", eerr
				}
			}
			return "", err
		}
		if first == nil {
			if pg.Next == "" {
				return "", emit(FilterPage(pg.Raw, key, p.Keep))
			}
			first = bytes.Clone(pg.Raw) // the page's members after the items, for the end
			head, _ := splitFirst(first, key, "")
			if err := emit(head); err != nil {
				return "", err
			}
		}
		for _, it := range pg.Items {
			if p.Keep != nil && !p.Keep(it) {
				continue
			}
			if items++; items > 1 {
				if err := emit(comma); err != nil {
					return "", err
				}
			}
			if err := emit(it); err != nil {
				return "", err
			}
		}
		if pg.Next == "" || p.Max > 0 && pg.N >= p.Max {
			_, tail := splitFirst(first, key, pg.Next)
			return pg.Next, emit(tail)
		}
		if err := emit(nil); err != nil {
			return "", err
		}
	}
	return "", nil // never: a walk ends on its last page or an error
}

var comma = []byte{','}

// Walk is WalkPages, its pages asked for with Call. A list it finds
// Broken is forgotten by the kept lists (ClientOptions.Lists): what they
// kept of it was kept on the way.
func (c *Client) Walk(ctx context.Context, method, key string, max int) iter.Seq2[Page, error] {
	return c.walk(ctx, method, key, max, false)
}

// Seek walks a list whole, as Walk does, to look something up in it (a
// tool, a prompt's arguments, a resource), not to show it: a list kept
// from an earlier run answers while it is fresh (ClientOptions.Lists).
func (c *Client) Seek(ctx context.Context, method, key string) iter.Seq2[Page, error] {
	return c.walk(ctx, method, key, 0, true)
}

// walk is Walk, or Seek when lookup is set.
func (c *Client) walk(ctx context.Context, method, key string, max int, lookup bool) iter.Seq2[Page, error] {
	return func(yield func(Page, error) bool) {
		for p, err := range WalkPages(ctx, method, key, max, func(ctx context.Context, cursor string) (json.RawMessage, error) {
			return c.callKept(ctx, method, cursorParams(cursor), lookup, nil)
		}) {
			if l, ok := ListOf(method); ok && c.opts.Lists != nil && Broken(err) {
				c.opts.Lists.Forget(l.Capability)
			}
			if !yield(p, err) {
				return
			}
		}
	}
}

// Items returns the items of the pages of a walk (Walk, Seek) that keep
// accepts (nil: every one), each as sent.
func Items(pages iter.Seq2[Page, error], keep func(json.RawMessage) bool) ([]json.RawMessage, error) {
	var items []json.RawMessage
	for p, err := range pages {
		if err != nil {
			return nil, err
		}
		for _, it := range p.Items {
			if keep == nil || keep(it) {
				items = append(items, it)
			}
		}
	}
	return items, nil
}

// WalkPages follows nextCursor from the start, fetch asking for the page
// at each cursor ("" the first), yielding each page until the loop stops
// or the list ends; the next page is asked for only when the loop goes
// on. A list member that is missing or null holds no items. The walk
// ends with an error, yielded once with a zero Page, on a failed request,
// a page that is no list page (*NotAListError), a cursor sent twice
// (*RepeatedCursorError), a list that shows it is endless or reaches a
// walk's bounds (*EndlessListError: see MaxStalePages), or when max
// pages are read and more remain (*PageCapError; max 0 sets no cap); all
// but the first inside a *TransportError for method. Each page is
// fetch's to bound (a request's own timeout); the walk's time is what
// its pages took, counted between them.
func WalkPages(ctx context.Context, method, key string, max int, fetch func(ctx context.Context, cursor string) (json.RawMessage, error)) iter.Seq2[Page, error] {
	return func(yield func(Page, error) bool) {
		var w walkGuard
		cursor := ""
		for n := 1; ; n++ {
			asked := time.Now()
			raw, err := fetch(ctx, cursor)
			w.took += time.Since(asked) // the server's time alone, not a loop slow to take the pages
			if err != nil {
				yield(Page{}, err)
				return
			}
			p, err := splitPage(raw, key)
			if err != nil {
				nl := &NotAListError{Page: n, Reason: err.Error()}
				if errors.Is(err, errCursor) {
					nl.Items = p.Items
				}
				yield(Page{}, &TransportError{Op: method, Err: nl})
				return
			}
			p.N = n
			if !yield(p, nil) || p.Next == "" {
				return
			}
			if err := w.next(p); err != nil {
				yield(Page{}, &TransportError{Op: method, Err: err})
				return
			}
			if max > 0 && n >= max {
				yield(Page{}, &TransportError{Op: method, Err: &PageCapError{Pages: max}})
				return
			}
			cursor = p.Next
		}
	}
}

// Broken reports whether err ended a walk because the list cannot be
// walked to its end (a cursor sent twice, a list that never ends, a page
// that is no list page); a cap of the walker's (*PageCapError) is none.
func Broken(err error) bool {
	return errors.As(err, new(*RepeatedCursorError)) || errors.As(err, new(*EndlessListError)) || errors.As(err, new(*NotAListError))
}

// walkGuard tells a walk that makes progress from one that never ends. It
// keeps a hash of the last MaxStalePages pages' cursors and items, not the
// bytes: a hostile server's cursors and pages may be large, and a list
// long.
type walkGuard struct {
	took    time.Duration // the server's time so far: what its pages took to come
	seed    maphash.Seed
	cursors map[uint64]int        // the last pages' cursors, by hash: how many of the ring hold each
	ring    [MaxStalePages]uint64 // the cursors of the last pages, by hash, as a ring
	recent  [MaxStalePages]uint64 // the items of the last pages, by hash, as a ring
	stale   int                   // pages in a row that brought nothing new
	bytes   int64
}

// next takes page p, which names a next page, and says why the walk must
// stop there, if it must.
func (w *walkGuard) next(p Page) error {
	if w.cursors == nil {
		w.seed, w.cursors = maphash.MakeSeed(), map[uint64]int{}
	}
	c := maphash.String(w.seed, p.Next)
	if w.cursors[c] > 0 {
		return &RepeatedCursorError{Page: p.N, Cursor: p.Next}
	}
	at := (p.N - 1) % MaxStalePages
	if p.N > MaxStalePages {
		old := w.ring[at]
		if w.cursors[old]--; w.cursors[old] <= 0 {
			delete(w.cursors, old)
		}
	}
	w.ring[at] = c
	w.cursors[c]++
	// What the page costs whoever keeps it: its bytes, its items' headers
	// and its cursor's entry here.
	w.bytes += int64(len(p.Raw) + 24*len(p.Items) + 64)
	switch {
	case w.bytes > MaxWalkBytes:
		return &EndlessListError{Page: p.N, Bytes: w.bytes, Took: w.took, Bound: fmt.Sprint(MaxWalkBytes>>20, " MiB")}
	case p.N >= MaxWalkPages:
		return &EndlessListError{Page: p.N, Bytes: w.bytes, Took: w.took, Bound: fmt.Sprint(MaxWalkPages, " pages")}
	case w.took > MaxWalkTime:
		return &EndlessListError{Page: p.N, Bytes: w.bytes, Took: w.took, Bound: MaxWalkTime.String()}
	}
	items := maphash.Bytes(w.seed, p.List)
	if len(p.Items) == 0 || slices.Contains(w.recent[:min(p.N-1, MaxStalePages)], items) {
		w.stale++
	} else {
		w.stale = 0
	}
	w.recent[(p.N-1)%MaxStalePages] = items
	if w.stale >= MaxStalePages {
		return &EndlessListError{Page: p.N, Stale: w.stale}
	}
	return nil
}

// cursorParams are the params of the page at cursor: none for the first.
func cursorParams(cursor string) json.RawMessage {
	if cursor == "" {
		return nil
	}
	b, _ := json.Marshal(struct {
		Cursor string `json:"cursor"`
	}{cursor})
	return b
}

// errCursor is a page whose nextCursor is no string.
var errCursor = errors.New("nextCursor is not a string")

// splitPage reads a page's list member, items and nextCursor ("" at the
// end; some servers send "" or null for the last page).
func splitPage(page json.RawMessage, key string) (p Page, err error) {
	p.Raw = page
	var cursorErr error // read on past it, for the items after it
	err = rawjson.ForEachValidMember(page, func(k string, v []byte) error {
		switch k {
		case key:
			p.List = v
			if string(v) == "null" {
				return nil
			}
			if v[0] != '[' {
				return fmt.Errorf("%q is not an array", key)
			}
			// Sub-slices of the page, which the session has checked: no
			// second scan, no copy per item.
			rawjson.ForEachElement(v, func(_ int, el []byte) { p.Items = append(p.Items, el) })
		case "nextCursor":
			if string(v) != "null" {
				if err := json.Unmarshal(v, &p.Next); err != nil {
					cursorErr = errCursor
				}
			}
		}
		return nil
	})
	return p, cmp.Or(err, cursorErr)
}

// splitFirst is a merged list without its items: what comes
// before them (first's members before key, then key and the array's
// opening bracket) and after them (the closing bracket, the members after
// key, nextCursor set to next or left out); a first page without key has
// the items last.
func splitFirst(first json.RawMessage, key, next string) (head, tail []byte) {
	var b bytes.Buffer
	b.WriteByte('{')
	sep := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	wrote := false
	rawjson.ForEachValidRawMember(first, func(k string, rawKey, v []byte) error {
		switch k {
		case key:
			sep()
			b.Write(rawKey)
			b.WriteString(":[")
			head = bytes.Clone(b.Bytes())
			b.Reset()
			b.WriteByte(']')
			wrote = true
		case "nextCursor":
		default:
			if wrote {
				b.WriteByte(',') // after the items
			} else {
				sep()
			}
			b.Write(rawKey)
			b.WriteByte(':')
			b.Write(v)
		}
		return nil
	})
	if !wrote {
		sep()
		writeKey(&b, key)
		b.WriteByte('[')
		head = bytes.Clone(b.Bytes())
		b.Reset()
		b.WriteByte(']')
	}
	if next != "" {
		b.WriteByte(',')
		writeKey(&b, "nextCursor")
		nb, _ := json.Marshal(next)
		b.Write(nb)
	}
	b.WriteByte('}')
	return head, b.Bytes()
}

func writeKey(b *bytes.Buffer, k string) {
	kb, _ := json.Marshal(k)
	b.Write(kb)
	b.WriteByte(':')
}

// FilterPage returns a page of a list (key: "tools", "resources"...) with
// only the items keep accepts, its nextCursor and other members as they
// were. A page that is not a list, or a nil keep, gives page unchanged.
func FilterPage(page json.RawMessage, key string, keep func(item json.RawMessage) bool) json.RawMessage {
	if keep == nil {
		return page
	}
	p, err := splitPage(page, key)
	if err != nil || p.List == nil || string(p.List) == "null" {
		return page
	}
	head, tail := splitFirst(page, key, p.Next)
	b, kept := bytes.NewBuffer(head), 0
	for _, it := range p.Items {
		if keep(it) {
			if kept++; kept > 1 {
				b.WriteByte(',')
			}
			b.Write(it)
		}
	}
	if kept == len(p.Items) {
		return page
	}
	b.Write(tail)
	return b.Bytes()
}
