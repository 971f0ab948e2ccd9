package mcp

// The JSON-RPC wire as a client below the session sees it: for a caller
// that must send what a session never would (an id of its choosing, a
// message that is not JSON, a notification with an id) and read every
// message the server sends, as sent. The session is built on the same
// decoding and encoding.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Message is one decoded JSON-RPC message, its members raw. Which fields
// are set tells its kind, as for the session's own messages: a request
// has ID and Method, a notification Method only, a response ID (nil when
// the server could not read the request's) and Result or Error.
type Message struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *RPCError
}

// IsRequest, IsNotification and IsResponse tell a message's kind.
func (m Message) IsRequest() bool      { return m.Method != "" && m.ID != nil }
func (m Message) IsNotification() bool { return m.Method != "" && m.ID == nil }
func (m Message) IsResponse() bool     { return m.Method == "" }

// DecodeMessages decodes one wire unit: a JSON-RPC message, or a batch of
// them (a JSON array). Values are sub-slices of data.
func DecodeMessages(data []byte) ([]Message, error) {
	msgs, err := appendMessages(nil, data)
	if err != nil {
		return nil, err
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = Message{ID: m.ID, Method: m.Method, Params: m.Params, Result: m.Result, Error: m.Error}
	}
	return out, nil
}

// EncodeRequest writes a request with id (raw JSON, as given), or a
// notification when id is nil, as the session writes its own.
func EncodeRequest(id json.RawMessage, method string, params json.RawMessage) ([]byte, error) {
	return encodeRequest(id, method, params)
}

// MessageSizeError is a message longer than a transport's MaxMessage.
type MessageSizeError struct {
	Limit int64
}

func (e *MessageSizeError) Error() string {
	return fmt.Sprintf("the server sent a message of more than %s, the most this run reads", sizeText(e.Limit))
}

// sizeText is n bytes as people read it: 16 MiB, 64 KiB, 100 bytes.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// CloseInput closes the server's stdin, its signal to end (transports,
// stdio, "Shutdown"), and nothing else: Close still ends the process.
// A write in progress fails.
func (t *CommandTransport) CloseInput() error { return t.stdin.Close() }

// Exited is closed once the server process has exited.
func (t *CommandTransport) Exited() <-chan struct{} { return t.exited }

// Event is one event of a Server-Sent Events stream.
type Event struct {
	Type string // "" means "message"
	ID   string // the last event id in force when it was dispatched
	Data []byte // nil in an event without data (FollowEvents)
	// Retry is the event's retry field as written, when it had one.
	Retry string
	// Replay: the event's own id came on an earlier connection of the
	// stream (FollowEvents): the server sent it again after Last-Event-ID.
	Replay bool
}

// FollowEvents reads a request's event stream as the HTTP transport
// does, resuming it as the transport does when it ends before answered
// says it has what it waits for: after the delay its retry field asks,
// open is asked for the stream after lastID (GET with Last-Event-ID),
// up to maxResumes reconnections in a row that bring no new event (0:
// DefaultMaxResumes), or until open's error is one of StopResuming. fn
// is called with each event, those without data that carry an id or a
// retry too, until it returns false; the result is nil then, or once
// answered, or why the stream was not followed to its end.
func FollowEvents(ctx context.Context, body io.ReadCloser, limit int64, maxResumes int, open func(lastID string) (io.ReadCloser, error), answered func() bool, fn func(Event) bool) error {
	f := follow{max: cmp.Or(maxResumes, DefaultMaxResumes), open: open,
		reader: func(body io.Reader) *sseReader {
			p := newSSEReader(body)
			p.lines.limit, p.bare = limit, true
			return p
		},
		read: func(p *sseReader) (got, progressed bool, err error) {
			for {
				ev, err := p.Next()
				if err != nil {
					return answered(), progressed, err
				}
				progressed = progressed || ev.Data != nil && !ev.Replay
				if !fn(ev) {
					return true, progressed, nil
				}
			}
		}}
	_, err := f.run(ctx, body)
	return err
}
