// Package wake wakes a goroutine that waits on a 1-buffered channel.
package wake

// Signal wakes whoever waits on a 1-buffered channel, if nobody has yet.
func Signal(c chan<- struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
