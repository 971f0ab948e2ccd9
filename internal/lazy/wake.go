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
