package keeper

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// Keeper serves one open session to the commands that attach.
type Keeper struct {
	Client *mcp.Client // the session, open
	Info   Info
	Log    *slog.Logger

	ln    net.Listener
	paths Paths

	mu       sync.Mutex
	conns    map[*conn]bool
	tokens   map[string]route // our progress token -> the command's
	lastUsed time.Time
	stopping bool
	idle     *time.Timer

	nextToken atomic.Int64
	stopReq   chan *conn // a command asked to stop
	idleOver  chan struct{}
}

// route is where a progress token leads back to.
type route struct {
	c     *conn
	token json.RawMessage
}

// Listen makes the keeper's socket (mode 0600) in dir. A socket no keeper
// answers on is removed first; a live one is an error.
func Listen(dir, name string) (net.Listener, Paths, error) {
	p := PathsOf(dir, name)
	if c, err := net.DialTimeout("unix", p.Socket, time.Second); err == nil {
		c.Close()
		return nil, p, fmt.Errorf("session %q is already running", name)
	}
	cleanStale(p)
	old := umask(0o177)
	ln, err := net.Listen("unix", p.Socket)
	umask(old)
	if err != nil {
		return nil, p, err
	}
	if err := os.Chmod(p.Socket, 0o600); err != nil {
		ln.Close()
		return nil, p, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return ln, p, nil
}

// Serve answers commands on ln until the session ends, the keeper is asked
// to stop (a command, SIGTERM through ctx), or no command attaches for
// idle (0: never). It writes Info to the info file while it runs and
// removes its files when it returns, with the reason it stopped.
func (k *Keeper) Serve(ctx context.Context, ln net.Listener, paths Paths, idle time.Duration) string {
	k.ln, k.paths = ln, paths
	k.conns = map[*conn]bool{}
	k.tokens = map[string]route{}
	k.stopReq = make(chan *conn, 1)
	k.idleOver = make(chan struct{}, 1)
	k.lastUsed = time.Now()
	k.Info.State = "ready"
	k.Info.Idle = idle.String()
	if idle > 0 {
		k.idle = time.AfterFunc(idle, func() { k.idleOver <- struct{}{} })
	}
	k.writeInfo()
	defer os.Remove(paths.Info)
	go k.accept(idle)

	var why string
	var stopper *conn
	select {
	case <-k.Client.Done():
		why = describeEnd(k.Client.Err())
	case <-ctx.Done():
		why = "the session keeper was stopped"
	case stopper = <-k.stopReq:
		why = "the session was stopped"
	case <-k.idleOver:
		why = fmt.Sprintf("the session ended after %v without commands", idle)
	}
	k.mu.Lock()
	k.stopping = true
	conns := make([]*conn, 0, len(k.conns))
	for c := range k.conns {
		conns = append(conns, c)
	}
	k.mu.Unlock()
	ln.Close() // removes the socket: no new command attaches
	for _, c := range conns {
		c.close(why)
	}
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	k.Client.Close(cctx) // as a one-shot command closes: stdin, signals; an HTTP DELETE
	cancel()
	if stopper != nil {
		t := true
		stopper.writeControl(control{Stopped: &t})
		stopper.c.Close()
	}
	return why
}

// describeEnd says why the server's side ended, with its stderr tail.
func describeEnd(err error) string {
	if err == nil {
		return "the server closed the session"
	}
	return "the server's session ended: " + err.Error()
}

func (k *Keeper) accept(idle time.Duration) {
	for {
		c, err := k.ln.Accept()
		if err != nil {
			return
		}
		if err := checkPeer(c); err != nil {
			k.Log.Warn(fmt.Sprintf("refused a connection: %v", err))
			c.Close()
			continue
		}
		go k.serveConn(c, idle)
	}
}

func (k *Keeper) writeInfo() {
	k.mu.Lock()
	info := k.Info
	info.LastUsed = k.lastUsed
	info.Clients = len(k.conns)
	if k.stopping {
		info.State = "stopping"
	}
	k.mu.Unlock()
	b, _ := json.Marshal(info)
	tmp := k.paths.Info + ".tmp"
	if os.WriteFile(tmp, append(b, '\n'), 0o600) == nil {
		os.Rename(tmp, k.paths.Info)
	}
}

// status is Info as it is now.
func (k *Keeper) status() Info {
	k.mu.Lock()
	defer k.mu.Unlock()
	info := k.Info
	info.LastUsed = k.lastUsed
	info.Clients = len(k.conns)
	if k.stopping {
		info.State = "stopping"
	}
	return info
}

// conn is one attached command.
type conn struct {
	k   *Keeper
	c   net.Conn
	wmu sync.Mutex

	mu       sync.Mutex
	inflight map[string]context.CancelFunc // the command's request ids
	asked    map[string]chan *answer       // our requests to the command
	nextID   int64
	done     chan struct{}
	doneOnce sync.Once
}

func (k *Keeper) serveConn(nc net.Conn, idle time.Duration) {
	r := bufio.NewReaderSize(nc, 64<<10)
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	first, err := readControl(r)
	nc.SetReadDeadline(time.Time{})
	if err != nil {
		nc.Close()
		return
	}
	c := &conn{k: k, c: nc, inflight: map[string]context.CancelFunc{}, asked: map[string]chan *answer{}, done: make(chan struct{})}
	switch {
	case first.Status != nil:
		info := k.status()
		c.writeControl(control{Info: &info})
		nc.Close()
		return
	case first.Stop != nil:
		select {
		case k.stopReq <- c:
		default:
			nc.Close() // a stop is under way already; the socket goes with it
		}
		return
	case first.Attach == nil:
		nc.Close()
		return
	}
	k.mu.Lock()
	if k.stopping {
		k.mu.Unlock()
		nc.Close()
		return
	}
	k.conns[c] = true
	k.lastUsed = time.Now()
	if k.idle != nil {
		k.idle.Stop()
	}
	k.mu.Unlock()
	info := k.status()
	c.writeControl(control{Hello: &hello{Info: info, State: k.Client.State()}})
	defer k.detach(c, idle)
	for {
		line, err := readLine(r)
		if err != nil {
			return
		}
		var env envelope
		if json.Unmarshal(line, &env) != nil || len(env.Msg) == 0 {
			continue
		}
		c.handle(env)
	}
}

// detach forgets a command that left: what it asked is cancelled.
func (k *Keeper) detach(c *conn, idle time.Duration) {
	c.doneOnce.Do(func() { close(c.done) })
	c.mu.Lock()
	for _, cancel := range c.inflight {
		cancel()
	}
	c.mu.Unlock()
	c.c.Close()
	k.mu.Lock()
	delete(k.conns, c)
	k.lastUsed = time.Now()
	if len(k.conns) == 0 && k.idle != nil && !k.stopping {
		k.idle.Reset(idle)
	}
	k.mu.Unlock()
	k.writeInfo()
}

// answer is a command's answer to a server request.
type answer struct {
	Result json.RawMessage
	Error  *mcp.RPCError
}

// rpc is the part of a JSON-RPC message the keeper looks at.
type rpc struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func (c *conn) handle(env envelope) {
	var m rpc
	if json.Unmarshal(env.Msg, &m) != nil {
		return
	}
	switch {
	case m.Method != "" && m.ID != nil:
		ctx, cancel := context.WithCancel(context.Background())
		if len(env.Headers) > 0 {
			ctx = mcp.WithParamHeaders(ctx, env.Headers)
		}
		id := string(m.ID)
		c.mu.Lock()
		c.inflight[id] = cancel
		c.mu.Unlock()
		go c.relay(ctx, cancel, m)
	case m.Method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		json.Unmarshal(m.Params, &p)
		c.mu.Lock()
		cancel := c.inflight[string(p.RequestID)]
		c.mu.Unlock()
		if cancel != nil {
			cancel() // the session cancels its own request on the wire
		}
	case m.Method != "":
		if m.Method != "notifications/initialized" {
			c.k.Client.ForwardNotification(context.Background(), m.Method, m.Params)
		}
	case m.ID != nil:
		c.mu.Lock()
		ch := c.asked[string(m.ID)]
		delete(c.asked, string(m.ID))
		c.mu.Unlock()
		if ch != nil {
			msg := &answer{Result: m.Result}
			if m.Error != nil {
				var e mcp.RPCError
				if json.Unmarshal(m.Error, &e) == nil {
					msg.Error = &e
				}
			}
			ch <- msg
		}
	}
}

// relay sends a command's request to the server and its answer back.
func (c *conn) relay(ctx context.Context, cancel context.CancelFunc, m rpc) {
	defer cancel()
	params := m.Params
	var ours string
	if tok := mcp.ProgressToken(params); tok != nil {
		ours = strconv.Quote("k" + strconv.FormatInt(c.k.nextToken.Add(1), 10))
		if p, err := mcp.SetProgressToken(params, json.RawMessage(ours)); err == nil {
			params = p
			c.k.mu.Lock()
			c.k.tokens[ours] = route{c, tok}
			c.k.mu.Unlock()
		}
	}
	res, err := c.k.Client.Forward(ctx, m.Method, params)
	if ours != "" {
		c.k.mu.Lock()
		delete(c.k.tokens, ours)
		c.k.mu.Unlock()
	}
	c.mu.Lock()
	delete(c.inflight, string(m.ID))
	c.mu.Unlock()
	c.k.mu.Lock()
	c.k.lastUsed = time.Now()
	c.k.mu.Unlock()
	var ce *mcp.CallError
	switch {
	case err == nil:
		c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, res))
	case errors.As(err, &ce):
		e, _ := json.Marshal(ce.Err)
		c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, m.ID, e))
	case ctx.Err() != nil:
		// The command cancelled it, or left: nobody waits for an answer.
	default:
		// The session itself failed: Serve tells every command why.
	}
}

