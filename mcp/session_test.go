package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// testWait bounds every wait for something that should happen; it only fires
// when the code under test is broken. A minute, not less: a machine loaded
// far past its CPUs has held a flood of 50,000 notifications longer than 10 s.
const testWait = time.Minute

// memTransport is an in-memory Transport. The test plays the server with
// send (server → client) and next (client → server).
type memTransport struct {
	in     chan []byte // server → client; unbuffered
	out    chan []byte // client → server
	fail   chan error  // a value sent here makes Read return it
	closed chan struct{}
	once   sync.Once

	writing    atomic.Int32
	concurrent atomic.Bool // Write was called while another Write ran
}

func newMemTransport() *memTransport {
	return &memTransport{
		in:     make(chan []byte),
		out:    make(chan []byte, 1024),
		fail:   make(chan error, 1),
		closed: make(chan struct{}),
	}
}

func (m *memTransport) Read() ([]byte, error) {
	select {
	case b := <-m.in:
		return b, nil
	case err := <-m.fail:
		return nil, err
	case <-m.closed:
		return nil, io.EOF
	}
}

func (m *memTransport) Write(ctx context.Context, msg []byte) error {
	if m.writing.Add(1) > 1 {
		m.concurrent.Store(true)
	}
	defer m.writing.Add(-1)
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	select {
	case <-m.closed:
		return errors.New("memTransport: closed")
	default:
	}
	select {
	case m.out <- bytes.Clone(msg):
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-m.closed:
		return errors.New("memTransport: closed")
	}
}

func (m *memTransport) Close(context.Context) error {
	m.once.Do(func() { close(m.closed) })
	return nil
}

// send delivers one message from the server.
func (m *memTransport) send(t testing.TB, msg string) {
	t.Helper()
	select {
	case m.in <- []byte(msg):
	case <-time.After(testWait):
		t.Fatalf("the session did not read %s", msg)
	}
}

// next returns the next message the client wrote.
func (m *memTransport) next(t testing.TB) []byte {
	t.Helper()
	select {
	case b := <-m.out:
		return b
	case <-time.After(testWait):
		t.Fatal("the client sent nothing")
		return nil
	}
}

// nextMsg is next, decoded.
func (m *memTransport) nextMsg(t testing.TB) wireMsg {
	t.Helper()
	b := m.next(t)
	var w wireMsg
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatalf("client sent %q: %v", b, err)
	}
	return w
}

// assertQuiet fails if the client has written anything not yet read.
func (m *memTransport) assertQuiet(t testing.TB) {
	t.Helper()
	select {
	case b := <-m.out:
		t.Errorf("client sent %s, want nothing", b)
	default:
	}
}

type wireMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Error   *RPCError       `json:"error"`
}

// newTestSession starts a session on a memTransport and closes it at the end
// of the test, checking the Transport contract was kept.
func newTestSession(t *testing.T, opts SessionOptions) (*Session, *memTransport) {
	t.Helper()
	m := newMemTransport()
	s := NewSession(m, opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		s.Close(ctx)
		if m.concurrent.Load() {
			t.Error("the session called Transport.Write concurrently")
		}
	})
	return s, m
}

type callResult struct {
	result json.RawMessage
	err    error
}

func goCall(ctx context.Context, call func(context.Context, string, json.RawMessage) (json.RawMessage, error), method string, params json.RawMessage) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		r, err := call(ctx, method, params)
		ch <- callResult{r, err}
	}()
	return ch
}

func waitFor[T any](t testing.TB, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testWait):
		t.Fatal("timed out")
		var zero T
		return zero
	}
}

