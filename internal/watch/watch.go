// Package watch subscribes to an MCP server's resources and turns each
// change it is told of into one JSON line: {"uri":...,"time":...}, with
// "contents" from resources/read when asked, or {"list":...,"time":...}
// for a changed list of resources, tools or prompts. In the initialize era
// each URI is subscribed to with resources/subscribe and unsubscribed from
// at the end; in the modern era one subscriptions/listen stream holds them
// all, and the server's acknowledgement is checked.
//
// Notifications arrive on the session's dispatcher goroutine (Notify); it
// only stamps them and queues them for Run's goroutine, which builds the
// lines and does the optional resources/read. The queue is unbounded, so
// Notify never waits: a call returns only once the notifications that
// came before its response are handled, and a listener waiting for Run,
// itself in resources/read, would wait for ever. Nothing is dropped here;
// the session's own queue, before it, is bounded (mcp/notes.go) and under
// a flood keeps one update per resource.
package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// unsubscribeWait bounds the best-effort unsubscribes at the end of a watch.
const unsubscribeWait = 2 * time.Second

// Options are what to watch, and how long.
type Options struct {
	URIs  []string
	Read  bool // read the resource after each update, for the line's contents
	Lists bool // also report changes to the lists of resources, tools and prompts
	Count int  // stop after this many lines; 0 means no limit
	For   time.Duration
	// Timeout bounds the wait for the acknowledgement of a modern
	// subscription; 0 means no bound.
	Timeout time.Duration
	// Warnf and Notef tell the user, on stderr, of what does not end the
	// watch: a URI the server left out, a read that failed.
	Warnf, Notef func(format string, args ...any)
	// Hold, when set, is asked before each URI is subscribed to and
	// before each read whether the resource may be used (a pin's
	// check); its error ends the watch.
	Hold func(ctx context.Context, client *mcp.Client, uri string) error
}

// Watch is one watch: make it with New, give Notify to the session before
// it opens, then Run.
type Watch struct {
	o      Options
	events eventQueue
	acked  chan json.RawMessage
}

// New makes a watch.
func New(o Options) *Watch {
	w := &Watch{o: o, acked: make(chan json.RawMessage, 1)}
	w.events.wake = make(chan struct{}, 1)
	return w
}

// event is one notification, stamped when it arrived.
type event struct {
	uri  string // for notifications/resources/updated
	list string // for notifications/*/list_changed: resources, tools or prompts
	time time.Time
	// malformed is an update whose params do not decode: said, not a line.
	malformed bool
}

// Notify takes the server's notifications; it never blocks.
func (w *Watch) Notify(method string, params json.RawMessage) {
	e := event{time: time.Now()}
	switch {
	case method == "notifications/subscriptions/acknowledged":
		select {
		case w.acked <- params:
		default:
		}
		return
	case method == "notifications/resources/updated":
		var p struct {
			URI string `json:"uri"`
		}
		e.malformed = json.Unmarshal(params, &p) != nil
		e.uri = p.URI
	case w.o.Lists:
		var ok bool
		if e.list, ok = mcp.ListChanged(method); !ok {
			return
		}
	default:
		return
	}
	w.events.push(e)
}

// Run subscribes, then hands emit each line until ctx ends (its cause),
// Count lines were emitted or For elapsed (nil), the session ends, or emit
// fails; then it unsubscribes.
func (w *Watch) Run(ctx context.Context, client *mcp.Client, emit func(json.RawMessage) error) error {
	var subscribed []string
	defer func() { w.unsubscribe(ctx, client, subscribed) }()
	if err := client.Require("resources.subscribe", "resources/subscribe"); err != nil {
		return err
	}
	for _, uri := range w.o.URIs {
		if err := w.hold(ctx, client, uri); err != nil {
			return err
		}
	}
	var streamEnded <-chan error // the modern era's subscription stream, if it ends
	if client.Modern() {
		stop, ended, err := w.listen(ctx, client)
		if err != nil {
			return err
		}
		defer stop()
		streamEnded = ended
	}
	for _, uri := range w.o.URIs {
		if client.Modern() {
			break // subscriptions/listen holds them
		}
		_, err := client.Call(ctx, "resources/subscribe", uriParams(uri))
		if !errors.As(err, new(*mcp.CallError)) {
			subscribed = append(subscribed, uri) // done, or maybe done if the call was cut short
		}
		if err != nil {
			return err
		}
	}

	var deadline <-chan time.Time
	if w.o.For > 0 {
		t := time.NewTimer(w.o.For)
		defer t.Stop()
		deadline = t.C
	}
	for n := 0; w.o.Count == 0 || n < w.o.Count; n++ {
		e, ok := w.events.pop()
		for !ok {
			select {
			case <-ctx.Done():
				return context.Cause(ctx)
			case <-deadline:
				return nil
			case <-client.Done():
				if err := client.Err(); err != nil {
					return err
				}
				return &mcp.TransportError{Op: "watch", Err: errors.New("the session ended")}
			case err := <-streamEnded:
				return err
			case <-w.events.wake:
			}
			e, ok = w.events.pop()
		}
		if e.malformed {
			w.o.Warnf("the server's notifications/resources/updated was left out: its params do not decode")
			n--
			continue
		}
		line, err := w.line(ctx, client, e)
		if err != nil {
			return err
		}
		if err := emit(line); err != nil {
			return err
		}
	}
	return nil
}

