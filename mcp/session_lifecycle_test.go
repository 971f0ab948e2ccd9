package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

func TestSessionNotificationsInOrder(t *testing.T) {
	const n = 10000
	var got []string
	gate := make(chan struct{})
	all := make(chan struct{})
	var received atomic.Int64
	_, m := newTestSession(t, SessionOptions{
		OnNotification: func(method string, params json.RawMessage) {
			<-gate
			got = append(got, method+" "+string(params))
			if len(got) == n {
				close(all)
			}
		},
		// The dispatcher is held at the first notification until the reader
		// has read every one: the reader never waits for the dispatcher.
		Trace: func(out bool, _ []byte) {
			if !out && received.Add(1) == n {
				close(gate)
			}
		},
	})
	go func() {
		for i := range n {
			select {
			case m.in <- fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":%d}}`, i):
			case <-m.closed:
				return
			}
		}
	}()
	waitFor(t, all)
	for i, g := range got {
		if want := fmt.Sprintf(`notifications/progress {"n":%d}`, i); g != want {
			t.Fatalf("notification %d = %s, want %s", i, g, want)
		}
	}
}

// The reader never waits for the consumer of notifications: a server that
// sends thousands of them before a response gets everything read at once,
// however busy the consumer is. The call then returns once the consumer has
// handled every notification that came before its response, so what the
// server said first (progress, log lines) is shown first.
func TestSessionResponseNotStuckBehindNotifications(t *testing.T) {
	t.Parallel()
	const n = 5000
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // even when the test fails early, so that the session can close
	var delivered atomic.Int64
	s, m := newTestSession(t, SessionOptions{OnNotification: func(string, json.RawMessage) {
		<-release // the consumer is busy
		delivered.Add(1)
	}})
	call := goCall(t.Context(), s.Call, "resources/read", rawJSON(`{"uri":"demo://x"}`))
	req := m.nextMsg(t)
	sent := make(chan struct{})
	go func() {
		for i := range n {
			m.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"demo://x","n":%d}}`, i))
		}
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"contents":[]}}`)
		m.send(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"demo://x","n":"after"}}`)
		close(sent)
	}()
	waitFor(t, sent) // the reader took every message while the consumer was stuck
	select {
	case r := <-call:
		t.Fatalf("the call returned before its notifications were handled: %s, %v", r.result, r.err)
	case <-time.After(50 * time.Millisecond):
	}
	free()
	r := waitFor(t, call)
	if r.err != nil || string(r.result) != `{"contents":[]}` {
		t.Fatalf("Call = %s, %v", r.result, r.err)
	}
	if got := delivered.Load(); got < n {
		t.Errorf("the call returned after %d of the %d notifications before it", got, n)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testWait)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if got := delivered.Load(); got != n+1 {
		t.Errorf("%d notifications delivered, want %d", got, n+1)
	}
}

// A call whose context ends while the notifications before its response
// are still being handled returns its response at once.
func TestSessionResponseWaitEndsWithTheContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	s, m := newTestSession(t, SessionOptions{OnNotification: func(string, json.RawMessage) { <-release }})
	ctx, cancel := context.WithCancel(t.Context())
	call := goCall(ctx, s.Call, "tools/call", rawJSON(`{}`))
	req := m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"ok":true}}`)
	// The reader answers a ping itself, in the order it reads: once the
	// answer is out, the response has reached the call, which now waits
	// for the notification before it.
	m.send(t, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if a := m.nextMsg(t); string(a.ID) != `"after"` {
		t.Fatalf("client sent %+v, want the answer to the ping", a)
	}
	cancel()
	r := waitFor(t, call)
	if r.err != nil || string(r.result) != `{"ok":true}` {
		t.Fatalf("Call = %s, %v", r.result, r.err)
	}
}