func TestSessionMatchesResponsesByID(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	const n = 20
	calls := make([]<-chan callResult, n)
	for i := range calls {
		calls[i] = goCall(t.Context(), s.Call, "echo", rawJSON(fmt.Sprintf(`{"i":%d}`, i)))
	}
	reqs := make([]wireMsg, n)
	ids := map[string]bool{}
	for i := range reqs {
		reqs[i] = m.nextMsg(t)
		if ids[string(reqs[i].ID)] {
			t.Fatalf("id %s used twice", reqs[i].ID)
		}
		ids[string(reqs[i].ID)] = true
	}
	// Answer in the reverse order of arrival.
	for i := n - 1; i >= 0; i-- {
		m.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"echo":%s}}`, reqs[i].ID, reqs[i].Params))
	}
	for i, ch := range calls {
		r := waitFor(t, ch)
		if r.err != nil {
			t.Fatalf("call %d: %v", i, r.err)
		}
		if want := fmt.Sprintf(`{"echo":{"i":%d}}`, i); string(r.result) != want {
			t.Errorf("call %d got %s, want %s", i, r.result, want)
		}
	}
}

func TestSessionIgnoresStrayResponses(t *testing.T) {
	var diag mcptest.Buffer
	s, m := newTestSession(t, SessionOptions{Log: lineLogger(&diag)})
	call := goCall(t.Context(), s.Call, "tools/list", nil)
	req := m.nextMsg(t)
	if string(req.ID) != "1" || req.Method != "tools/list" || req.Params != nil {
		t.Fatalf("request = %+v", req)
	}
	m.send(t, `{"jsonrpc":"2.0","id":999,"result":{"wrong":"unknown id"}}`)
	m.send(t, `{"jsonrpc":"2.0","id":"1","result":{"wrong":"string id"}}`)
	m.send(t, `{"jsonrpc":"2.0","id":1,"result":{"right" : true}}`)
	r := waitFor(t, call)
	if r.err != nil || string(r.result) != `{"right" : true}` {
		t.Errorf("Call = %s, %v; want the result for id 1 as sent", r.result, r.err)
	}
	if diag.String() != "" {
		t.Errorf("Diag = %q, want nothing for stray responses", diag.String())
	}
}

func TestSessionSkipsBadMessages(t *testing.T) {
	var diag mcptest.Buffer
	var notes []string
	s, m := newTestSession(t, SessionOptions{Log: lineLogger(&diag), OnNotification: func(method string, _ json.RawMessage) {
		notes = append(notes, method)
	}})
	call := goCall(t.Context(), s.Call, "tools/list", nil)
	req := m.nextMsg(t)
	m.send(t, `hello`)
	m.send(t, `[]`)
	m.send(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	m.send(t, `[{"jsonrpc":"2.0","method":"notifications/message","params":{}},{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"ok":1}}]`)
	r := waitFor(t, call)
	if r.err != nil || string(r.result) != `{"ok":1}` {
		t.Errorf("Call = %s, %v; want the result from the batch", r.result, r.err)
	}
	s.Close(t.Context())
	if diff := cmp.Diff([]string{"notifications/message"}, notes); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	lines := strings.Split(strings.TrimSuffix(diag.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "not JSON-RPC") || !strings.Contains(lines[1], "empty batch") ||
		!strings.Contains(lines[2], "without a request id") || !strings.Contains(lines[2], "Parse error") {
		t.Errorf("Diag = %q, want two skipped messages and one error without id", diag.String())
	}
}

func TestSessionAnswersPingDuringCall(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{Handler: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("the handler must not see ping")
	}})
	call := goCall(t.Context(), s.Call, "tools/call", rawJSON(`{"name":"t"}`))
	req := m.nextMsg(t)
	m.send(t, `{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`)
	if got, want := string(m.next(t)), `{"jsonrpc":"2.0","id":"srv-1","result":{}}`; got != want {
		t.Errorf("ping answer = %s, want %s", got, want)
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"content":[]}}`)
	if r := waitFor(t, call); r.err != nil || string(r.result) != `{"content":[]}` {
		t.Errorf("Call = %s, %v", r.result, r.err)
	}
}

