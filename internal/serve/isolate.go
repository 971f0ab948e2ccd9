package serve

// Isolate for clients of the 2026-07-28 era. Such a client has no
// session: over HTTP each of its requests is a downstream session of its
// own, so an upstream session per downstream one would start the server
// for each request. So an isolated upstream session that served a modern
// client's request is kept, idle, for the next request of a client of
// the same bearer token, rather than closed: one request at a time uses
// it, so a server's question still has one client to go to. Each is
// closed after isolateIdle unused; at most maxIdle are kept for each
// token. A task is found in the session that made it, while it is kept.

import (
	"slices"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// How long an idle isolated session is kept, and how many for each token.
const (
	isolateIdle = time.Minute
	maxIdle     = 16
)

// idlePool is a Server's idle isolated sessions, by the view of the
// token whose clients they served.
type idlePool struct {
	mu     sync.Mutex // guards the fields below
	idle   map[*View][]*idleUp
	closed bool
}

type idleUp struct {
	u     *upstream
	timer *time.Timer // closes it when it fires
}

// take is an idle session for a client of who, one that holds the task
// params name when there is one; nil when none is kept.
func (p *idlePool) take(who *View, params []byte) *upstream {
	task, _ := rawjson.String(rawjson.Member(params, "taskId"))
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.idle[who]
	pick := -1
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].u.ended() {
			continue
		}
		if pick < 0 || task != "" && list[i].u.tasks.ours(nil, task) != nil {
			pick = i
		}
	}
	if pick < 0 {
		return nil
	}
	it := list[pick]
	it.timer.Stop()
	p.idle[who] = append(list[:pick], list[pick+1:]...)
	return it.u
}

// put keeps u, idle, for who's next request; it closes it when the pool
// is closed, it ended, or maxIdle are kept.
func (p *idlePool) put(who *View, u *upstream) {
	p.mu.Lock()
	if p.closed || u.ended() || len(p.idle[who]) >= maxIdle {
		p.mu.Unlock()
		u.conn.Close()
		return
	}
	it := &idleUp{u: u}
	it.timer = time.AfterFunc(isolateIdle, func() { // ends at once: closes u unless taken
		p.mu.Lock()
		i := slices.Index(p.idle[who], it)
		if i >= 0 {
			p.idle[who] = slices.Delete(p.idle[who], i, i+1)
		}
		p.mu.Unlock()
		if i >= 0 {
			u.conn.Close()
		}
	})
	lazy.Put(&p.idle, who, append(p.idle[who], it))
	p.mu.Unlock()
}

// close closes every idle session; none is kept after.
func (p *idlePool) close() {
	p.mu.Lock()
	p.closed = true
	var all []*upstream
	for _, list := range p.idle {
		for _, it := range list {
			it.timer.Stop()
			all = append(all, it.u)
		}
	}
	p.idle = nil
	p.mu.Unlock()
	for _, u := range all {
		u.conn.Close()
	}
}
