package keeper

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// Attach connects to the keeper of session name and returns a transport
// that speaks to the server through it, with the state of the session.
func Attach(ctx context.Context, d Dir, name string) (*Transport, mcp.State, error) {
	c, r, err := dial(d, name, attachLine)
	if err != nil {
		return nil, mcp.State{}, err
	}
	stop := context.AfterFunc(ctx, func() { c.SetReadDeadline(time.Now()) })
	ctl, err := readControl(r)
	stop()
	c.SetReadDeadline(time.Time{})
	switch {
	case ctx.Err() != nil:
		c.Close()
		return nil, mcp.State{}, context.Cause(ctx)
	case err != nil:
		c.Close()
		return nil, mcp.State{}, &mcp.TransportError{Op: "session " + name, Err: fmt.Errorf("the keeper did not say hello: %w", err)}
	case ctl.Closed != nil:
		c.Close()
		return nil, mcp.State{}, &mcp.TransportError{Op: "session " + name, Err: rebuild(*ctl.Closed, ctl.Kind)}
	case ctl.Hello == nil:
		c.Close()
		return nil, mcp.State{}, &mcp.TransportError{Op: "session " + name, Err: errors.New("the keeper did not say hello")}
	}
	t := &Transport{c: c, r: r, name: name, end: make(chan struct{}), secrets: ctl.Hello.Secrets, answers: ctl.Hello.Answers}
	return t, ctl.Hello.State, nil
}

// Transport is an mcp.Transport to the server through its keeper.
type Transport struct {
	c       net.Conn
	r       *bufio.Reader
	name    string
	secrets []string
	answers json.RawMessage

	wmu    sync.Mutex // guards the connection's writes: one message at a time
	closed sync.Once

	end     chan struct{} // closed when Read has met the session's end, why set before
	endOnce sync.Once
	why     error // what Read returned at the end
}

// endWait bounds how long a write that failed waits for the reader to
// learn why the keeper let go (its last line, read at once when it came).
const endWait = 2 * time.Second

// Secrets are the session's secrets, for the command to mask.
func (t *Transport) Secrets() []string { return t.secrets }

// Answers are the session's answers to server requests, as the keeper
// was given them (Keeper.Answers).
func (t *Transport) Answers() json.RawMessage { return t.answers }

// Read returns the next JSON-RPC message the keeper relays; the keeper's
// last line, when the session ends, becomes a transport error.
func (t *Transport) Read() ([]byte, error) {
	line, err := readLine(t.r)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
			err = errors.New("the session keeper went away")
		}
		return nil, t.ended(&mcp.TransportError{Op: "session " + t.name, Err: err})
	}
	if bytes.HasPrefix(line, []byte(`{"jsonrpc"`)) {
		return line, nil // the keeper writes every JSON-RPC message so
	}
	var ctl control
	if json.Unmarshal(line, &ctl) != nil {
		return line, nil
	}
	switch {
	case ctl.Closed != nil:
		return nil, t.ended(&mcp.TransportError{Op: "session " + t.name, Err: rebuild(*ctl.Closed, ctl.Kind)})
	case ctl.Failed != nil:
		return nil, &mcp.RequestError{ID: ctl.Failed.ID, Err: &mcp.TransportError{Op: "session " + t.name, Err: rebuild(ctl.Failed.Error, ctl.Failed.Kind)}}
	}
	return line, nil
}

// ended records err, the session's end as Read met it, and returns it.
func (t *Transport) ended(err error) error {
	t.endOnce.Do(func() {
		t.why = err
		close(t.end)
	})
	return t.why
}

// Write sends one message, with the x-mcp-header annotations of ctx. A
// write the keeper no longer reads (it stopped, or went away) fails with
// why, as the keeper's last line says it, not with a broken pipe: that
// line may still be on its way to the reader when the write fails.
func (t *Transport) Write(ctx context.Context, msg []byte) error {
	err := t.write(ctx, msg)
	if !errors.As(err, new(*mcp.TransportError)) {
		return err
	}
	select { // t.wmu let go: other writers fail as they may meanwhile
	case <-t.end:
		return t.why
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-time.After(endWait):
		return err
	}
}

