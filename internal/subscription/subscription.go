// Package subscription counts who holds the resource subscriptions of one
// session that several parties share (the commands of a session keeper,
// the clients of mcpv serve): a resource is subscribed to at the server
// while one holder or more is, so that one holder's unsubscribe does not
// end another's updates, and a holder that leaves gives its own up; and
// whom, among those parties, a notification of the server is for
// (audience.go).
//
// While a subscribe or unsubscribe of a resource is on its way to the
// server, the next one for that resource waits for its answer: a holder
// that joins a subscription still in flight must not be told it holds
// one the server then refuses, and an unsubscribe must not overtake the
// subscribe that follows it.
package subscription

import (
	"context"
	"sync"
)

// Shared is the subscriptions of one session, by resource URI and holder.
// Its zero value is ready; it is safe for concurrent use.
type Shared[H comparable] struct {
	mu   sync.Mutex // guards subs and what it holds
	subs map[string]*resource[H]
}

// resource is one URI's holders, and the request for it in flight.
type resource[H comparable] struct {
	holders map[H]bool
	busy    chan struct{} // closed when the request in flight is answered; nil when none is
}

// settled waits until no request for uri is in flight and returns its
// entry, made if need be, with s.mu held; with ctx's end, it returns the
// cause, s.mu not held.
func (s *Shared[H]) settled(ctx context.Context, uri string) (*resource[H], error) {
	s.mu.Lock()
	for {
		r := s.subs[uri]
		if r == nil {
			if s.subs == nil {
				s.subs = map[string]*resource[H]{}
			}
			r = &resource[H]{holders: map[H]bool{}}
			s.subs[uri] = r
		}
		busy := r.busy
		if busy == nil {
			return r, nil
		}
		s.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		s.mu.Lock()
	}
}

// begin marks a request for r in flight; its end is answered, with s.mu
// held.
func (r *resource[H]) begin() (answered func()) {
	busy := make(chan struct{})
	r.busy = busy
	return func() {
		r.busy = nil
		close(busy)
	}
}

// drop forgets uri's entry once it has no holder and nothing in flight.
func (s *Shared[H]) drop(uri string, r *resource[H]) {
	if len(r.holders) == 0 && r.busy == nil && s.subs[uri] == r {
		delete(s.subs, uri)
	}
}

// Subscribe notes that h subscribes to uri, once no request for uri is in
// flight, and reports whether the request must go to the server (h is the
// first holder). If so, done must be called with the server's verdict
// (ok: it took the subscription); until then the next request for uri
// waits. A refusal takes h's note back. The wait ends with ctx.
func (s *Shared[H]) Subscribe(ctx context.Context, h H, uri string) (forward bool, done func(ok bool), err error) {
	r, err := s.settled(ctx, uri)
	if err != nil {
		return false, nil, err
	}
	defer s.mu.Unlock()
	first := len(r.holders) == 0
	r.holders[h] = true
	if !first {
		return false, func(bool) {}, nil
	}
	answered := r.begin()
	return true, func(ok bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if !ok {
			delete(r.holders, h)
		}
		answered()
		s.drop(uri, r)
	}, nil
}

// Unsubscribe notes that h unsubscribes from uri, once no request for uri
// is in flight, and reports whether the request must go to the server: h
// was the last holder, or no one holds uri (the server says what that
// is). If it must, done is to be called once the server has answered;
// until then the next request for uri waits. The wait ends with ctx.
func (s *Shared[H]) Unsubscribe(ctx context.Context, h H, uri string) (forward bool, done func(), err error) {
	r, err := s.settled(ctx, uri)
	if err != nil {
		return false, nil, err
	}
	defer s.mu.Unlock()
	if !r.holders[h] {
		forward = len(r.holders) == 0
		s.drop(uri, r)
		return forward, func() {}, nil
	}
	delete(r.holders, h)
	if len(r.holders) > 0 {
		return false, func() {}, nil
	}
	return true, s.ending(uri, r), nil
}

// ending marks the unsubscribe of uri in flight; s.mu is held. The func
// it returns is called once the server has answered.
func (s *Shared[H]) ending(uri string, r *resource[H]) func() {
	answered := r.begin()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		answered()
		s.drop(uri, r)
	}
}

// Holds reports whether h holds a subscription to uri.
func (s *Shared[H]) Holds(h H, uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.subs[uri]
	return r != nil && r.holders[h]
}

// Leave forgets h, and returns the URIs only h held: the server is to be
// told to unsubscribe from them, and done called for each once it has
// answered (until then the next request for it waits). A URI whose
// subscribe is still in flight is not among them: that request's answer
// settles it (a holder that leaves cancels its requests, so the answer
// is usually a refusal; a subscribe the server took just before is left
// to it with no holder, until the next holder comes and goes).
func (s *Shared[H]) Leave(h H) (ended []string, done func(uri string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	dones := map[string]func(){}
	for uri, r := range s.subs {
		if !r.holders[h] {
			continue
		}
		delete(r.holders, h)
		if len(r.holders) == 0 && r.busy == nil {
			ended = append(ended, uri)
			dones[uri] = s.ending(uri, r)
		}
	}
	return ended, func(uri string) {
		if d := dones[uri]; d != nil {
			d()
		}
	}
}
