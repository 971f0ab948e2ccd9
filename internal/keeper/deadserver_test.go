package keeper

import (
	"errors"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// errRefused is what an HTTP transport reports for a server that is gone.
var errRefused = &mcp.TransportError{Op: "POST http://127.0.0.1:1/mcp", Err: &net.OpError{Op: "dial", Net: "tcp",
	Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}}

// result is a call's outcome, for tests that wait on several.
type result struct {
	res string
	err error
}

func (c *command) goCall(method, params string) <-chan result {
	ch := make(chan result, 1)
	go func() { // ends when the call returns
		res, err := c.call(method, params)
		ch <- result{res, err}
	}()
	return ch
}

func await(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("a command through the session is still waiting")
		return result{}
	}
}

// A server that is gone fails every request through the session at once,
// with the transport's error (exit 4), and the keeper ends and says why.
func TestDeadServerFailsEveryCommand(t *testing.T) {
	dead := make(chan struct{})
	r := startKeeper(t, func(f *fakeServer, m wire) {
		select {
		case <-dead:
			if m.ID != nil && m.Method != "" {
				f.failRequest(m, errRefused)
			}
		default: // requests made while it lives hang
		}
	})
	a, b := r.attach(t), r.attach(t)
	first := a.goCall("tools/call", `{"name":"slow"}`)
	r.srv.waitFor(t, "tools/call")
	second := b.goCall("tools/call", `{"name":"slow"}`)
	m := r.srv.waitFor(t, "tools/call")
	close(dead)
	r.srv.failRequest(m, errRefused)

	for _, got := range []result{await(t, first), await(t, second)} {
		if !isTransport(got.err) || !strings.Contains(got.err.Error(), "connection refused") {
			t.Errorf("a waiting command: %v", got.err)
		}
	}
	if why := r.stopped(); !strings.HasPrefix(why, "the server stopped answering: ") || !strings.Contains(why, "connection refused") {
		t.Errorf("why: %q", why)
	}
	if _, err := r.tryAttach(t); !errors.As(err, new(*ErrNoSession)) {
		t.Errorf("a later command: %v", err)
	}
}

// A request that fails alone (an HTTP error) fails its command at once; a
// server that still answers keeps its session.
func TestFailedRequestKeepsLiveSession(t *testing.T) {
	r := startKeeper(t, func(f *fakeServer, m wire) {
		switch {
		case m.Method == "tools/call":
			f.failRequest(m, errors.New("POST http://127.0.0.1:1/mcp: 500 Internal Server Error"))
		case m.Method != "" && m.ID != nil:
			f.reply(m, `{}`)
		}
	})
	c := r.attach(t)
	got := await(t, c.goCall("tools/call", `{"name":"x"}`))
	if !isTransport(got.err) || !strings.Contains(got.err.Error(), "session s: POST http://127.0.0.1:1/mcp: 500 Internal Server Error") {
		t.Errorf("the failed call: %v", got.err)
	}
	r.srv.waitFor(t, "ping")
	if res, err := c.call("tools/list", `{}`); err != nil || res != `{}` {
		t.Errorf("the session afterwards: %s %v", res, err)
	}
}

// A command that attaches is handed the session's secrets, to mask them.
func TestAttachHandsSecrets(t *testing.T) {
	r := startKeeper(t, echo, func(k *Keeper) { k.AddSecret("sekrit-1", "", "sekrit-1") })
	r.k.AddSecret("token-2")
	tr, _, err := Attach(t.Context(), r.at(), r.name)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close(t.Context())
	if got := strings.Join(tr.Secrets(), ","); got != "sekrit-1,token-2" {
		t.Errorf("secrets: %q", got)
	}
}

// A request the server (or a gateway before it) answers with an HTTP
// error fails that request alone: the server is there, though it refuses
// for now, and every other command's request stays in flight.
func TestHTTPErrorKeepsSession(t *testing.T) {
	var limited atomic.Bool
	r := startKeeper(t, func(f *fakeServer, m wire) {
		switch {
		case m.ID == nil || m.Method == "":
		case m.Method == "tools/call":
			// the long call: the test answers it
		case limited.Load():
			f.failRequest(m, &mcp.TransportError{Op: "POST", Err: &mcp.StatusError{Status: 429, Text: "429 Too Many Requests", URL: "http://127.0.0.1:1/mcp"}})
		default:
			f.reply(m, `{}`)
		}
	})
	a, b := r.attach(t), r.attach(t)
	long := a.goCall("tools/call", `{"name":"long"}`)
	call := r.srv.waitFor(t, "tools/call")
	limited.Store(true)
	var se *mcp.StatusError
	if _, err := b.call("tools/list", `{}`); !isTransport(err) || !strings.Contains(err.Error(), "HTTP 429 Too Many Requests") || !errors.As(err, &se) || se.Status != 429 {
		t.Errorf("the refused request: %v", err)
	}
	limited.Store(false)
	if res, err := b.call("tools/list", `{}`); err != nil || res != `{}` {
		t.Errorf("the session afterwards: %s %v", res, err)
	}
	r.srv.reply(call, `{"long":true}`)
	if got := await(t, long); got.err != nil || got.res != `{"long":true}` {
		t.Errorf("another command's call in flight: %s %v", got.res, got.err)
	}
}

// A keeper that waits for its server to answer a ping still stops at once
// when asked to.
func TestStopDuringProbe(t *testing.T) {
	r := startKeeper(t, func(f *fakeServer, m wire) {
		if m.Method == "tools/call" {
			f.failRequest(m, &mcp.TransportError{Op: "POST", Err: errors.New("unexpected EOF")})
		}
		// the ping is never answered
	})
	c := r.attach(t)
	if _, err := c.call("tools/call", `{"name":"x"}`); !isTransport(err) {
		t.Errorf("the failed call: %v", err)
	}
	r.srv.waitFor(t, "ping")
	if err := Stop(r.at(), r.name, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if why := r.stopped(); why != "the session was stopped" {
		t.Errorf("why: %q", why)
	}
}

// A failure of the server's side keeps its kind through the session, as
// a command's exit code depends on it: a request refused for want of
// credentials, and a session that ended so, are an *mcp.AuthError (exit 5)
// for the command, with the keeper's words.
func TestFailureKindCrossesSocket(t *testing.T) {
	denied := &mcp.AuthError{Status: 401, URL: "http://127.0.0.1:1/mcp", Challenge: []string{`Bearer realm="x"`}}
	r := startKeeper(t, func(f *fakeServer, m wire) {
		if m.Method == "tools/list" {
			f.failRequest(m, &mcp.TransportError{Op: "POST", Err: denied})
		}
	})
	c := r.attach(t)
	var ae *mcp.AuthError
	_, err := c.call("tools/list", `{}`)
	if !isTransport(err) || !errors.As(err, &ae) || ae.Challenge[0] != denied.Challenge[0] || ae.Status != 401 || !strings.Contains(err.Error(), "session s: POST: the server requires authorization (HTTP 401 from http://127.0.0.1:1/mcp)") {
		t.Errorf("the refused request: %v", err)
	}
	pending := c.goCall("tools/call", `{"name":"slow"}`)
	r.srv.waitFor(t, "tools/call")
	r.srv.die(&mcp.TransportError{Op: "GET", Err: denied})
	if got := await(t, pending); !isTransport(got.err) || !errors.As(got.err, &ae) || !strings.Contains(got.err.Error(), "session s: the server's session ended: GET: the server requires authorization") {
		t.Errorf("the waiting command: %v", got.err)
	}
}