func TestSessionServerRequests(t *testing.T) {
	handler := func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		switch method {
		case "roots/list":
			return rawJSON("{\"roots\" : [ ]}"), nil
		case "empty":
			return nil, nil
		case "refuse":
			return nil, &RPCError{Code: -1, Message: "declined", Data: rawJSON(`{"why":"no"}`)}
		case "fail":
			return nil, fmt.Errorf("wrapped: %w", io.ErrUnexpectedEOF)
		}
		return nil, MethodNotFound(method)
	}
	tests := []struct {
		name    string
		handler RequestHandler
		request string
		want    string
	}{
		{"no handler, string id", nil, `{"jsonrpc":"2.0","id":"abc","method":"elicitation/create","params":{}}`,
			`{"jsonrpc":"2.0","id":"abc","error":{"code":-32601,"message":"Method not found: elicitation/create"}}`},
		{"no handler, numeric id", nil, `{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage"}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found: sampling/createMessage"}}`},
		{"id echoed byte for byte", nil, `{"jsonrpc":"2.0","id":"a\u0062c","method":"x"}`,
			`{"jsonrpc":"2.0","id":"a\u0062c","error":{"code":-32601,"message":"Method not found: x"}}`},
		{"unusual numeric id", nil, `{"jsonrpc":"2.0","id":1.5e3,"method":"x"}`,
			`{"jsonrpc":"2.0","id":1.5e3,"error":{"code":-32601,"message":"Method not found: x"}}`},
		{"ping without handler", nil, `{"jsonrpc":"2.0","id":0,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":0,"result":{}}`},
		{"handler result compacted", handler, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`,
			`{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}`},
		{"nil result is {}", handler, `{"jsonrpc":"2.0","id":2,"method":"empty"}`,
			`{"jsonrpc":"2.0","id":2,"result":{}}`},
		{"RPCError sent as is", handler, `{"jsonrpc":"2.0","id":3,"method":"refuse"}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"declined","data":{"why":"no"}}}`},
		{"other error is internal", handler, `{"jsonrpc":"2.0","id":4,"method":"fail"}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"wrapped: unexpected EOF"}}`},
		{"handler's own method-not-found", handler, `{"jsonrpc":"2.0","id":5,"method":"other"}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found: other"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, m := newTestSession(t, SessionOptions{Handler: tt.handler})
			m.send(t, tt.request)
			if diff := cmp.Diff(tt.want, string(m.next(t))); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSessionTrace(t *testing.T) {
	var mu sync.Mutex
	var trace []string
	s, m := newTestSession(t, SessionOptions{Trace: func(out bool, msg []byte) {
		mu.Lock()
		defer mu.Unlock()
		trace = append(trace, fmt.Sprintf("%v %s", out, msg))
	}})
	call := goCall(t.Context(), s.Call, "m", nil)
	m.next(t)
	m.send(t, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	waitFor(t, call)
	mu.Lock()
	defer mu.Unlock()
	want := []string{`true {"jsonrpc":"2.0","id":1,"method":"m"}`, `false {"jsonrpc":"2.0","id":1,"result":{}}`}
	if diff := cmp.Diff(want, trace); diff != "" {
		t.Errorf("trace (-want +got):\n%s", diff)
	}
}

// lineLogger logs one line per record: "warning: MSG" for warnings, "MSG"
// for notices, the way mcpv's command line shows them without its prefix.
func lineLogger(w io.Writer) *slog.Logger {
	return slog.New(lineHandler{w})
}

type lineHandler struct{ w io.Writer }

func (h lineHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h lineHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h lineHandler) WithGroup(string) slog.Handler            { return h }
func (h lineHandler) Handle(_ context.Context, r slog.Record) error {
	prefix := ""
	if r.Level >= slog.LevelWarn {
		prefix = "warning: "
	}
	_, err := io.WriteString(h.w, prefix+r.Message+"\n")
	return err
}

// An answer that cannot be decoded ends its call at once, when its id can
// be read, instead of leaving the call to its timeout; one that cannot be
// tied to a call ends the only call waiting, and no other.
func TestSessionUndecodableAnswers(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name   string
		answer func(id string) string
		errHas string // "" means the answer is accepted
	}{
		{"a NUL inside a string", func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{"s":"a` + "\x00" + `b"}}` }, "invalid character"},
		{"an error code that is no integer", func(id string) string {
			return `{"jsonrpc":"2.0","error":{"code":"oops","message":"m"},"id":` + id + `}`
		}, "not a JSON-RPC error object"},
		{"an error that is no object", func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"error":"broken"}` }, "not a JSON-RPC error object"},
		{"nested too deep", func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"x":` + deep(maxDepth+1) + `}}`
		}, "exceeded max depth"},
		{"nested deep but within bounds", func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"x":` + deep(maxDepth-10) + `}}`
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, m := newTestSession(t, SessionOptions{})
			call := goCall(t.Context(), s.Call, "tools/call", nil)
			req := m.nextMsg(t)
			m.send(t, tt.answer(string(req.ID)))
			r := waitFor(t, call)
			if tt.errHas == "" {
				if r.err != nil {
					t.Fatalf("Call = %v", r.err)
				}
				return
			}
			var te *TransportError
			if !errors.As(r.err, &te) || !strings.Contains(r.err.Error(), "the server's answer cannot be read") || !strings.Contains(r.err.Error(), tt.errHas) {
				t.Errorf("Call = %v, want a TransportError saying %q", r.err, tt.errHas)
			}
			// The session goes on.
			again := goCall(t.Context(), s.Call, "ping", nil)
			req = m.nextMsg(t)
			m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{}}`)
			if r := waitFor(t, again); r.err != nil {
				t.Errorf("the next call: %v", r.err)
			}
		})
	}
	t.Run("no readable id", func(t *testing.T) {
		t.Parallel()
		s, m := newTestSession(t, SessionOptions{})
		call := goCall(t.Context(), s.Call, "tools/call", nil)
		m.nextMsg(t)
		m.send(t, `{"jsonrpc":"2.0","id":{"odd":1},"result":{"s":"`+"\x00"+`"}}`)
		r := waitFor(t, call)
		if !isTransportError(r.err) || !strings.Contains(r.err.Error(), "cannot be read or tied to a request") {
			t.Errorf("Call = %v", r.err)
		}
	})
	// A server's log line written as JSON is no answer: the call waiting
	// gets the answer that comes after it (@flink-app/mcp 1.0.0 writes
	// {"error":"Flink API MCP server started successfully"} at its start).
	t.Run("a whole object with neither id nor jsonrpc", func(t *testing.T) {
		t.Parallel()
		s, m := newTestSession(t, SessionOptions{})
		call := goCall(t.Context(), s.Call, "tools/call", nil)
		req := m.nextMsg(t)
		m.send(t, `{"error":"server started successfully"}`)
		m.send(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{}}`)
		if r := waitFor(t, call); r.err != nil {
			t.Errorf("Call = %v", r.err)
		}
	})
	// An error object that does not decode is an answer's, jsonrpc member
	// or not: the one call waiting fails at once.
	t.Run("an error object that does not decode, with neither id nor jsonrpc", func(t *testing.T) {
		t.Parallel()
		s, m := newTestSession(t, SessionOptions{})
		call := goCall(t.Context(), s.Call, "tools/call", nil)
		m.nextMsg(t)
		m.send(t, `{"error":{"code":"oops","message":"m"}}`)
		if r := waitFor(t, call); !isTransportError(r.err) || !strings.Contains(r.err.Error(), "cannot be read or tied to a request") {
			t.Errorf("Call = %v", r.err)
		}
	})
	t.Run("no readable id, several calls waiting", func(t *testing.T) {
		t.Parallel()
		s, m := newTestSession(t, SessionOptions{})
		first := goCall(t.Context(), s.Call, "tools/call", nil)
		second := goCall(t.Context(), s.Call, "tools/call", nil)
		a, b := m.nextMsg(t), m.nextMsg(t)
		m.send(t, `{"jsonrpc":"2.0","id":{"odd":1},"result":{"s":"`+"\x00"+`"}}`) // whose, none can say
		for _, w := range []wireMsg{a, b} {
			m.send(t, `{"jsonrpc":"2.0","id":`+string(w.ID)+`,"result":{}}`)
		}
		for _, ch := range []<-chan callResult{first, second} {
			if r := waitFor(t, ch); r.err != nil {
				t.Errorf("Call = %v: the session ended for a line no call can be tied to", r.err)
			}
		}
	})
}

