package toolargs

import (
	"container/list"
	"context"
	"encoding/json"
	"sync"
)

// The memo's bounds: a session rarely sees more than a few hundred tools,
// and a schema is rarely more than a few kilobytes.
const (
	memoEntries = 256
	memoBytes   = 16 << 20
)

// compiled holds the schemas this process has compiled.
var compiled schemaMemo

// schemaMemo compiles each schema once: callers asking for the same bytes
// share one compilation, even while it runs. It forgets the least recently
// used schemas beyond memoEntries entries or memoBytes of schema text.
type schemaMemo struct {
	mu      sync.Mutex                                // guards the fields below
	entries map[string]*list.Element                  // by schema text; values are *memoEntry
	recent  list.List                                 // most recently used first
	size    int                                       // bytes of schema text held
	compile func(json.RawMessage) (*Validator, error) // nil: compile
}

type memoEntry struct {
	schema string
	done   chan struct{} // closed when v and err are set
	v      *Validator
	err    error
}

// get returns the compiled schema, compiling it (once) when needed; the
// cause of ctx when ctx ends first. A compilation the caller gave up on
// still finishes, for the next caller.
func (m *schemaMemo) get(ctx context.Context, schema json.RawMessage) (*Validator, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	m.mu.Lock()
	if m.entries == nil {
		m.entries = map[string]*list.Element{}
	}
	el, ok := m.entries[string(schema)]
	if ok {
		m.recent.MoveToFront(el)
	} else {
		e := &memoEntry{schema: string(schema), done: make(chan struct{})}
		el = m.recent.PushFront(e)
		m.entries[e.schema] = el
		m.size += len(e.schema)
		m.evict()
		fn := m.compile
		if fn == nil {
			fn = compile
		}
		go func() { // schema compilation: ends when the compilation does
			e.v, e.err = fn(json.RawMessage(e.schema))
			close(e.done)
		}()
	}
	e := el.Value.(*memoEntry)
	m.mu.Unlock()
	select {
	case <-e.done:
		return e.v, e.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// evict forgets the least recently used entries beyond the bounds, but
// never the newest.
func (m *schemaMemo) evict() {
	for m.recent.Len() > 1 && (m.recent.Len() > memoEntries || m.size > memoBytes) {
		e := m.recent.Remove(m.recent.Back()).(*memoEntry)
		delete(m.entries, e.schema)
		m.size -= len(e.schema)
	}
}
