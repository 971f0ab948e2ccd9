package mcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// heldSession is a session whose notification handler is held at the first
// notification until release: what it delivers, what Record saw, and what
// it logged.
type heldSession struct {
	s         *Session
	m         *memTransport
	release   func()
	mu        sync.Mutex // guards delivered and recorded
	delivered []string   // "METHOD PARAMS"
	recorded  int
	diag      mcptest.Buffer
}

func newHeldSession(t *testing.T) *heldSession { return newHeldSessionWith(t, false) }

// newHeldSessionWith is newHeldSession, with back-pressure as asked
// (SessionOptions.NoteBackPressure).
func newHeldSessionWith(t *testing.T, backPressure bool) *heldSession {
	h := &heldSession{}
	gate := make(chan struct{})
	var once sync.Once
	h.release = func() { once.Do(func() { close(gate) }) }
	h.s, h.m = newTestSession(t, SessionOptions{
		Log:              lineLogger(&h.diag),
		NoteBackPressure: backPressure,
		OnNotification: func(method string, params json.RawMessage) {
			<-gate
			h.mu.Lock()
			h.delivered = append(h.delivered, method+" "+string(params))
			h.mu.Unlock()
		},
		Record: func(string, json.RawMessage) {
			h.mu.Lock()
			h.recorded++
			h.mu.Unlock()
		},
	})
	// Registered after the session's Close, so run before it (cleanups
	// run last first): a test that fails early must not leave the
	// handler held while Close waits for it.
	t.Cleanup(h.release)
	return h
}

// A flood of log messages, with progress among them, before a response,
// while the handler is held: the reader reads it all and Record sees every
// one; the handler gets a bounded part of the log messages, in order, the
// latest progress, and one warning counting the log messages dropped.
func TestSessionNotificationFloodIsBounded(t *testing.T) {
	t.Parallel()
	const n = 50000
	h := newHeldSession(t)
	call := goCall(t.Context(), h.s.Call, "tools/call", rawJSON(`{"name":"x","_meta":{"progressToken":"t"}}`))
	req := h.m.nextMsg(t)
	for i := range n {
		h.m.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%d}}`, i))
		if i%10 == 9 {
			h.m.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":%d}}`, i/10+1))
		}
	}
	h.m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"content":[]}}`)
	h.release()
	if r := waitFor(t, call); r.err != nil || string(r.result) != `{"content":[]}` {
		t.Fatalf("Call = %s, %v", r.result, r.err)
	}

	h.mu.Lock()
	defer h.mu.Unlock()
	if h.recorded != n+n/10 {
		t.Errorf("Record saw %d notifications, want %d", h.recorded, n+n/10)
	}
	logs, delivered, lastProgress := 0, 0, 0
	var p struct {
		Data     *int
		Progress int
	}
	for _, d := range h.delivered {
		method, params, _ := strings.Cut(d, " ")
		p.Data = nil
		json.Unmarshal([]byte(params), &p)
		switch method {
		case "notifications/message":
			if *p.Data < logs {
				t.Fatalf("log message %d delivered after %d", *p.Data, logs-1)
			}
			logs = *p.Data + 1
			delivered++
		case "notifications/progress":
			if p.Progress <= lastProgress {
				t.Fatalf("progress %d delivered after %d", p.Progress, lastProgress)
			}
			lastProgress = p.Progress
		}
	}
	if lastProgress != n/10 {
		t.Errorf("the last progress delivered is %d, want the latest, %d", lastProgress, n/10)
	}
	if delivered > 2*maxQueuedNotes {
		t.Errorf("%d log messages delivered: more than the queue and a batch in hand hold", delivered)
	}
	notices := regexp.MustCompile(`(?m)^warning: dropped (\d+) log messages from the server: they came faster than they could be shown$`).FindAllStringSubmatch(h.diag.String(), -1)
	if len(notices) != 1 {
		t.Fatalf("%d notices, want 1:\n%s", len(notices), h.diag.String())
	}
	if dropped, _ := strconv.Atoi(notices[0][1]); dropped+delivered != n {
		t.Errorf("%d log messages delivered and %d counted as dropped, want %d in all", delivered, dropped, n)
	}
}

// With back-pressure, a flood past the queue's bound while the handler is
// held is not dropped: the full queue holds the reader (the server's
// sends wait) until the handler goes on, and then every log message is
// delivered, in order, before the call's answer, with no warning.
func TestSessionNotificationBackPressureDropsNothing(t *testing.T) {
	// The handler may take up to a queue's worth in its first batch
	// before it holds: twice as many and more fill the queue behind it.
	const n = 2*maxQueuedNotes + 1000
	h := newHeldSessionWith(t, true)
	call := goCall(t.Context(), h.s.Call, "tools/call", rawJSON(`{"name":"x"}`))
	req := h.m.nextMsg(t)
	sent := make(chan error, 1)
	go func() { // ends when all is sent, or the session ends
		for i := range n + 1 {
			msg := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%d}}`, i)
			if i == n {
				msg = `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"content":[]}}`
			}
			select {
			case h.m.in <- []byte(msg):
			case <-h.m.closed:
				sent <- fmt.Errorf("the session ended with %d of %d messages read", i, n+1)
				return
			}
		}
		sent <- nil
	}()
	// The handler holds the first; the queue fills behind it.
	deadline := time.Now().Add(testWait)
	for full := false; !full; {
		h.s.notes.mu.Lock()
		full = h.s.notes.live >= maxQueuedNotes
		h.s.notes.mu.Unlock()
		if !full && time.Now().After(deadline) {
			t.Fatal("the queue did not fill")
		}
		runtime.Gosched()
	}
	h.release()
	if r := waitFor(t, call); r.err != nil || string(r.result) != `{"content":[]}` {
		t.Fatalf("Call = %s, %v", r.result, r.err)
	}
	if err := waitFor(t, sent); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.delivered) != n {
		t.Errorf("%d log messages delivered before the answer, want %d", len(h.delivered), n)
	}
	for i, d := range h.delivered {
		if want := fmt.Sprintf(`notifications/message {"level":"info","data":%d}`, i); d != want {
			t.Fatalf("delivered %d is %s, want %s", i, d, want)
		}
	}
	if d := h.diag.String(); d != "" {
		t.Errorf("the session warned: %s", d)
	}
}

