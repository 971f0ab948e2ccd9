package keeper

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/listcache"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/subscription"
	"github.com/mcpv/mcpv/mcp"
)

// Keeper serves one open session to the commands that attach.
type Keeper struct {
	Client *mcp.Client // the session, open
	Info   Info
	Log    *slog.Logger
	// Answers are handed to each command as they are: the session's
	// answers to server requests, which the command uses for those that
	// come to it (the keeper does not read them).
	Answers json.RawMessage
	// HoldLarge is how long a large result its command does not read
	// holds the server back (see largeResults); 0 means two seconds.
	HoldLarge time.Duration
	// CheckEvery is how often the keeper checks that its socket file is
	// still there; 0 means every second.
	CheckEvery time.Duration
	// Held, when not nil, holds the idle countdown back until it is
	// closed: the session start that opened the session has let it go,
	// however long that took on a loaded machine.
	Held <-chan struct{}
	// handoff is handoffWait, but in tests that must not see it run out.
	handoff time.Duration

	ln *Listener

	mu      sync.Mutex // guards secrets and conns
	secrets []string
	conns   map[*conn]bool

	subs     subscription.Shared[*conn] // the session's resources/subscribe, by command
	tokens   mcp.Tokens[*conn]          // our progress tokens -> the command's
	lists    listcache.Cache            // the server's lists, for the commands that list
	large    largeResults               // results over bigMessage waiting for their commands
	lastUsed time.Time
	stopping bool
	idle     *time.Timer // nil while Held holds the countdown back

	// infoMu guards infoGone and the info file: a command's end writes
	// it from its own goroutine, which may outlive Serve.
	infoMu   sync.Mutex
	infoGone bool // Serve removed the info file: nothing writes it again

	freeing  atomic.Bool // a release is under way
	stopReq  chan *conn  // a command asked to stop
	idleOver chan struct{}
	broken   chan error // a request failed on its way to the server
}

// Listener is a keeper's socket, with the lock that makes its keeper the
// only one of its name.
type Listener struct {
	net.Listener
	Paths Paths
	lock  *os.File
	made  os.FileInfo // the socket as made: one removed or replaced ends the keeper
}

// Listen takes the lock of session name in dir and makes its socket (mode
// 0600). A second keeper of the name is refused while the first holds the
// lock, even when the first's socket is gone; a socket no keeper holds is
// a dead one's, removed first.
func Listen(dir, name string) (*Listener, error) {
	p, err := PathsOf(dir, name)
	if err != nil {
		return nil, err
	}
	lk, err := lock(p.Lock)
	if errors.Is(err, errHeld) {
		return nil, fmt.Errorf("session %q is already running", name)
	}
	if err != nil {
		return nil, err
	}
	os.Remove(p.Socket)
	os.Remove(p.Info)
	old := umask(0o177)
	ln, err := net.Listen("unix", p.Socket)
	umask(old)
	if err == nil {
		err = os.Chmod(p.Socket, 0o600)
	}
	var made os.FileInfo
	if err == nil {
		made, err = os.Lstat(p.Socket)
	}
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		unlock(lk)
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return &Listener{Listener: ln, Paths: p, lock: lk, made: made}, nil
}

// Release closes the socket and releases the lock: the name is free.
func (l *Listener) Release() {
	l.Close()
	unlock(l.lock)
}

// removed says whether the socket file is gone or is not the one made.
func (l *Listener) removed() bool {
	fi, err := os.Lstat(l.Paths.Socket)
	return err != nil || !os.SameFile(fi, l.made)
}

// checkEvery is how often a keeper looks for its socket file.
const checkEvery = time.Second

// countIdle sets the idle countdown, running unless a command is
// attached (attach stops it, the last detach starts it again); k.mu is
// held.
func (k *Keeper) countIdle(idle time.Duration) {
	k.idle = time.AfterFunc(idle, func() { k.idleOver <- struct{}{} })
	if len(k.conns) > 0 || k.stopping {
		k.idle.Stop()
	}
}

