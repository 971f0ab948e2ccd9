// Package subscription counts who holds the resource subscriptions of one
// session that several parties share (the commands of a session keeper,
// the clients of mcpv serve): a resource is subscribed to at the server
// while one holder or more is, so that one holder's unsubscribe does not
// end another's updates, and a holder that leaves gives its own up.
package subscription

import "sync"

// Shared is the subscriptions of one session, by resource URI and holder.
// Its zero value is ready; it is safe for concurrent use.
type Shared[H comparable] struct {
	mu   sync.Mutex            // guards subs
	subs map[string]map[H]bool // a resource's URI -> its holders
}

// Subscribe notes that h subscribes to uri, and reports whether the
// request must go to the server (h is the first holder); undo takes the
// note back, for a request that failed there.
func (s *Shared[H]) Subscribe(h H, uri string) (forward bool, undo func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.subs == nil {
		s.subs = map[string]map[H]bool{}
	}
	holders := s.subs[uri]
	if holders == nil {
		holders = map[H]bool{}
		s.subs[uri] = holders
	}
	had := holders[h]
	holders[h] = true
	return len(holders) == 1 && !had, func() {
		if had {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if holders := s.subs[uri]; holders != nil {
			delete(holders, h)
			if len(holders) == 0 {
				delete(s.subs, uri)
			}
		}
	}
}

// Unsubscribe notes that h unsubscribes from uri, and reports whether the
// request must go to the server: h was the last holder, or no one holds
// uri (the server says what that is).
func (s *Shared[H]) Unsubscribe(h H, uri string) (forward bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	holders := s.subs[uri]
	if !holders[h] {
		return len(holders) == 0
	}
	delete(holders, h)
	if len(holders) > 0 {
		return false
	}
	delete(s.subs, uri)
	return true
}

// Holds reports whether h holds a subscription to uri.
func (s *Shared[H]) Holds(h H, uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.subs[uri][h]
}

// Leave forgets h, and returns the URIs only h held: the server is to be
// told to unsubscribe from them.
func (s *Shared[H]) Leave(h H) (ended []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for uri, holders := range s.subs {
		if holders[h] {
			delete(holders, h)
			if len(holders) == 0 {
				delete(s.subs, uri)
				ended = append(ended, uri)
			}
		}
	}
	return ended
}
