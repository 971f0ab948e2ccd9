package serve

import (
	"context"
	"io"
	"sync"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// ServeStream serves one client on r and w (mcpv's stdin and stdout) until
// the client closes r, ctx ends, or the shared upstream session ends. A
// client that writes its requests and closes r still gets every answer:
// the end of r is taken once what was asked has been answered. closeIn,
// when not nil, makes a blocked read of r return.
func (s *Server) ServeStream(ctx context.Context, r io.Reader, w io.Writer, closeIn func() error) error {
	d := &drain{idle: make(chan struct{}), eof: make(chan struct{})}
	t := &draining{StreamTransport: mcp.NewStreamTransport(r, w, closeIn, s.Log), d: d}
	c := s.serveClientWith(t, d)
	defer c.close()
	select {
	case <-c.sess.Done():
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-s.Done():
		return s.Err()
	}
}

// drain counts a stream client's requests from the moment they are read
// to the moment their handler returns (ping, which the session answers
// itself, is not counted).
type drain struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // signalled when n falls to 0
	eof  chan struct{} // closed when the input has ended: the client answers nothing more
	once sync.Once     // guards closing eof
}

func (d *drain) add() {
	d.mu.Lock()
	d.n++
	d.mu.Unlock()
}

func (d *drain) done() {
	d.mu.Lock()
	d.n--
	n := d.n
	d.mu.Unlock()
	if n == 0 {
		select {
		case d.idle <- struct{}{}:
		default:
		}
	}
}

func (d *drain) wait() {
	for {
		d.mu.Lock()
		n := d.n
		d.mu.Unlock()
		if n <= 0 {
			return
		}
		<-d.idle
	}
}

// draining is a stream transport whose end of input waits for the
// requests read before it to be answered.
type draining struct {
	*mcp.StreamTransport
	d *drain
}

func (t *draining) Read() ([]byte, error) {
	msg, err := t.StreamTransport.Read()
	if err != nil {
		t.d.once.Do(func() { close(t.d.eof) })
		t.d.wait()
		return nil, err
	}
	method, id := false, false
	rawjson.ForEachValidMember(msg, func(k string, v []byte) error {
		switch k {
		case "method":
			method = string(v) != `"ping"` && string(v) != "null"
		case "id":
			id = string(v) != "null"
		}
		return nil
	})
	if method && id {
		t.d.add()
	}
	return msg, nil
}
