package commands

// watch subscribes to resources and prints one line per change.
//
// Notifications arrive on the session's dispatcher goroutine (s.listen); the
// listener only stamps them and queues them for Run's goroutine, which does
// the printing and the optional resources/read. The queue is unbounded, so
// the listener never waits: a call returns only once the notifications that
// came before its response are handled, and a listener waiting for Run,
// itself in resources/read, would wait for ever. Nothing is dropped here;
// the session's own queue, before it, is bounded (mcp/notes.go) and under a
// flood keeps one update per resource.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// unsubscribeWait bounds the best-effort unsubscribes at the end of a watch.
const unsubscribeWait = 2 * time.Second

type watchCmd struct {
	URIs  []string      `arg:"" name:"uri" help:"The resources to subscribe to."`
	Read  bool          `name:"read" help:"Read the resource after each update and add its contents to the line."`
	Lists bool          `name:"lists" help:"Also report changes to the lists of resources, tools and prompts."`
	Count int           `name:"count" placeholder:"N" help:"Stop after N lines."`
	For   time.Duration `name:"for" placeholder:"DURATION" help:"Stop after this long (e.g. 30s, 5m)."`
}

func (c *watchCmd) Help() string {
	return `Subscribes to each URI (resources/subscribe) and prints one JSON line per notifications/resources/updated: {"uri":...,"time":...}, with "contents" from resources/read when --read is given. Runs until Ctrl-C (exit 130), or until --count lines or --for elapsed (exit 0); then unsubscribes. --timeout applies to each request, not to the watch.

Examples:

    $ mcpv watch demo://clock --count 3 -- ./server
    $ mcpv watch file:///var/log/app.log --read -r -q '.contents[0].text' -- ./server
    $ mcpv watch demo://clock --lists --for 1m -u http://localhost:8080/mcp`
}

func (c *watchCmd) Validate() error {
	if c.Count < 0 || c.For < 0 {
		return fmt.Errorf("--count and --for cannot be negative")
	}
	seen := map[string]bool{}
	for _, u := range c.URIs {
		if seen[u] {
			return fmt.Errorf("uri %q given twice", u)
		}
		seen[u] = true
	}
	return nil
}

// watchEvent is one notification, stamped when it arrived.
type watchEvent struct {
	uri  string // for notifications/resources/updated
	list string // for notifications/*/list_changed: resources, tools or prompts
	time time.Time
}

var listChanges = map[string]string{
	"notifications/resources/list_changed": "resources",
	"notifications/tools/list_changed":     "tools",
	"notifications/prompts/list_changed":   "prompts",
}

func (c *watchCmd) notInBatch() {}

func (c *watchCmd) Run(ctx context.Context, s *session, out *console) error {
	var events eventQueue
	events.wake = make(chan struct{}, 1)
	acked := make(chan json.RawMessage, 1)
	s.listen(func(method string, params json.RawMessage) {
		e := watchEvent{time: time.Now()}
		switch {
		case method == "notifications/subscriptions/acknowledged":
			select {
			case acked <- params:
			default:
			}
			return
		case method == "notifications/resources/updated":
			var p struct {
				URI string `json:"uri"`
			}
			json.Unmarshal(params, &p)
			e.uri = p.URI
		case c.Lists && listChanges[method] != "":
			e.list = listChanges[method]
		default:
			return
		}
		events.push(e)
	})

	var subscribed []string
	var client *mcp.Client
	defer func() { c.unsubscribe(ctx, out, client, subscribed) }()
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := client.Require("resources.subscribe", "resources/subscribe"); err != nil {
		return err
	}
	var streamEnded <-chan error // the modern era's subscription stream, if it ends
	if client.Modern() {
		stop, ended, err := c.listen(ctx, s, out, client, acked)
		if err != nil {
			return err
		}
		defer stop()
		streamEnded = ended
	}
	for _, uri := range c.URIs {
		if client.Modern() {
			break // subscriptions/listen holds them
		}
		_, err := client.Call(ctx, "resources/subscribe", uriParams(uri))
		var refused *mcp.CallError
		if !errors.As(err, &refused) {
			subscribed = append(subscribed, uri) // done, or maybe done if the call was cut short
		}
		if err != nil {
			return err
		}
	}

	var deadline <-chan time.Time
	if c.For > 0 {
		t := time.NewTimer(c.For)
		defer t.Stop()
		deadline = t.C
	}
	p := *out.printer
	p.Format.Pretty = out.flags.Pretty // one line per event, even on a terminal
	var falsy error
	for n := 0; c.Count == 0 || n < c.Count; n++ {
		e, ok := events.pop()
		for !ok {
			select {
			case <-ctx.Done():
				return context.Cause(ctx)
			case <-deadline:
				return falsy
			case <-client.Done():
				if err := client.Err(); err != nil {
					return err
				}
				return &mcp.TransportError{Op: "watch", Err: errors.New("the session ended")}
			case err := <-streamEnded:
				return err
			case <-events.wake:
			}
			e, ok = events.pop()
		}
		line, err := c.line(ctx, out, client, e)
		if err != nil {
			return err
		}
		out.ios.Status.Clear()
		switch err := p.Print(line); {
		case errors.Is(err, output.ErrFalsy):
			falsy = err
		case err != nil:
			return err
		default:
			falsy = nil
		}
	}
	return falsy
}