func (c *conn) write(b []byte) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.c.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.c.Write(append(b, '\n')); err != nil {
		c.c.Close() // a command that does not read is dropped
	}
}

func (c *conn) writeControl(ctl control) {
	b, _ := json.Marshal(ctl)
	c.write(b)
}

// close tells the command why the session ended and lets it go.
func (c *conn) close(why string) {
	c.writeControl(control{Closed: &why})
	c.c.Close()
}

// Notify passes a server notification to the commands: progress to the
// command whose request it reports on, the rest to every command.
func (k *Keeper) Notify(method string, params json.RawMessage) {
	if method == "notifications/progress" {
		k.mu.Lock()
		r, ok := k.tokens[string(mcp.NotifiedToken(params))]
		k.mu.Unlock()
		if !ok {
			return
		}
		b, err := mcp.Retoken(params, r.token)
		if err != nil {
			return
		}
		r.c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q,"params":%s}`, method, b))
		return
	}
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q}`, method)
	if len(params) > 0 {
		msg = fmt.Appendf(nil, `{"jsonrpc":"2.0","method":%q,"params":%s}`, method, params)
	}
	k.mu.Lock()
	conns := make([]*conn, 0, len(k.conns))
	for c := range k.conns {
		conns = append(conns, c)
	}
	k.mu.Unlock()
	for _, c := range conns {
		c.write(msg)
	}
}

