package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// fakeServer is the server behind a keeper under test: an mcp.Transport
// whose answers the test gives. Every message the keeper's session writes
// is handed to handle (on the writer's goroutine) and kept in seen.
type fakeServer struct {
	handle func(f *fakeServer, m wire)
	out    chan readItem // what Read returns next
	seen   chan wire     // every message written, for the test to watch
	closed chan struct{}
	once   sync.Once
}

type readItem struct {
	data []byte
	err  error
}

// wire is a message as the fake server sees it.
type wire struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	raw    []byte
}

func newFakeServer(handle func(f *fakeServer, m wire)) *fakeServer {
	return &fakeServer{handle: handle, out: make(chan readItem, 1024), seen: make(chan wire, 1<<16), closed: make(chan struct{})}
}

func (f *fakeServer) Read() ([]byte, error) {
	select {
	case it := <-f.out:
		return it.data, it.err
	case <-f.closed:
		return nil, io.EOF
	}
}

func (f *fakeServer) Write(_ context.Context, msg []byte) error {
	var m wire
	if err := json.Unmarshal(msg, &m); err != nil {
		return err
	}
	m.raw = append([]byte(nil), msg...)
	select {
	case f.seen <- m:
	default:
	}
	if f.handle != nil {
		f.handle(f, m)
	}
	return nil
}

func (f *fakeServer) Close(context.Context) error {
	f.once.Do(func() { close(f.closed) })
	return nil
}

// send makes the server send msg.
func (f *fakeServer) send(msg string) { f.out <- readItem{data: []byte(msg)} }

// reply answers request m with result.
func (f *fakeServer) reply(m wire, result string) {
	f.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`)
}

// failRequest fails request m as an HTTP transport fails one request.
func (f *fakeServer) failRequest(m wire, err error) {
	f.out <- readItem{err: &mcp.RequestError{ID: m.ID, Err: err}}
}

// die ends the connection as a dead server does.
func (f *fakeServer) die(err error) { f.out <- readItem{err: err} }

// next returns the next message the server gets.
func (f *fakeServer) next(t *testing.T) wire {
	t.Helper()
	select {
	case m := <-f.seen:
		return m
	case <-time.After(30 * time.Second):
		t.Fatal("the server got no more messages")
		return wire{}
	}
}

// until returns the messages the server gets up to the next with method,
// that one last.
func (f *fakeServer) until(t *testing.T, method string) []wire {
	t.Helper()
	var got []wire
	for {
		m := f.next(t)
		got = append(got, m)
		if m.Method == method {
			return got
		}
	}
}

// waitFor returns the next message the server gets with method.
func (f *fakeServer) waitFor(t *testing.T, method string) wire {
	t.Helper()
	got := f.until(t, method)
	return got[len(got)-1]
}

// echo answers every request with its params, and ping with {}.
func echo(f *fakeServer, m wire) {
	if m.Method != "" && m.ID != nil {
		res := string(m.Params)
		if res == "" {
			res = "{}"
		}
		f.reply(m, res)
	}
}

// running is a keeper serving a fake server in a temporary directory.
type running struct {
	k      *Keeper
	srv    *fakeServer
	dir    string
	name   string
	ln     *Listener
	cancel context.CancelFunc
	why    chan string // Serve's answer, once it returns
	logs   chan string // what the keeper logs, line by line
}

// at is the session directory, its own root.
func (r *running) at() Dir { return Dir{Path: r.dir, Root: r.dir} }

// logLines hands each write to a channel, dropping what does not fit.
type logLines chan string

func (l logLines) Write(p []byte) (int, error) {
	select {
	case l <- string(p):
	default:
	}
	return len(p), nil
}

// waitLog returns the first line the keeper logs that contains text.
func (r *running) waitLog(t *testing.T, text string) string {
	t.Helper()
	for {
		select {
		case line := <-r.logs:
			if strings.Contains(line, text) {
				return line
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the keeper never logged %q", text)
		}
	}
}

const testState = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"fake","version":"1"}}`

// startKeeper serves a fake server that answers with handle.
func startKeeper(t *testing.T, handle func(f *fakeServer, m wire), tune ...func(*Keeper)) *running {
	t.Helper()
	return startKeeperOf(t, testState, handle, tune...)
}

// startKeeperOf is startKeeper with the server's initialize result.
func startKeeperOf(t *testing.T, state string, handle func(f *fakeServer, m wire), tune ...func(*Keeper)) *running {
	t.Helper()
	return startKeeperIdle(t, state, 0, handle, tune...)
}

// startKeeperIdle is startKeeperOf with the session's idle limit.
func startKeeperIdle(t *testing.T, state string, idle time.Duration, handle func(f *fakeServer, m wire), tune ...func(*Keeper)) *running {
	t.Helper()
	r := &running{srv: newFakeServer(handle), dir: t.TempDir(), name: "s", why: make(chan string, 1), logs: make(chan string, 1024)}
	r.k = &Keeper{Log: slog.New(slog.NewTextHandler(logLines(r.logs), nil)), Info: Info{Name: r.name}}
	for _, fn := range tune {
		fn(r.k)
	}
	sess := mcp.NewSession(r.srv, mcp.SessionOptions{
		OnNotification: r.k.Notify,
		ReadGate:       r.k.ReadGate,
		Handler: func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
			if res, ok, err := r.k.Route(ctx, method, params); ok {
				return res, err
			}
			return nil, &mcp.RPCError{Code: -32601, Message: "method not found"}
		},
	})
	r.k.Client = mcp.Attach(sess, mcp.ClientOptions{}, mcp.State{Version: "2025-11-25", InitializeResult: initOf(state)})
	var err error
	if r.ln, err = Listen(r.dir, r.name); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.why <- r.k.Serve(ctx, r.ln, idle) }() // stops when ctx is cancelled
	t.Cleanup(func() {
		cancel()
		<-r.why
	})
	if _, err := Status(r.at(), r.name); err != nil { // it serves
		t.Fatal(err)
	}
	return r
}

