package lazy

// Wake wakes whoever waits on a 1-buffered channel, if nobody has yet,
// and never blocks: the waiter reads the news when it comes to it.
func Wake(c chan<- struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