// listen opens the modern era's subscriptions/listen stream for the URIs
// (and the list changes, with --lists) and waits for the server's
// acknowledgement. stop ends the stream: on stdio a notifications/cancelled,
// over HTTP the response stream is closed.
func (c *watchCmd) listen(ctx context.Context, s *session, out *console, client *mcp.Client, acked <-chan json.RawMessage) (stop func(), ended <-chan error, err error) {
	params := mustJSON(map[string]any{"notifications": map[string]any{
		"resourceSubscriptions": c.URIs,
		"resourcesListChanged":  c.Lists,
		"toolsListChanged":      c.Lists,
		"promptsListChanged":    c.Lists,
	}})
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	result := make(chan error, 1)
	stopped := make(chan struct{})
	go func() { // ends when the stream does: stop, or the server ends it
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
	if d := s.settings.Timeout; d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		wait = t.C
	}
	select {
	case ack := <-acked:
		if err := c.checkAck(out, ack); err != nil {
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
		return nil, nil, &mcp.TimeoutError{Method: "subscriptions/listen (its acknowledgement)", Timeout: s.settings.Timeout}
	}
}

// checkAck compares the subscriptions the server acknowledged with those
// asked for: a URI it left out gets a warning, and none at all is a
// refusal, since the watch would print nothing.
func (c *watchCmd) checkAck(out *console, ack json.RawMessage) error {
	var a struct {
		Notifications struct {
			Resources []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	if json.Unmarshal(ack, &a) != nil {
		return nil
	}
	var missing []string
	for _, u := range c.URIs {
		if !slices.Contains(a.Notifications.Resources, u) {
			missing = append(missing, u)
		}
	}
	switch {
	case len(missing) == len(c.URIs):
		return &refusal{fmt.Sprintf("the server acknowledged none of the subscriptions (%s)", strings.Join(missing, ", "))}
	case len(missing) > 0:
		out.warnf("the server left %s out of its acknowledgement: no updates for it", strings.Join(missing, ", "))
	}
	return nil
}

// eventQueue is an unbounded FIFO of events: push never blocks.
type eventQueue struct {
	mu    sync.Mutex
	items []watchEvent
	wake  chan struct{} // 1-buffered: a push since the consumer last looked
}

func (q *eventQueue) push(e watchEvent) {
	q.mu.Lock()
	q.items = append(q.items, e)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop takes the oldest event, if there is one.
func (q *eventQueue) pop() (watchEvent, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return watchEvent{}, false
	}
	e := q.items[0]
	q.items[0] = watchEvent{}
	q.items = q.items[1:]
	return e, true
}

// line renders one event; with --read it reads the updated resource first.
func (c *watchCmd) line(ctx context.Context, out *console, client *mcp.Client, e watchEvent) (json.RawMessage, error) {
	stamp := e.time.UTC().Format(time.RFC3339Nano)
	if e.list != "" {
		return marshalLine(struct {
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
	if c.Read {
		res, err := client.Call(ctx, "resources/read", uriParams(e.uri))
		var callErr *mcp.CallError
		switch {
		case errors.As(err, &callErr):
			out.notef("%v", err)
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
	return marshalLine(line)
}

// marshalLine encodes v leaving <, > and & as they are, in strings and in
// the server's raw JSON alike.
func marshalLine(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// unsubscribe ends the subscriptions, best effort and bounded, on a context
// of its own: the watch's context may be the one Ctrl-C cancelled.
func (c *watchCmd) unsubscribe(ctx context.Context, out *console, client *mcp.Client, uris []string) {
	if len(uris) == 0 {
		return
	}
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unsubscribeWait)
	defer cancel()
	for _, uri := range uris {
		if _, err := client.Call(uctx, "resources/unsubscribe", uriParams(uri)); err != nil {
			out.warnf("unsubscribe %s: %v", uri, err)
		}
	}
}

func uriParams(uri string) json.RawMessage {
	return mustJSON(struct {
		URI string `json:"uri"`
	}{uri})
}