// Large notifications fill the queue by their size: held, twenty of 1 MB
// are not all kept, and what is dropped is counted, whatever its method.
func TestSessionNotificationQueueBoundedInBytes(t *testing.T) {
	t.Parallel()
	const n = 20
	h := newHeldSession(t)
	big := strings.Repeat("x", 1<<20)
	for i := range n {
		h.m.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/x-custom","params":{"n":%d,"pad":%q}}`, i, big))
	}
	h.m.send(t, `{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`) // answered by the reader: every notification is read
	h.m.nextMsg(t)
	h.release()
	if err := h.s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	m := regexp.MustCompile(`(?m)^warning: dropped (\d+) notifications from the server \(0 of them log messages\)`).FindStringSubmatch(h.diag.String())
	if m == nil {
		t.Fatalf("no notice of dropped notifications; %d delivered:\n%s", len(h.delivered), h.diag.String())
	}
	if dropped, _ := strconv.Atoi(m[1]); dropped+len(h.delivered) != n || len(h.delivered) > 2*maxQueuedBytes>>20+2 {
		t.Errorf("%d delivered, %d dropped, want at most %d delivered and %d in all", len(h.delivered), dropped, 2*maxQueuedBytes>>20+2, n)
	}
}

// The byte bound counts what the queue really keeps: notifications with
// small params in large messages (padded with whitespace) do not keep
// the messages alive while they wait.
func TestSessionNotificationQueueKeepsOnlyParams(t *testing.T) {
	const n = 400 // of 256 KiB each: 100 MB read, 16 KB of params
	h := newHeldSession(t)
	pad := strings.Repeat(" ", 256<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		h.m.send(t, `{"jsonrpc":"2.0","method":"notifications/x-custom",`+pad+`"params":{"n":`+strconv.Itoa(1000000+i)+`,"pad":"xxxxxxxxxxxxxxxxxxxx"}}`)
	}
	h.m.send(t, `{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`) // answered by the reader: every notification is read
	h.m.nextMsg(t)
	runtime.GC()
	runtime.ReadMemStats(&after)
	h.release()
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 4*maxQueuedBytes {
		t.Errorf("the heap grew by %d MB with %d small notifications held; want at most %d MB", grew>>20, n, 4*maxQueuedBytes>>20)
	}
	if err := h.s.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.delivered) != n {
		t.Errorf("%d delivered, want all %d", len(h.delivered), n)
	}
}

// Only what a later notification makes stale is superseded: progress per
// token, status per task, an update per resource, a change per list.
func TestSupersedeKey(t *testing.T) {
	for _, tt := range []struct{ method, params, want string }{
		{"notifications/progress", `{"progressToken":"t","progress":1}`, `notifications/progress "t"`},
		{"notifications/progress", `{"progressToken":7}`, `notifications/progress 7`},
		{"notifications/tasks/status", `{"taskId":"a","status":"working"}`, `notifications/tasks/status "a"`},
		{"notifications/resources/updated", `{"uri":"file:///x"}`, `notifications/resources/updated "file:///x"`},
		{"notifications/tools/list_changed", ``, `notifications/tools/list_changed`},
		{"notifications/progress", `{"progress":1}`, ``},
		{"notifications/message", `{"level":"info","data":"x"}`, ``},
		{"notifications/cancelled", `{"requestId":1}`, ``},
	} {
		if got := supersedeKey(tt.method, json.RawMessage(tt.params)); got != tt.want {
			t.Errorf("supersedeKey(%s, %s) = %q, want %q", tt.method, tt.params, got, tt.want)
		}
	}
}

// A notification that supersedes a queued one takes its place only if the
// queue's bytes allow: progress resent larger for each of many tokens must
// not grow a full queue past its bound.
func TestSupersedingKeepsTheByteBound(t *testing.T) {
	t.Parallel()
	q := newNoteQueue(false)
	progress := func(token, pad int) {
		params := json.RawMessage(fmt.Sprintf(`{"progressToken":%d,"progress":1,"pad":%q}`, token, strings.Repeat("x", pad)))
		q.push(message{Method: "notifications/progress", Params: params}, supersedeKey("notifications/progress", params), nil)
	}
	for i := range 1000 {
		progress(i, 0)
	}
	filler := json.RawMessage(`{"data":"` + strings.Repeat("y", maxQueuedBytes) + `"}`)
	q.push(message{Method: "notifications/message", Params: filler}, "", nil)
	for i := range 200 { // 12.5 MiB in all: past the bound below, were each taken in
		progress(i, 64<<10)
	}
	if q.bytes > maxQueuedBytes+len(filler) {
		t.Errorf("the queue holds %d bytes, bound %d", q.bytes, maxQueuedBytes)
	}
}
