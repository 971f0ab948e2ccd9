package mcptest

// The spec server's polling (the sse-polling edge, initialize era): a
// request answered with an event stream gets a priming event (an id, a
// retry, empty data) and the connection closed at once (2025-11-25
// basic/transports, "Sending Messages to the Server": the server "MAY
// close the connection (without terminating the SSE stream)"); the
// answer goes on being written to the stream, and each GET with
// Last-Event-ID is sent what came after that id, waiting for more when
// there is none, then closed again with a retry until the stream ends
// ("Resumability and Redelivery"). The poll-* faults break one rule each.

import (
	"net/http"
	"slices"
	"sync"
)

// pollRetry is the retry the polling server asks: a small one, so that a
// run is not slowed, over the client's floor.
const pollRetry = "retry: 150\n"

// pollStream is one request's stream under polling.
type pollStream struct {
	mu     sync.Mutex    // guards the fields below
	ids    []string      // event ids, the priming event's first
	lines  []string      // their data: "" for the priming event
	done   bool          // the answer has ended
	more   chan struct{} // closed and replaced when an event is added or done set
	priors *pollStream   // the session's stream before it (poll-other-stream)
}

func (p *pollStream) add(id, line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids, p.lines = append(p.ids, id), append(p.lines, line)
	close(p.more)
	p.more = make(chan struct{})
}

func (p *pollStream) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	close(p.more)
	p.more = make(chan struct{})
}

// poll answers m under polling: the priming event, and the connection
// closed; answer writes the rest to the stream, for the GETs.
func (s *HTTPServer) poll(x *Exchange, m msg, st *specState) {
	p := &pollStream{more: make(chan struct{})}
	prime := s.eventID()
	p.add(prime, "")
	s.mu.Lock()
	if s.polls == nil {
		s.polls, s.lastPoll = map[string]*pollStream{}, map[string]*pollStream{}
	}
	s.polls[prime], p.priors, s.lastPoll[x.SessionID] = p, s.lastPoll[x.SessionID], p
	s.mu.Unlock()
	go func() { // the polled answer: ends with the answer, or when the test ends (s.done)
		defer p.end()
		s.spec.specMessage(st, m.raw, m, specOut{send: func(line string) {
			id := s.eventID()
			s.mu.Lock()
			s.polls[id] = p
			s.mu.Unlock()
			p.add(id, line)
		}, async: func(f func()) { f() }, http: true, done: s.done})
	}()
	retry := pollRetry
	switch {
	case s.spec.has("poll-no-retry"):
		retry = ""
	case s.spec.has("poll-bad-retry"):
		retry = "retry: 1.5s\n"
	}
	x.SSE().Raw("id: " + prime + "\n" + retry + "data:\n\n")
}

// resume answers a GET with Last-Event-ID under polling: the events of
// the stream after that id, as they come; closed, with a retry, once
// some were sent and no more are at hand, or at the stream's end.
func (s *HTTPServer) resume(x *Exchange) bool {
	s.mu.Lock()
	p := s.polls[x.LastEventID]
	s.mu.Unlock()
	if p == nil || x.Method != http.MethodGet {
		return false
	}
	e := x.SSE()
	if s.spec.has("poll-close-forever") {
		e.Raw("id: " + s.eventID() + "\n" + pollRetry + "data:\n\n")
		return true
	}
	if q := p.priors; q != nil && s.spec.has("poll-other-stream") {
		q.mu.Lock()
		for i, line := range q.lines {
			if line != "" {
				e.Event(q.ids[i], line)
			}
		}
		q.mu.Unlock()
	}
	next := 0 // the first event not sent yet
	p.mu.Lock()
	if !s.spec.has("poll-replay-start") {
		next = slices.Index(p.ids, x.LastEventID) + 1
	}
	for {
		for ; next < len(p.ids); next++ {
			if p.lines[next] != "" {
				e.Event(p.ids[next], p.lines[next])
			}
		}
		if p.done {
			p.mu.Unlock()
			return true
		}
		more := p.more
		p.mu.Unlock()
		select {
		case <-more:
		case <-x.R.Context().Done():
			return true
		case <-s.done:
			return true
		}
		p.mu.Lock()
		if next < len(p.ids) {
			// New events: sent, then the connection closed again.
			for ; next < len(p.ids); next++ {
				if p.lines[next] != "" {
					e.Event(p.ids[next], p.lines[next])
				}
			}
			if !p.done {
				e.Raw(pollRetry + "\n")
			}
			p.mu.Unlock()
			return true
		}
	}
}