// Server requests are handled at most maxServerRequests at a time; beyond
// that the reader waits, and every request is answered in the end.
func TestSessionServerRequestsAreCapped(t *testing.T) {
	const n = maxServerRequests + 10
	release := make(chan struct{})
	var running, peak, started atomic.Int64
	full := make(chan struct{})
	_, m := newTestSession(t, SessionOptions{Handler: func(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
		now := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); now > p && !peak.CompareAndSwap(p, now); p = peak.Load() {
		}
		if started.Add(1) == maxServerRequests {
			close(full)
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return json.RawMessage(`{}`), nil
	}})
	accepted := make(chan struct{}, n) // one token per request the reader took
	go func() {
		for i := range n {
			select {
			case m.in <- fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"s%d","method":"roots/list"}`, i):
				accepted <- struct{}{}
			case <-m.closed:
				return
			}
		}
	}()
	waitFor(t, full)
	// The reader takes one request more, then waits for a slot.
	for range maxServerRequests + 1 {
		waitFor(t, accepted)
	}
	if got := started.Load(); got != maxServerRequests {
		t.Errorf("%d handlers started while %d were busy", got, maxServerRequests)
	}
	close(release)
	answers := map[string]bool{}
	for len(answers) < n {
		var w struct {
			ID     string          `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(m.next(t), &w); err != nil || w.Result == nil {
			t.Fatalf("not an answer: %v", err)
		}
		answers[w.ID] = true
	}
	if p := peak.Load(); p > maxServerRequests {
		t.Errorf("%d handlers ran at once, want at most %d", p, maxServerRequests)
	}
}

// Close does not wait for handlers of server requests beyond their
// cancellation, nor for a reader waiting for a free slot; each request
// being handled is answered with an error before the transport closes, so
// that the server does not wait on it (a timer of its own on the answer
// would keep it running after its input ends).
func TestSessionCloseWhileServerRequestsWait(t *testing.T) {
	m := newMemTransport()
	var started atomic.Int64
	full := make(chan struct{})
	s := NewSession(m, SessionOptions{Handler: func(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
		if started.Add(1) == maxServerRequests {
			close(full)
		}
		<-ctx.Done() // a question nobody answers
		return nil, ctx.Err()
	}})
	for i := range maxServerRequests + 1 {
		m.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{}}`, i))
	}
	waitFor(t, full)
	closed := make(chan error, 1)
	go func() { closed <- s.Close(context.Background()) }()
	if err := waitFor(t, closed); err != nil {
		t.Fatal(err)
	}
	answered := map[string]bool{}
	for len(m.out) > 0 {
		w := m.nextMsg(t)
		if w.Error == nil || w.Error.Code != CodeInternalError || !strings.Contains(w.Error.Message, "the session is closing") {
			t.Fatalf("answer %s: %+v, want the error of a closing session", w.ID, w.Error)
		}
		answered[string(w.ID)] = true
	}
	if len(answered) < maxServerRequests {
		t.Errorf("%d of the %d requests being handled were answered before the transport closed", len(answered), maxServerRequests)
	}
}

func TestSessionServerCancelsItsRequest(t *testing.T) {
	started := make(chan struct{})
	handlerDone := make(chan error, 1)
	_, m := newTestSession(t, SessionOptions{Handler: func(ctx context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
		close(started)
		select {
		case <-ctx.Done():
			handlerDone <- ctx.Err()
		case <-time.After(testWait):
			handlerDone <- errors.New("the handler's context was not cancelled")
		}
		return json.RawMessage(`{"late":true}`), nil
	}})
	m.send(t, `{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{}}`)
	waitFor(t, started)
	m.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"no longer needed"}}`)
	if err := waitFor(t, handlerDone); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler ctx: %v, want context.Canceled", err)
	}
	// The next thing the client says is the answer to a later ping, not an
	// answer to request 5.
	m.send(t, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
	if got, want := string(m.next(t)), `{"jsonrpc":"2.0","id":"after","result":{}}`; got != want {
		t.Errorf("client sent %s, want only %s", got, want)
	}
}