// Route hands a server request to the command it belongs to: the one
// command with a request in flight. With none, or several, it is left to
// the session's own answers (its flags at session start).
func (k *Keeper) Route(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, bool, error) {
	if method != "elicitation/create" && method != "sampling/createMessage" {
		return nil, false, nil // roots are the session's
	}
	k.mu.Lock()
	var busy []*conn
	for c := range k.conns {
		c.mu.Lock()
		if len(c.inflight) > 0 {
			busy = append(busy, c)
		}
		c.mu.Unlock()
	}
	k.mu.Unlock()
	if len(busy) != 1 {
		return nil, false, nil
	}
	return busy[0].ask(ctx, method, params)
}

// ask sends a server request to the command and waits for its answer.
func (c *conn) ask(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, bool, error) {
	ch := make(chan *answer, 1)
	c.mu.Lock()
	c.nextID++
	id := strconv.Quote("keeper-" + strconv.FormatInt(c.nextID, 10))
	c.asked[id] = ch
	c.mu.Unlock()
	if len(params) == 0 {
		params = json.RawMessage(`{}`)
	}
	c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params))
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, true, m.Error
		}
		return m.Result, true, nil
	case <-c.done:
		return nil, false, nil // the command left: the session's answer
	case <-ctx.Done():
		c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s}}`, id))
		return nil, true, context.Cause(ctx)
	}
}
