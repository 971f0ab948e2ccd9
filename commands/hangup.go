// Whether the reader at the other end of a pipe or socket that mcpv
// writes to has gone, told without writing to it: a client of mcpv serve
// on stdin and stdout that closes its end of serve's stdout (or dies) has
// left, even while serve has nothing to say to it.

package commands

import "os"

// watchHangup returns a channel that is closed when f's reader has gone: the
// other end of a pipe is closed, or a socket hangs up. Where that cannot
// be known (a file, a terminal on some systems, Windows) it is never
// closed. stop ends the watch; call it before f is closed.
func watchHangup(f *os.File) (gone <-chan struct{}, stop func()) {
	return hangupWatch(f)
}
