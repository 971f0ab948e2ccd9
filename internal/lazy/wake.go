package lazy

// Wake wakes whoever waits on a 1-buffered channel, if nobody has yet,
// and never blocks: the waiter reads the news when it comes to it.
func Wake(c chan<- struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Closed reports, without waiting, whether ch is closed (never, for a nil
// ch).
func Closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Signal wakes every waiter at once, under its holder's lock: C is the
// channel the next Fire closes, made when someone first waits. The zero
// Signal is ready.
type Signal struct{ ch chan struct{} }

// C is the channel the next Fire closes; the holder's lock is held.
func (s *Signal) C() <-chan struct{} {
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// Fire closes C's channel, if someone waits on it; the holder's lock is
// held.
func (s *Signal) Fire() {
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}
