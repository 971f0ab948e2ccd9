package gateway

// A gateway member's shared upstream session over time (gateway.go): its
// Server's Source. A
// one-upstream serve opens its session once and ends with it; behind a
// gateway a server may fail to start, die, hang or flood, and the
// others must go on. So a member's session is opened at its first need
// (lazy) or at once in the background (eager), each attempt bounded by
// the member's connect timeout; once it fails or ends it is down: its
// clients are told their lists changed (its items are gone), the
// requests that need it fail at once with why, and it is opened again
// after a back-off that doubles from retryFirst to retryMax, across the
// ups and downs of a server that fails again soon after it came up
// (anew once it stayed up retryMax). Its state
// changes are said on serve's log, one line each, and read by /healthz.
//
// A hang is found by a ping while nothing else is in flight to the
// server (a server busy with a long call is not pinged: many answer one
// request at a time), and a flood by counting what the server sends
// unasked: either closes the session, which makes it down.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/serve"
)

// lifeState is where a member's session is.
type lifeState int

const (
	lifeIdle     lifeState = iota // never opened (lazy, nobody needed it yet)
	lifeStarting                  // an attempt to open it is under way
	lifeUp                        // open
	lifeDown                      // failed or ended; opened again at retryAt
	lifeClosed                    // serving ended
)

func (s lifeState) String() string {
	return [...]string{"idle", "starting", "up", "down", "closed"}[s]
}

// The back-off between attempts, the health pings, and what counts as a
// flood.
const (
	retryFirst = time.Second
	retryMax   = time.Minute // also how long a session stays up before its failure starts the back-off anew
	// pingEvery is how often an idle member is pinged; pingWait how long
	// it has to answer.
	pingEvery = 30 * time.Second
	pingWait  = 10 * time.Second
	// floodNotes notifications within floodWindow make a flood.
	floodNotes  = 100_000
	floodWindow = 10 * time.Second
)

// life is a member's shared upstream session over time.
type life struct {
	srv    *serve.Server
	log    *slog.Logger // the gateway's: its lines name the member
	name   string
	change func(m lifeState) // told each change of state (the gateway's list changes), outside mu

	ctx    context.Context    // ends when serving does
	cancel context.CancelFunc // ends ctx

	mu      sync.Mutex     // guards the fields below
	state   lifeState      // where the session is
	u       *serve.Session // while up, and nil in every other state
	why     error          // while down: why
	attempt chan struct{}  // while starting: closed when the attempt ends
	backoff time.Duration  // the wait before the next attempt
	retryAt time.Time      // while down: when it is tried again
	timer   *time.Timer    // while down: the attempt at retryAt
	since   time.Time      // when the state last changed
	fault   error          // why the session is being closed by life itself (a hang, a flood)
	failed  bool           // its being down was said, and it has not been up since

	// The bounds of the constants above of the same names, as the
	// gateway sets them.
	floodNotes                                   int64
	floodWindow, pingEvery, pingWait, retryFirst time.Duration

	busy  atomic.Int64 // requests in flight to the session (pings wait while there are)
	notes atomic.Int64 // notifications since window began
	wnd   atomic.Int64 // the window's start, Unix ns
	wg    sync.WaitGroup
}

// enter counts one more goroutine of the life's, which Close waits for;
// false once it is closed, when none may start.
func (l *life) enter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state == lifeClosed {
		return false
	}
	l.wg.Add(1)
	return true
}

// errDown is what a request for a member that is down gets.
type errDown struct {
	name  string
	why   error
	retry time.Duration
}

func (e *errDown) Error() string {
	msg := fmt.Sprintf("server %q is down", e.name)
	if e.why != nil {
		msg += " (" + e.why.Error() + ")"
	}
	if e.retry > 0 {
		msg += fmt.Sprintf("; it is tried again in %v", e.retry.Round(time.Second))
	}
	return msg
}

// Get is the member's session: open, opened now (waiting for the
// attempt under way), or an error saying that it is down and when it is
// tried again.
func (l *life) Get(ctx context.Context) (*serve.Session, error) {
	for {
		l.mu.Lock()
		switch l.state {
		case lifeUp:
			u := l.u
			l.mu.Unlock()
			return u, nil
		case lifeClosed:
			l.mu.Unlock()
			return nil, errors.New("serving ended")
		case lifeDown:
			if wait := time.Until(l.retryAt); wait > 0 {
				err := &errDown{name: l.name, why: l.why, retry: wait}
				l.mu.Unlock()
				return nil, err
			}
			l.begin()
		case lifeIdle:
			l.begin()
		}
		attempt := l.attempt
		l.mu.Unlock()
		select {
		case <-attempt:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		l.mu.Lock()
		state, why := l.state, l.why
		l.mu.Unlock()
		if state == lifeDown {
			return nil, &errDown{name: l.name, why: why}
		}
	}
}

// wake opens an idle or down member's session in the background, as a
// list that will need it soon begins.
func (l *life) wake() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state == lifeIdle || l.state == lifeDown && !time.Now().Before(l.retryAt) {
		l.begin()
	}
}