func TestSessionServerCancelIgnoresOtherIDs(t *testing.T) {
	release := make(chan struct{})
	_, m := newTestSession(t, SessionOptions{Handler: func(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
		select {
		case <-release:
			return json.RawMessage(`{"done":true}`), ctx.Err()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}})
	m.send(t, `{"jsonrpc":"2.0","id":"5","method":"x"}`)
	// A numeric 5 is not the string id "5"; invalid cancellations are ignored.
	m.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
	m.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":"junk"}`)
	m.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled"}`)
	// The reader handles messages in order: once a later ping is answered,
	// the cancellations above have been handled.
	m.send(t, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if got, want := string(m.next(t)), `{"jsonrpc":"2.0","id":"p","result":{}}`; got != want {
		t.Fatalf("client sent %s, want %s", got, want)
	}
	close(release)
	if got, want := string(m.next(t)), `{"jsonrpc":"2.0","id":"5","result":{"done":true}}`; got != want {
		t.Errorf("answer = %s, want %s", got, want)
	}
}

func TestSessionCallCancelled(t *testing.T) {
	var diag mcptest.Buffer
	s, m := newTestSession(t, SessionOptions{Log: lineLogger(&diag)})
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("interrupted by the user")
	call := goCall(ctx, s.Call, "tools/call", rawJSON(`{"name":"slow"}`))
	req := m.nextMsg(t)
	cancel(cause)
	got := string(m.next(t))
	want := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + string(req.ID) + `,"reason":"interrupted by the user"}}`
	if got != want {
		t.Errorf("after cancel the client sent\n%s\nwant\n%s", got, want)
	}
	if r := waitFor(t, call); r.err != cause {
		t.Errorf("Call error = %v, want the context's cause", r.err)
	}

	// A late answer to the cancelled request is ignored; the next call gets
	// its own answer.
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"late":true}}`)
	next := goCall(t.Context(), s.Call, "tools/list", nil)
	req2 := m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req2.ID)+`,"result":{"tools":[]}}`)
	if r := waitFor(t, next); r.err != nil || string(r.result) != `{"tools":[]}` {
		t.Errorf("next Call = %s, %v", r.result, r.err)
	}
	if diag.String() != "" {
		t.Errorf("Diag = %q, want nothing", diag.String())
	}
}

func TestSessionCallWithDoneContextSendsNothing(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("gave up")
	cancel(cause)
	if _, err := s.Call(ctx, "tools/list", nil); err != cause {
		t.Errorf("Call = %v, want the cause", err)
	}
	m.assertQuiet(t)
}

func TestSessionInitializeNotCancelledOnWire(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	call := goCall(ctx, s.Call, "initialize", rawJSON(`{}`))
	if req := m.nextMsg(t); req.Method != "initialize" {
		t.Fatalf("first message %+v", req)
	}
	cancel()
	if r := waitFor(t, call); !errors.Is(r.err, context.Canceled) {
		t.Errorf("Call = %v, want context.Canceled", r.err)
	}
	if err := s.Notify(t.Context(), "probe", nil); err != nil {
		t.Fatal(err)
	}
	if got := m.nextMsg(t); got.Method != "probe" {
		t.Errorf("after cancelling initialize the client sent %s, want nothing before the probe", got.Method)
	}
}

func TestSessionReadErrorEndsCalls(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	boom := errors.New("boom")
	var calls []<-chan callResult
	for i := range 3 {
		calls = append(calls, goCall(t.Context(), s.Call, fmt.Sprintf("m%d", i), nil))
	}
	for range calls {
		m.next(t)
	}
	m.fail <- boom
	for i, ch := range calls {
		r := waitFor(t, ch)
		if !errors.Is(r.err, boom) || !strings.HasPrefix(r.err.Error(), fmt.Sprintf("m%d: ", i)) {
			t.Errorf("call m%d = %v, want it to wrap %v", i, r.err, boom)
		}
	}
	waitFor(t, s.Done())
	if s.Err() != boom {
		t.Errorf("Err() = %v, want %v", s.Err(), boom)
	}
	if _, err := s.Call(t.Context(), "later", nil); !errors.Is(err, boom) {
		t.Errorf("Call after the end = %v, want %v", err, boom)
	}
	if err := s.Notify(t.Context(), "later", nil); !errors.Is(err, boom) {
		t.Errorf("Notify after the end = %v, want %v", err, boom)
	}
	m.assertQuiet(t)
}

func TestSessionEndErrors(t *testing.T) {
	t.Run("server closed", func(t *testing.T) {
		s, m := newTestSession(t, SessionOptions{})
		call := goCall(t.Context(), s.Call, "m", nil)
		m.next(t)
		m.Close(t.Context()) // Read returns io.EOF, as when the server goes away
		r := waitFor(t, call)
		var te *TransportError
		if !errors.As(r.err, &te) || te.Op != "server closed the connection" {
			t.Errorf("Call = %v, want a TransportError saying the server closed the connection", r.err)
		}
	})
	t.Run("session closed", func(t *testing.T) {
		s, _ := newTestSession(t, SessionOptions{})
		if err := s.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		var te *TransportError
		if err := s.Err(); !errors.As(err, &te) || te.Op != "session closed" {
			t.Errorf("Err() after Close = %v, want a TransportError saying the session was closed", err)
		}
	})
}

func TestSessionCloseDeliversQueuedNotifications(t *testing.T) {
	t.Parallel()
	const n = 100
	gate := make(chan struct{})
	var mu sync.Mutex
	var got []string
	s, m := newTestSession(t, SessionOptions{OnNotification: func(_ string, params json.RawMessage) {
		<-gate
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(params))
	}})
	for i := range n {
		m.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"n","params":%d}`, i))
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close(t.Context()) }()
	waitFor(t, s.Done()) // the reader has stopped; notifications are still queued
	select {
	case <-closed:
		t.Fatal("Close returned while notifications were still waiting for delivery")
	case <-time.After(100 * time.Millisecond):
	}
	close(gate)
	if err := waitFor(t, closed); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprint(i)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delivered before Close returned (-want +got):\n%s", diff)
	}
}