// Serve answers commands on ln until the session ends, the keeper is asked
// to stop (a command, SIGTERM through ctx), its socket file is removed, or
// no command attaches for idle (0: never), counted once Held is closed. It
// writes Info to the info file while it runs, and removes its files and
// releases the name when it returns, with the reason it stopped.
func (k *Keeper) Serve(ctx context.Context, ln *Listener, idle time.Duration) string {
	k.mu.Lock()
	k.ln = ln
	k.conns = map[*conn]bool{}
	k.tokens.Prefix = "k"
	k.stopReq = make(chan *conn, 1)
	k.idleOver = make(chan struct{}, 1)
	k.broken = make(chan error, 1)
	k.lastUsed = time.Now()
	k.Info.State = "ready"
	k.Info.Idle = idle.String()
	held := k.Held
	if idle <= 0 {
		held = nil
	} else if held == nil {
		k.countIdle(idle)
	}
	k.mu.Unlock()
	k.writeInfo()
	defer ln.Release()
	defer func() {
		k.infoMu.Lock()
		k.infoGone = true
		os.Remove(ln.Paths.Info)
		k.infoMu.Unlock()
	}()
	go k.accept(idle) // keeper's listener: stops when ln is closed
	tick := time.NewTicker(cmp.Or(k.CheckEvery, checkEvery))
	defer tick.Stop()

	var why string
	var cause error // the server side's failure that ended the session
	var stopper *conn
	// A probe of the server runs beside the loop, one at a time, so that a
	// stop or a removed socket is seen at once while it waits.
	probing := false
	probed := make(chan error, 1)
	probeCtx, endProbe := context.WithCancel(context.Background())
	defer endProbe()
	for why == "" {
		select {
		case <-k.Client.Done():
			cause, why = k.Client.Err(), "the server closed the session"
			if cause != nil {
				why = "the server's session ended: " + cause.Error()
			}
		case <-ctx.Done():
			why = "the session keeper was stopped"
		case stopper = <-k.stopReq:
			why = "the session was stopped"
		case <-held:
			held = nil
			k.mu.Lock()
			k.countIdle(idle)
			k.mu.Unlock()
		case <-k.idleOver:
			why = fmt.Sprintf("the session ended after %v without commands", idle)
		case err := <-k.broken:
			if !probing && !answered(err) {
				probing = true
				go func() { probed <- k.gone(probeCtx, err) }() // keeper's probe: ends within probeWait, or when Serve returns
			}
		case err := <-probed:
			probing = false
			if err != nil {
				cause = err
				why = "the server stopped answering: " + err.Error()
			}
		case <-tick.C:
			if ln.removed() {
				why = "the session's socket " + ln.Paths.Socket + " was removed"
			}
		}
	}
	k.mu.Lock()
	k.stopping = true
	conns := slices.Collect(maps.Keys(k.conns))
	k.mu.Unlock()
	ln.Close() // removes the socket: no new command attaches
	for _, c := range conns {
		c.close(why, cause)
	}
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	k.Client.Close(cctx) // as a one-shot command closes: stdin, signals; an HTTP DELETE
	cancel()
	flushWait := time.NewTimer(5 * time.Second)
	defer flushWait.Stop()
	for _, c := range conns { // each command is told why before the keeper exits
		select {
		case <-c.flushed:
		case <-flushWait.C:
		}
	}
	if stopper != nil {
		stopper.writeNow(net.Buffers{rawjson.Marshal(control{Stopped: new(true)}), newline}, writeWait)
		stopper.c.Close()
	}
	return why
}

// probeWait bounds the ping that checks a server after a request failed;
// a server slower than that is taken to be there.
const probeWait = 10 * time.Second

// answered says whether a request's failure was the server's (or its
// gateway's) answer: an HTTP status, a refusal of credentials. A server
// that answers is there, whatever it said.
func answered(err error) bool {
	return errors.As(err, new(*mcp.StatusError)) || errors.As(err, new(*mcp.AuthError)) || errors.As(err, new(*mcp.CallError))
}

// unreachable says whether err is a failure of the connection itself:
// nothing listens at the server's address, or the network between fails.
func unreachable(err error) bool {
	return errkind.Refused(err) || errors.As(err, new(*net.OpError))
}

// gone pings the server after a request failed on its way (err), and
// returns err when the server is gone, and the session with it (the
// commands would otherwise wait out their timeouts, one by one); nil when
// it answers, or is only slow to.
func (k *Keeper) gone(ctx context.Context, err error) error {
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	if _, perr := k.Client.Forward(ctx, "ping", nil); perr == nil || answered(perr) || !unreachable(perr) {
		return nil
	}
	return err
}

// AddSecret makes the keeper hand secrets to the commands that attach from
// now on (a token learned when it is refreshed, too).
func (k *Keeper) AddSecret(secrets ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, s := range secrets {
		if s != "" && !slices.Contains(k.secrets, s) {
			k.secrets = append(k.secrets, s)
		}
	}
}

// release hands the memory of a large request back to the system once it
// is sent (or of a long line once it is read), rather than keeping it
// while the keeper idles; one release at a time. A large result's writer
// hands its memory back itself (see largeResults).
func (k *Keeper) release() {
	if k.freeing.CompareAndSwap(false, true) {
		go func() { // memory release: stops when the collection is done
			debug.FreeOSMemory()
			k.freeing.Store(false)
		}()
	}
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
		go k.serveConn(c, idle) // attached command: ends when it leaves, or the session ends
	}
}

func (k *Keeper) writeInfo() {
	k.infoMu.Lock()
	defer k.infoMu.Unlock()
	if k.infoGone {
		return // the keeper has stopped: its info file is not written again
	}
	safefile.Replace(k.ln.Paths.Info, append(rawjson.Marshal(k.status()), '\n')) // a status for session list: one not written is one the next change writes
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