// listen opens the modern era's subscriptions/listen stream for the URIs
// (and the list changes, with Lists) and waits for the server's
// acknowledgement. stop ends the stream: on stdio a notifications/cancelled,
// over HTTP the response stream is closed.
func (w *Watch) listen(ctx context.Context, client *mcp.Client) (stop func(), ended <-chan error, err error) {
	params, _ := json.Marshal(map[string]any{"notifications": map[string]any{
		"resourceSubscriptions": w.o.URIs,
		"resourcesListChanged":  w.o.Lists,
		"toolsListChanged":      w.o.Lists,
		"promptsListChanged":    w.o.Lists,
	}})
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	result := make(chan error, 1)
	stopped := make(chan struct{})
	go func() { // subscription stream: ends when the stream does: stop, or the server ends it
		_, err := client.Stream(lctx, "subscriptions/listen", params)
		if err == nil {
			err = &mcp.TransportError{Op: "subscriptions/listen", Err: errors.New("the server ended the subscription")}
		}
		result <- err
		close(stopped)
	}()
	stop = func() {
		cancel()
		select {
		case <-stopped:
		case <-time.After(unsubscribeWait):
		}
	}
	var wait <-chan time.Time
	if d := w.o.Timeout; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		wait = t.C
	}
	select {
	case ack := <-w.acked:
		if err := w.checkAck(ack); err != nil {
			stop()
			return nil, nil, err
		}
		return stop, result, nil
	case err := <-result:
		cancel()
		return nil, nil, err
	case <-ctx.Done():
		stop()
		return nil, nil, context.Cause(ctx)
	case <-wait:
		stop()
		return nil, nil, &mcp.TimeoutError{Method: "subscriptions/listen (its acknowledgement)", Timeout: w.o.Timeout}
	}
}

// checkAck compares the subscriptions the server acknowledged with those
// asked for: a URI it left out gets a warning, and none at all is a
// refusal, since the watch would print nothing.
func (w *Watch) checkAck(ack json.RawMessage) error {
	var a struct {
		Notifications struct {
			Resources []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	if json.Unmarshal(ack, &a) != nil {
		return nil
	}
	var missing []string
	for _, u := range w.o.URIs {
		if !slices.Contains(a.Notifications.Resources, u) {
			missing = append(missing, u)
		}
	}
	switch {
	case len(missing) == len(w.o.URIs):
		return &UnacknowledgedError{URIs: missing}
	case len(missing) > 0:
		w.o.Warnf("the server left %s out of its acknowledgement: no updates for it", strings.Join(missing, ", "))
	}
	return nil
}

// UnacknowledgedError is a modern subscription whose acknowledgement names
// none of the URIs asked for: the watch would print nothing.
type UnacknowledgedError struct{ URIs []string }

func (e *UnacknowledgedError) Error() string {
	return fmt.Sprintf("the server acknowledged none of the subscriptions (%s)", strings.Join(e.URIs, ", "))
}

// eventQueue is an unbounded FIFO of events: push never blocks.
type eventQueue struct {
	mu    sync.Mutex // guards items
	items []event
	wake  chan struct{} // 1-buffered: a push since the consumer last looked
}

func (q *eventQueue) push(e event) {
	q.mu.Lock()
	q.items = append(q.items, e)
	q.mu.Unlock()
	lazy.Wake(q.wake)
}

// pop takes the oldest event, if there is one.
func (q *eventQueue) pop() (event, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return event{}, false
	}
	e := q.items[0]
	q.items[0] = event{}
	q.items = q.items[1:]
	return e, true
}

// line renders one event; with Read it reads the updated resource first.
func (w *Watch) line(ctx context.Context, client *mcp.Client, e event) (json.RawMessage, error) {
	stamp := e.time.UTC().Format(time.RFC3339Nano)
	if e.list != "" {
		return rawjson.Encode(struct {
			List string `json:"list"`
			Time string `json:"time"`
		}{e.list, stamp})
	}
	line := struct {
		URI      string          `json:"uri"`
		Time     string          `json:"time"`
		Contents json.RawMessage `json:"contents,omitempty"`
		Error    *mcp.RPCError   `json:"error,omitempty"`
	}{URI: e.uri, Time: stamp}
	if w.o.Read {
		if err := w.hold(ctx, client, e.uri); err != nil {
			return nil, err
		}
		res, err := client.Call(ctx, "resources/read", uriParams(e.uri))
		var callErr *mcp.CallError
		switch {
		case errors.As(err, &callErr):
			w.o.Notef("%v", err)
			line.Error = &mcp.RPCError{Code: callErr.Err.Code, Message: callErr.Err.Message}
		case err != nil:
			return nil, err
		default:
			line.Contents = rawjson.Member(res, "contents")
			if line.Contents == nil {
				line.Contents = json.RawMessage("null")
			}
		}
	}
	return rawjson.Encode(line) // <, > and & as they are, in strings and in the server's raw JSON alike
}

// hold is Options.Hold of uri, nil without one.
func (w *Watch) hold(ctx context.Context, client *mcp.Client, uri string) error {
	if w.o.Hold == nil {
		return nil
	}
	return w.o.Hold(ctx, client, uri)
}

// unsubscribe ends the subscriptions, best effort and bounded, on a context
// of its own: the watch's context may be the one Ctrl-C cancelled.
func (w *Watch) unsubscribe(ctx context.Context, client *mcp.Client, uris []string) {
	if len(uris) == 0 {
		return
	}
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unsubscribeWait)
	defer cancel()
	for _, uri := range uris {
		if _, err := client.Call(uctx, "resources/unsubscribe", uriParams(uri)); err != nil {
			w.o.Warnf("unsubscribe %s: %v", uri, err)
		}
	}
}

func uriParams(uri string) json.RawMessage {
	return rawjson.Marshal(struct {
		URI string `json:"uri"`
	}{uri})
}