// write is Write while holding t.wmu.
func (t *Transport) write(ctx context.Context, msg []byte) error {
	seek := mcp.ToolSought(ctx)
	if !utf8.ValidString(seek) {
		seek = "" // encoded, it would name another tool
	}
	b, err := envelopeLine(msg, mcp.ParamHeadersFrom(ctx), seek)
	if err != nil {
		return err
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	// A keeper that does not read (stopped, starved) must not hold up a
	// command whose request was cancelled or timed out: ctx's end cuts
	// the write short.
	var dmu sync.Mutex // guards writing: the deadline may be set only while true
	writing := true
	stop := context.AfterFunc(ctx, func() {
		dmu.Lock()
		defer dmu.Unlock()
		if writing {
			t.c.SetWriteDeadline(time.Now())
		}
	})
	_, err = t.c.Write(b)
	stop()
	dmu.Lock()
	writing = false
	dmu.Unlock()
	t.c.SetWriteDeadline(time.Time{})
	if err != nil && ctx.Err() != nil {
		// Cut short, the message may be half written: nothing more can
		// follow it on this connection.
		t.Close(ctx)
		return context.Cause(ctx)
	}
	if err != nil {
		return &mcp.TransportError{Op: "session " + t.name, Err: err}
	}
	return nil
}

// Close leaves the session; the keeper cancels what is still in flight.
func (t *Transport) Close(context.Context) error {
	t.closed.Do(func() { t.c.Close() })
	return nil
}

// parseHello reads {"hello":{...}} as the keeper writes it; ok is false
// for any other line, and for a hello with a member it does not know.
func parseHello(line []byte) (h *hello, ok bool) {
	h = new(hello)
	state := func(k string, v []byte) (err error) {
		switch k {
		case "protocolVersion":
			h.State.Version, err = rawjson.String(v)
		case "modern":
			h.State.Modern, err = string(v) == "true", notBool(v)
		case "initializeResult":
			err = h.State.InitializeResult.UnmarshalJSON(v)
		default:
			err = errUnknown
		}
		return err
	}
	body := func(k string, v []byte) (err error) {
		switch k {
		case "state":
			return rawjson.ForEachValidMember(v, state)
		case "secrets":
			if v[0] != '[' {
				return errUnknown
			}
			rawjson.ForEachElement(v, func(_ int, el []byte) {
				s, e := rawjson.String(el)
				h.Secrets, err = append(h.Secrets, s), cmp.Or(err, e)
			})
		case "answers":
			h.Answers = v
		default:
			err = errUnknown
		}
		return err
	}
	err := rawjson.ForEachMember(line, func(k string, v []byte) error {
		if k != "hello" {
			return errUnknown
		}
		return rawjson.ForEachValidMember(v, body)
	})
	return h, err == nil && h.State.InitializeResult.Raw() != nil
}

// notBool refuses a JSON value other than true and false.
func notBool(v []byte) error {
	if string(v) != "true" && string(v) != "false" {
		return errUnknown
	}
	return nil
}

// errUnknown: a line parseHello leaves to encoding/json.
var errUnknown = errors.New("not a hello as the keeper writes it")

// envelopeLine is msg's envelope (see envelope) as one line, its end
// included. A message on one line, as mcp writes each, goes in as it is:
// the keeper checks it as it reads it, and json.Marshal would check and
// compact it once more on its way, the larger part of what a call through
// a warm session spent writing. Another is marshaled (compacted).
func envelopeLine(msg []byte, headers []mcp.ParamHeader, seek string) ([]byte, error) {
	if bytes.ContainsAny(msg, "\r\n") || len(msg) == 0 {
		b, err := json.Marshal(envelope{Msg: msg, Headers: headers, Seek: seek})
		return append(b, '\n'), err
	}
	b := make([]byte, 0, len(msg)+len(seek)+32)
	b = append(append(b, `{"msg":`...), msg...)
	if len(headers) > 0 {
		h, err := json.Marshal(headers)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"headers":`...), h...)
	}
	if seek != "" {
		b = rawjson.AppendString(append(b, `,"seek":`...), seek)
	}
	return append(b, "}\n"...), nil
}
