package mcptest

// The spec server's polling (the sse-polling edge, initialize era): a
// request answered with an event stream gets a priming event (an id, a
// retry, empty data) and the connection closed (2025-11-25
// basic/transports, "Sending Messages to the Server": the server "MAY
// close the connection (without terminating the SSE stream)"); the
// answer goes on into the stream, and each GET with Last-Event-ID gets
// what came after that id once there is some, closed with a retry until
// the stream ends ("Resumability and Redelivery"). The poll-* faults
// break one rule each. Under the sse-resumable edge the connection is
// kept and the answer written on it as it comes, the stream kept all the
// same for a client that goes away and resumes it.

import (
	"slices"
	"sync"
)

// pollRetry is the retry the polling server asks: the least a client
// waits (mcp's minRetry), so that a run is not slowed.
const pollRetry = "retry: 100\n"

// pollStream is one request's stream under polling.
type pollStream struct {
	mu     sync.Mutex    // guards the fields below
	ids    []string      // event ids, the priming event's first
	lines  []string      // their data: "" for the priming event
	done   bool          // the answer has ended
	more   chan struct{} // closed and replaced when an event is added or done set
	priors *pollStream   // the session's stream before it (poll-other-stream)
}

// add adds an event (id "": none, the stream's end).
func (p *pollStream) add(id, line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id == "" {
		p.done = true
	} else {
		p.ids, p.lines = append(p.ids, id), append(p.lines, line)
	}
	close(p.more)
	p.more = make(chan struct{})
}

// send writes the events from i on, and says where the next begins and
// whether the stream has ended.
func (p *pollStream) send(e *SSEWriter, i int) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for ; i < len(p.ids); i++ {
		if p.lines[i] != "" {
			e.Event(p.ids[i], p.lines[i])
		}
	}
	return i, p.done
}

// poll answers m under polling: the priming event, and the connection
// closed; the answer goes on into the stream, for the GETs.
func (s *HTTPServer) poll(x *Exchange, m msg, st *specState) {
	p := &pollStream{more: make(chan struct{})}
	prime := s.pollID(p)
	p.add(prime, "")
	withLock(&s.mu, func() { p.priors, s.lastPoll[x.SessionID] = s.lastPoll[x.SessionID], p })
	go func() { // the polled answer: ends with the answer, or with the test (s.done)
		defer p.add("", "")
		s.spec.specMessage(st, m.raw, m, specOut{send: func(line string) { p.add(s.pollID(p), line) },
			async: func(f func()) { f() }, http: true, done: s.done})
	}()
	retry := pollRetry
	switch {
	case s.spec.has("poll-no-retry"):
		retry = ""
	case s.spec.has("poll-bad-retry"):
		retry = "retry: 1.5s\n"
	}
	e := x.SSE()
	e.Raw("id: " + prime + "\n" + retry + "data:\n\n")
	for i, done := 1, false; s.spec.edge("sse-resumable") && !done; {
		// The connection kept, the answer written as it comes: a client
		// that goes away resumes it with a GET.
		more := locked(&p.mu, func() chan struct{} { return p.more })
		if i, done = p.send(e, i); done {
			return
		}
		select {
		case <-more:
		case <-x.R.Context().Done():
			if s.spec.has("disconnect-cancels") {
				st.cancel(string(m.ID))
			}
			return
		case <-s.done:
			return
		}
	}
}

// pollID is a new event id of p's.
func (s *HTTPServer) pollID(p *pollStream) string {
	id := s.eventID()
	withLock(&s.mu, func() { s.polls[id] = p })
	return id
}

// resume answers a GET with Last-Event-ID of a polled stream, and says
// whether it was one.
func (s *HTTPServer) resume(x *Exchange) bool {
	p := locked(&s.mu, func() *pollStream { return s.polls[x.LastEventID] })
	if p == nil {
		return false
	}
	e := x.SSE()
	if s.spec.has("poll-close-forever") {
		e.Raw("id: " + s.pollID(p) + "\n" + pollRetry + "data:\n\n")
		return true
	}
	if q := p.priors; q != nil && s.spec.has("poll-other-stream") {
		q.send(e, 0)
	}
	from := locked(&p.mu, func() int { return slices.Index(p.ids, x.LastEventID) + 1 }) // the first event not had
	start := from
	if s.spec.has("poll-replay-start") {
		start = 0
	}
	for {
		p.mu.Lock()
		ready, more := len(p.ids) > from || p.done, p.more
		p.mu.Unlock()
		if ready {
			if _, done := p.send(e, start); !done {
				e.Raw(pollRetry + "\n")
			}
			return true
		}
		select {
		case <-more:
		case <-x.R.Context().Done():
			return true
		case <-s.done:
			return true
		}
	}
}
