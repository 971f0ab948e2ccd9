package keeper

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// A question the server asks while one command's request is in flight is
// that command's to answer; with two commands waiting, the session's own
// answer is given.
func TestServerQuestionGoesToBusyCommand(t *testing.T) {
	r := startKeeper(t, nil)
	accept := func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"accept","asked":` + string(params) + `}`), nil
	}
	a, err := r.attachWith(t, accept)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.attachWith(t, accept)
	if err != nil {
		t.Fatal(err)
	}
	a.goCall("tools/call", `{"name":"ask"}`)
	callA := r.srv.waitFor(t, "tools/call")
	r.srv.send(`{"jsonrpc":"2.0","id":"q1","method":"elicitation/create","params":{"message":"who?"}}`)
	if got := r.srv.waitFor(t, ""); string(got.ID) != `"q1"` || string(got.Result) != `{"action":"accept","asked":{"message":"who?"}}` {
		t.Errorf("the answer: %s", got.raw)
	}
	r.srv.send(`{"jsonrpc":"2.0","id":"q2","method":"roots/list"}`)
	if got := r.srv.waitFor(t, ""); string(got.ID) != `"q2"` || !strings.Contains(string(got.Error), "-32601") {
		t.Errorf("roots are the session's: %s", got.raw)
	}
	b.goCall("tools/call", `{"name":"ask"}`)
	callB := r.srv.waitFor(t, "tools/call")
	r.srv.send(`{"jsonrpc":"2.0","id":"q3","method":"sampling/createMessage","params":{}}`)
	if got := r.srv.waitFor(t, ""); string(got.ID) != `"q3"` || !strings.Contains(string(got.Error), "-32601") {
		t.Errorf("with two commands waiting: %s", got.raw)
	}
	r.srv.reply(callA, `{}`)
	r.srv.reply(callB, `{}`)
}

// A command that leaves while the server's question waits for it leaves
// the question to the session's answer.
func TestQuestionOfACommandThatLeft(t *testing.T) {
	asked := make(chan struct{})
	r := startKeeper(t, nil)
	a, err := r.attachWith(t, func(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
		close(asked)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	a.goCall("tools/call", `{"name":"ask"}`)
	r.srv.waitFor(t, "tools/call")
	r.srv.send(`{"jsonrpc":"2.0","id":"q1","method":"elicitation/create","params":{"message":"who?"}}`)
	<-asked
	a.client.Close(context.Background())
	var answered, cancelled bool
	for !answered || !cancelled { // in either order
		switch m := r.srv.next(t); {
		case string(m.ID) == `"q1"`:
			answered = true
			if !strings.Contains(string(m.Error), "-32601") {
				t.Errorf("the answer: %s", m.raw)
			}
		case m.Method == "notifications/cancelled":
			cancelled = true // the command's call, on the wire
		}
	}
}

// What passes through: a command's cancellation reaches the server for
// the keeper's own id; a command's notification is forwarded (not its
// notifications/initialized); an error answer comes back as it was sent;
// a large result comes back whole.
func TestRelay(t *testing.T) {
	big := strings.Repeat("x", bigMessage+1)
	r := startKeeper(t, func(f *fakeServer, m wire) {
		switch m.Method {
		case "tools/list":
			f.send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32602,"message":"no such cursor","data":{"cursor":"c"}}}`)
		case "resources/read":
			f.reply(m, `{"text":"`+big+`"}`)
		}
	})
	c := r.attach(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := c.client.Call(ctx, "tools/call", json.RawMessage(`{"name":"slow"}`)); done <- err }()
	call := r.srv.waitFor(t, "tools/call")
	cancel()
	if m := r.srv.waitFor(t, "notifications/cancelled"); !strings.Contains(string(m.Params), `"requestId":`+string(call.ID)) {
		t.Errorf("cancelled: %s, the call was %s", m.raw, call.ID)
	}
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call: %v", err)
	}

	c.client.Notify(context.Background(), "notifications/initialized", nil)
	c.client.Notify(context.Background(), "notifications/roots/list_changed", nil)
	for _, m := range r.srv.until(t, "notifications/roots/list_changed") { // in order, if at all
		if m.Method == "notifications/initialized" {
			t.Errorf("the command's notifications/initialized reached the server: %s", m.raw)
		}
	}

	_, err := c.call("tools/list", `{"cursor":"c"}`)
	var ce *mcp.CallError
	if !errors.As(err, &ce) || ce.Err.Code != -32602 || ce.Err.Message != "no such cursor" || string(ce.Err.Data) != `{"cursor":"c"}` {
		t.Errorf("the error: %v", err)
	}
	res, err := c.call("resources/read", `{"uri":"big"}`)
	if err != nil || len(res) != len(big)+len(`{"text":""}`) {
		t.Errorf("the large result: %d bytes, %v", len(res), err)
	}
}