// stopped waits for Serve to return and gives its reason.
func (r *running) stopped() string {
	why := <-r.why
	r.why <- why // for the cleanup
	return why
}

// stoppedFor waits for Serve to return, for what (a hang guard of 30 s
// fails the test), and gives its reason.
func (r *running) stoppedFor(t *testing.T, what string) string {
	t.Helper()
	select {
	case why := <-r.why:
		r.why <- why // for the cleanup
		return why
	case <-time.After(30 * time.Second):
		t.Fatalf("the keeper did not end %s", what)
		return ""
	}
}

// command is a command attached to the keeper, as commands attach.
type command struct {
	client *mcp.Client
	notes  chan string // the notifications the command got, as method+params
}

func (r *running) attach(t *testing.T) *command {
	t.Helper()
	c, err := r.tryAttach(t)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (r *running) tryAttach(t *testing.T) (*command, error) {
	return r.attachWith(t, nil)
}

// attachWith attaches a command that answers the server's requests with
// handler (nil: method not found).
func (r *running) attachWith(t *testing.T, handler mcp.RequestHandler) (*command, error) {
	tr, st, err := Attach(context.Background(), r.at(), r.name)
	if err != nil {
		return nil, err
	}
	cmd := &command{notes: make(chan string, 1<<16)}
	// As connect.Attach opens it: a question it leaves is the keeper's.
	sess := mcp.NewSession(tr, mcp.SessionOptions{Handler: handler, LeaveQuestions: true, OnNotification: func(method string, params json.RawMessage) {
		cmd.notes <- method + " " + string(params)
	}})
	cmd.client = mcp.Attach(sess, mcp.ClientOptions{}, st)
	t.Cleanup(func() { cmd.client.Close(context.Background()) })
	return cmd, nil
}

func (c *command) call(method, params string) (string, error) {
	res, err := c.client.Call(context.Background(), method, json.RawMessage(params))
	return string(res), err
}

func isTransport(err error) bool {
	var te *mcp.TransportError
	return errors.As(err, &te)
}