// begin starts an attempt to open the session; l.mu is held.
func (l *life) begin() {
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
	l.state, l.attempt = lifeStarting, make(chan struct{})
	l.wg.Add(1)
	go l.open(l.attempt) // attempt to open a gateway server's session: ends when the attempt does: bounded by the connect timeout, and by close
}

// open is one attempt to open the session.
func (l *life) open(done chan struct{}) {
	defer l.wg.Done()
	defer close(done)
	u, err := l.srv.Dial(l.ctx)
	l.mu.Lock()
	if l.state == lifeClosed {
		l.mu.Unlock()
		if u != nil {
			u.Close()
		}
		return
	}
	if err != nil {
		l.down(err)
		l.mu.Unlock()
		return
	}
	l.state, l.u, l.why, l.since, l.failed = lifeUp, u, nil, time.Now(), false
	l.mu.Unlock()
	l.log.Info(fmt.Sprintf("serve: server %q is up", l.name))
	l.wg.Go(func() { l.watch(u) }) // a gateway server's session watcher: ends with the session
	l.change(lifeUp)
}

// down marks the session down for why, and sets the next attempt; l.mu
// is held. Only the change from another state is said: an attempt that
// fails again changes nothing.
func (l *life) down(why error) {
	if l.state == lifeUp && time.Since(l.since) >= retryMax {
		l.backoff = 0 // it stayed up: this failure is a new one
	}
	l.backoff = min(max(l.backoff*2, l.retryFirst), retryMax)
	l.state, l.u, l.why, l.retryAt, l.since = lifeDown, nil, why, time.Now().Add(l.backoff), time.Now()
	l.timer = time.AfterFunc(l.backoff, l.wake)
	if !l.failed {
		l.failed = true
		l.log.Warn(fmt.Sprintf("serve: server %q is down: %s; it is tried again in %v, then with back-off", l.name, safetext.Line(why.Error()), l.backoff))
	}
	l.wg.Go(func() { // telling a gateway's clients a server went down: outside mu
		l.change(lifeDown)
	})
}

// watch waits for the session to end, and pings it while nothing else
// is in flight; the end makes it down.
func (l *life) watch(u *serve.Session) {
	tick := time.NewTicker(l.pingEvery)
	defer tick.Stop()
	for {
		select {
		case <-u.Done():
			l.ended(u)
			return
		case <-l.ctx.Done():
			return
		case <-tick.C:
			if l.busy.Load() > 0 {
				continue
			}
			ctx, cancel := context.WithTimeout(l.ctx, l.pingWait)
			err := u.Ping(ctx)
			cancel()
			if err != nil && ctx.Err() != nil && l.ctx.Err() == nil {
				l.fail(u, fmt.Errorf("it did not answer a ping within %v", l.pingWait))
			}
		}
	}
}

// ended makes a session that ended down.
func (l *life) ended(u *serve.Session) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.u != u || l.state != lifeUp {
		return
	}
	why := cmp.Or(l.fault, u.Err(), errors.New("its session ended"))
	l.fault = nil
	l.down(why)
}

// fail closes a session that hangs or floods, saying why; it is then
// down.
func (l *life) fail(u *serve.Session, why error) {
	l.mu.Lock()
	if l.u != u || l.state != lifeUp || l.fault != nil {
		l.mu.Unlock()
		return
	}
	l.fault = why
	l.mu.Unlock()
	u.Close()
}

// noted counts a notification of the session's; past floodNotes within
// floodWindow the session is closed as a flood.
func (l *life) noted() {
	now := time.Now().UnixNano()
	if start := l.wnd.Load(); now-start > int64(l.floodWindow) {
		if l.wnd.CompareAndSwap(start, now) {
			l.notes.Store(0)
		}
	}
	if l.notes.Add(1) == l.floodNotes {
		l.mu.Lock()
		u := l.u
		l.mu.Unlock()
		if u != nil {
			// closing a flooding server's session: not on the session's own goroutine that counted the notification
			go l.fail(u, fmt.Errorf("it sent %d notifications within %v: a flood", l.floodNotes, l.floodWindow))
		}
	}
}

// status is the member's state, and since when.
func (l *life) status() (lifeState, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state, l.since
}

// Close ends the session and every attempt, and waits for them (and for
// the clients being told it went down).
func (l *life) Close() {
	l.mu.Lock()
	l.state = lifeClosed
	if l.timer != nil {
		l.timer.Stop()
	}
	u := l.u
	l.u = nil
	l.mu.Unlock()
	l.cancel()
	if u != nil {
		u.Close()
	}
	l.wg.Wait()
}