// session stop ends the session in order; list and status show it while
// it runs.
func TestStopStatusNames(t *testing.T) {
	r := startKeeper(t, echo)
	c := r.attach(t)
	if names, err := Names(r.dir); err != nil || !slices.Equal(names, []string{"s"}) {
		t.Errorf("names: %v %v", names, err)
	}
	info, err := Status(r.at(), r.name)
	if err != nil || info.Name != "s" || info.State != "ready" || info.Clients != 1 || info.Idle != "0s" {
		t.Errorf("status: %+v %v", info, err)
	}
	if err := Stop(r.at(), r.name, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if why := r.stopped(); why != "the session was stopped" {
		t.Errorf("why: %q", why)
	}
	if _, err := c.call("ping", `{}`); !isTransport(err) || !strings.Contains(err.Error(), "session s: the session was stopped") {
		t.Errorf("a command attached: %v", err)
	}
	if names, _ := Names(r.dir); len(names) != 0 {
		t.Errorf("names after stop: %v", names)
	}
	var none *ErrNoSession
	if _, err := Status(r.at(), r.name); !errors.As(err, &none) || !strings.Contains(err.Error(), "start it with 'mcpv session start s ...'") {
		t.Errorf("status after stop: %v", err)
	}
	if err := Stop(r.at(), r.name, 30*time.Second); !errors.As(err, &none) {
		t.Errorf("stop after stop: %v", err)
	}
}

// A command whose request goes out as the session is stopped is told the
// session was stopped, not that its write met a broken pipe: the
// keeper's last line is still unread when the write fails (here it is
// read only once the write has begun).
func TestWriteAfterStopSaysWhy(t *testing.T) {
	r := startKeeper(t, echo)
	tr, _, err := Attach(context.Background(), r.at(), r.name)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close(context.Background())
	if err := Stop(r.at(), r.name, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	go func() { wrote <- tr.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)) }() // ends within endWait
	_, rerr := tr.Read()
	werr := <-wrote
	if !isTransport(werr) || werr.Error() != "session s: the session was stopped" || rerr == nil || werr.Error() != rerr.Error() {
		t.Errorf("the write: %v; the read: %v", werr, rerr)
	}
}

// A server that ends its side ends the session: a command waiting is told
// why, with the server's error.
func TestServerEndEndsSession(t *testing.T) {
	r := startKeeper(t, nil)
	c := r.attach(t)
	pending := c.goCall("tools/call", `{"name":"slow"}`)
	r.srv.waitFor(t, "tools/call")
	r.srv.die(&mcp.TransportError{Op: "read", Err: errors.New("the server crashed")})
	if got := await(t, pending); !isTransport(got.err) || !strings.Contains(got.err.Error(), "session s: the server's session ended: read: the server crashed") {
		t.Errorf("the waiting command: %v", got.err)
	}
	if why := r.stopped(); why != "the server's session ended: read: the server crashed" {
		t.Errorf("why: %q", why)
	}
}

// The idle countdown waits for Held: a session start slow to let its
// session go, on a loaded machine, does not find it ended by an idle limit
// that ran while it was still starting. Once Held is closed, the session
// ends after the limit without commands, and a command's end starts the
// limit again only then.
func TestIdleCountsOnceHeldIsLetGo(t *testing.T) {
	t.Parallel()
	held := make(chan struct{})
	const idle = 50 * time.Millisecond
	r := startKeeperIdle(t, testState, idle, echo, func(k *Keeper) { k.Held = held })
	c := r.attach(t)
	if _, err := c.call("ping", `{}`); err != nil {
		t.Fatal(err)
	}
	c.client.Close(context.Background()) // a command came and went while held
	time.Sleep(10 * idle)                // more than the limit, held: nothing ends
	select {
	case why := <-r.why:
		r.why <- why // for the cleanup
		t.Fatalf("the session ended while held: %s", why)
	default:
	}
	close(held)
	if why := r.stoppedFor(t, "after its idle limit once let go"); !strings.Contains(why, "without commands") {
		t.Errorf("why: %q", why)
	}
}
