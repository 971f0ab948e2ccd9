package serve

// Lists asked at once share one upstream request, whose answer each
// asker gets through its own guard, pin and view. The request goes on
// while any asker waits; when the last gives up, it is cancelled.

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/mcp"
)

// sharedLists are the list requests in flight on an upstream session, by
// the request as sent (method, params).
type sharedLists struct {
	mu      sync.Mutex // guards flights
	flights map[string]*listFlight
}

type listFlight struct {
	done    chan struct{} // closed once res and err are set
	res     json.RawMessage
	err     error
	mark    uint64 // the pin's mark, taken before the request was sent
	waiting int    // askers waiting; guarded by sharedLists.mu
	cancel  context.CancelFunc
}

// do is send's answer to method, asked with params, and the pin's mark it
// was asked at (mark, for the one that sends it). A list's is shared with
// the askers of the same request (method, params) in flight now.
func (l *sharedLists) do(ctx context.Context, method string, params json.RawMessage, mark uint64, send func(context.Context) (json.RawMessage, error)) (json.RawMessage, uint64, error) {
	if _, ok := mcp.ListOf(method); !ok {
		res, err := send(ctx)
		return res, mark, err
	}
	key := method + "\x00" + string(params)
	l.mu.Lock()
	f := l.flights[key]
	if f == nil {
		// The request outlives the asker that sends it while another
		// waits: its context keeps the asker's values, not its end.
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &listFlight{done: make(chan struct{}), mark: mark, cancel: cancel}
		lazy.Put(&l.flights, key, f)
		go func() { // shared list: ends when the server answers, or every asker has given up (cancel)
			res, err := send(fctx)
			l.mu.Lock()
			if l.flights[key] == f {
				delete(l.flights, key)
			}
			l.mu.Unlock()
			f.res, f.err = res, err
			cancel()
			close(f.done)
		}()
	}
	f.waiting++
	l.mu.Unlock()
	select {
	case <-f.done:
		return f.res, f.mark, f.err
	case <-ctx.Done():
		l.mu.Lock()
		if f.waiting--; f.waiting == 0 {
			f.cancel()
			if l.flights[key] == f {
				delete(l.flights, key) // the next asker sends its own
			}
		}
		l.mu.Unlock()
		return nil, mark, context.Cause(ctx)
	}
}