// TestSessionInterleavedAnswers: a server whose writers interleave writes
// one answer into another; under load (many calls at once, answered in any
// order), the damaged answer fails its call alone, at once, whether its id
// is at its start or its end, and the answer written whole inside it, and
// every other, reaches its call.
func TestSessionInterleavedAnswers(t *testing.T) {
	t.Parallel()
	const n = 64
	s, m := newTestSession(t, SessionOptions{})
	calls := make([]<-chan callResult, n)
	for i := range calls {
		calls[i] = goCall(t.Context(), s.Call, "tools/call", json.RawMessage(`{"name":"x","i":`+strconv.Itoa(i)+`}`))
	}
	byID := map[string]int{} // which call each id is
	var ids []string
	for range n {
		w := m.nextMsg(t)
		var p struct{ I int }
		json.Unmarshal(w.Params, &p)
		ids = append(ids, string(w.ID))
		byID[string(w.ID)] = p.I
	}
	answer := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"answer ` + id + `"}]}}`
	}
	idLast := func(id string) string {
		return `{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"answer ` + id + `"}]},"id":` + id + `}`
	}
	split := func(line, at string) (string, string) {
		k := strings.Index(line, at) + len(at)/2
		return line[:k], line[k:]
	}
	damaged := map[string]bool{ids[10]: true, ids[40]: true}
	// ids[10]'s answer holds ids[11]'s whole, its id at its start; ids[40]'s
	// holds ids[41]'s and ids[42]'s, its id at its end.
	a1, a2 := split(answer(ids[10]), `"result"`)
	c1, c2 := split(idLast(ids[40]), `"content"`)
	var lines []string
	for i, id := range ids {
		switch i {
		case 10:
			lines = append(lines, a1+answer(ids[11]), a2)
		case 40:
			lines = append(lines, c1+answer(ids[41])+answer(ids[42]), c2)
		case 11, 41, 42:
		default:
			lines = append(lines, answer(id))
		}
	}
	for i := len(lines) - 1; i > 0; i-- { // answered in an order of their own, the damaged lines kept in theirs
		j := (i * 7) % (i + 1)
		if !strings.Contains(lines[i], "answer "+ids[10]) && !strings.Contains(lines[i], "answer "+ids[40]) &&
			!strings.Contains(lines[j], "answer "+ids[10]) && !strings.Contains(lines[j], "answer "+ids[40]) {
			lines[i], lines[j] = lines[j], lines[i]
		}
	}
	for _, l := range lines {
		m.send(t, l)
	}
	for id, i := range byID {
		r := waitFor(t, calls[i])
		if damaged[id] {
			if !isTransportError(r.err) || !strings.Contains(r.err.Error(), "cannot be read") {
				t.Errorf("call %s, its answer damaged: %s, %v; want a transport error", id, r.result, r.err)
			}
			continue
		}
		if r.err != nil || !strings.Contains(string(r.result), `"answer `+id+`"`) {
			t.Errorf("call %s: %s, %v", id, r.result, r.err)
		}
	}
}

// A JSON-RPC object nested in a damaged answer's result is no answer of
// its own: only a message that ends the line, or runs into another, is.
func TestSalvageLeavesNestedMessages(t *testing.T) {
	line := `{"jsonrpc":"2.0","id":3,"result":{"log":[{"jsonrpc":"2.0","id":4,"result":{}}],"s":"` + "\x00" + `"}}`
	whole, damaged := salvage([]byte(line))
	if len(whole) != 0 || len(damaged) != 1 {
		t.Errorf("salvage = %d whole, %d damaged; want the line damaged, nothing taken from inside it", len(whole), len(damaged))
	}
	for _, tail := range []string{`,"id":12}`, `"id": 12 }` + "\n", `x"}]},"id":12}`} {
		if got := string(trailingID([]byte(tail))); got != "12" {
			t.Errorf("trailingID(%q) = %q", tail, got)
		}
	}
	for _, tail := range []string{`{"id":12}]}`, `"id":"12"}`, `id:12}`, `"id":12`} {
		if got := trailingID([]byte(tail)); got != nil {
			t.Errorf("trailingID(%q) = %q, want none", tail, got)
		}
	}
}

// ReadGate runs before each read, with the size of what the read before
// returned, and the server's stream is not read while it waits.
func TestReadGate(t *testing.T) {
	t.Parallel()
	sizes := make(chan int, 8)
	release := make(chan struct{})
	s, m := newTestSession(t, SessionOptions{ReadGate: func(last int) {
		sizes <- last
		if last > 0 {
			<-release // held after every message
		}
	}})
	if got := waitFor(t, sizes); got != 0 {
		t.Errorf("before the first read: %d, want 0", got)
	}
	call := goCall(t.Context(), s.Call, "ping", nil)
	req := m.nextMsg(t)
	answer := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{}}`
	m.send(t, answer)
	if got := waitFor(t, sizes); got != len(answer) {
		t.Errorf("after the answer: %d, want %d", got, len(answer))
	}
	if r := waitFor(t, call); r.err != nil {
		t.Fatal(r.err)
	}
	select {
	case m.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`):
		t.Error("the stream was read while the gate held it")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	m.in <- []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
}
