package keeper

// What the keeper sends a command goes through the command's outbox,
// written in order by one writer goroutine per command, so that nothing
// that sends (the session's notification dispatcher above all) waits for a
// command that reads slowly. A result is queued as the bytes the session
// read, with no copy; notifications are bounded (maxNoted): a command that
// lets more of them pile up is disconnected with a line that says so,
// rather than growing the keeper.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net"
	"runtime/debug"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
)

// maxNoted bounds the bytes of notifications waiting for one command.
const maxNoted = 8 << 20

// writeWait bounds one write to a command; lastWait the last line to a
// command that is let go, which may not be reading at all.
const (
	writeWait = 30 * time.Second
	lastWait  = time.Second
)

// bigMessage is a result or request large enough that the memory it took
// is handed back to the system once it is written.
const bigMessage = 16 << 20

type outgoing struct {
	parts net.Buffers
	size  int
	note  bool // a notification: counted against maxNoted
	last  bool // the end: the writer closes the connection after it
	large bool // a result over bigMessage: counted in Keeper.large
}

// send queues a message (parts without the newline).
func (c *conn) send(note bool, parts ...[]byte) {
	o := outgoing{parts: append(net.Buffers(parts), newline), note: note}
	for _, p := range parts {
		o.size += len(p)
	}
	c.qmu.Lock()
	if c.ending {
		c.qmu.Unlock()
		return
	}
	if note && c.noted+o.size > maxNoted {
		c.qmu.Unlock()
		c.k.Log.Warn(fmt.Sprintf("a command was disconnected: it left %d MiB of notifications unread", maxNoted>>20))
		c.end(fmt.Sprintf("the command read too slowly: %d MiB of the server's notifications waited for it, and the session let it go", maxNoted>>20), nil, true)
		return
	}
	if note {
		c.noted += o.size
	}
	if !note && o.size > bigMessage {
		o.large = true
		c.k.large.add(cmp.Or(c.k.HoldLarge, holdLarge))
	}
	c.queue = append(c.queue, o)
	c.qmu.Unlock()
	lazy.Wake(c.wake)
}

var newline = []byte{'\n'}

// writeControl queues a control line.
func (c *conn) writeControl(ctl control) {
	b, _ := json.Marshal(ctl)
	c.send(false, b)
}

// end queues the last line, why the command is let go, after what is
// queued (or instead of it, when drop is set); the writer then closes the
// connection.
func (c *conn) end(why string, kind *errorKind, drop bool) {
	b, _ := json.Marshal(control{Closed: &why, Kind: kind})
	c.qmu.Lock()
	if c.ending {
		c.qmu.Unlock()
		return
	}
	c.ending = true
	if drop {
		c.dropQueue()
	}
	c.queue = append(c.queue, outgoing{parts: net.Buffers{b, newline}, size: len(b), last: true})
	c.lastLine = b
	c.qmu.Unlock()
	if drop {
		c.c.SetWriteDeadline(time.Now().Add(lastWait)) // a write stuck on a command that does not read ends soon
	}
	lazy.Wake(c.wake)
}

// dropQueue forgets what the outbox holds (c.qmu held).
func (c *conn) dropQueue() {
	for _, o := range c.queue {
		if o.note {
			c.noted -= o.size
		}
		if o.large {
			c.k.large.done()
		}
	}
	c.queue = nil
}

// writer writes the outbox until the last line is written, a write fails,
// or the command leaves (done); it then closes the connection. Started by
// serveConn, which it outlives at most by one write.
func (c *conn) writer() {
	defer close(c.flushed)
	defer c.c.Close()
	defer func() { // nothing is queued from here on, and nothing stays queued
		c.qmu.Lock()
		c.ending = true
		c.dropQueue()
		c.qmu.Unlock()
	}()
	for {
		select {
		case <-c.wake:
		case <-c.done:
			return
		}
		for {
			c.qmu.Lock()
			if len(c.queue) == 0 {
				c.qmu.Unlock()
				break
			}
			o := c.queue[0]
			c.queue[0] = outgoing{}
			c.queue = c.queue[1:]
			c.qmu.Unlock()
			wait := writeWait
			if o.last {
				wait = lastWait
			}
			err := c.writeNow(o.parts, wait)
			c.qmu.Lock()
			if o.note {
				c.noted -= o.size
			}
			c.qmu.Unlock()
			large, last := o.large, o.last
			o = outgoing{} // the result's bytes are free from here
			if large {
				// Handed back before the server is read on: the next
				// large result is not read while this one is still
				// held (see largeResults).
				debug.FreeOSMemory()
				c.k.large.done()
			}
			if err != nil && !last {
				c.qmu.Lock()
				b := c.lastLine
				c.qmu.Unlock()
				if b != nil { // let go: say why after what was cut short, on a line of its own
					c.writeNow(net.Buffers{newline, b, newline}, lastWait)
				}
			}
			if err != nil || last {
				return
			}
		}
	}
}

// writeNow writes parts at once, bounded by wait.
func (c *conn) writeNow(parts net.Buffers, wait time.Duration) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.c.SetWriteDeadline(time.Now().Add(wait))
	_, err := parts.WriteTo(c.c)
	return err
}
