//go:build unix && e2e

package e2e

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// stalledRun starts mcpv on a server that floods it with log messages and
// progress, its stderr a terminal that is never read, and returns once
// the terminal is full: mcpv's next write to stderr waits for ever.
func stalledRun(t *testing.T) (*run, *server) {
	t.Helper()
	p, err := openPTY()
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(p.close)
	s := newServer(t, "log-flood=100000000")
	r := &run{cmd: exec.Command(mcpvBin, append([]string{"call", "x", "--no-validate"}, s.args()...)...)}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, p.tty
	r.cmd.Env = append(os.Environ(), "TERM=xterm")
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	s.waitFor(t, `"tools/call"`)
	for deadline := time.Now().Add(15 * time.Second); !p.full(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the terminal never filled up")
		}
	}
	return r, s
}

// A terminal that stopped reading (scrolled back, ^S, a frozen connection)
// does not hold Ctrl-C up: the request is cancelled on the wire, and mcpv
// ends with 130, its server gone, within the shutdown's bound, though it
// cannot say so on stderr.
func TestCtrlCWithAStalledTerminal(t *testing.T) {
	testkit.SkipLong(t, "fills a terminal with a log flood first")
	t.Parallel()
	r, s := stalledRun(t)
	r.cmd.Process.Signal(os.Interrupt)
	s.waitFor(t, `"method":"notifications/cancelled"`)
	if code, took := r.wait(t, 60*time.Second); code != 130 {
		t.Errorf("exit %d after %v, want 130", code, took)
	}
	if !s.gone(t) {
		t.Error("the server outlived mcpv")
	}
}

// The second Ctrl-C ends mcpv at once, whatever the first is waiting for.
func TestSecondCtrlCWithAStalledTerminal(t *testing.T) {
	testkit.SkipLong(t, "a terminal that stops reading, then two signals")
	t.Parallel()
	r, s := stalledRun(t)
	r.cmd.Process.Signal(os.Interrupt)
	s.waitFor(t, `"method":"notifications/cancelled"`)
	r.cmd.Process.Signal(os.Interrupt)
	// At once is milliseconds; the bound is well under the 10 s in which
	// the first signal alone ends mcpv.
	if code, took := r.wait(t, 60*time.Second); code != 130 || took > 5*time.Second {
		t.Errorf("exit %d after %v, want 130 at once", code, took)
	}
	if !s.gone(t) {
		t.Error("the server outlived mcpv")
	}
}

// A second signal to a session's keeper ends it at once, and with it every
// process of its server's group, as it ends a one-shot command's.
func TestSecondSignalEndsAKeepersServer(t *testing.T) {
	testkit.SkipLong(t, "a session's keeper started and signalled twice")
	t.Parallel()
	w := newSessions(t)
	s := newServer(t, "hang,ignore-exit,grandchild")
	pid := w.startSession("twice", s)
	syscall.Kill(pid, syscall.SIGTERM)
	s.waitFor(t, `{"fake":"EOF"}`) // the orderly shutdown has begun
	syscall.Kill(pid, syscall.SIGTERM)
	if !waitGone(pid) {
		t.Fatal("the keeper outlived two signals")
	}
	if !s.gone(t) {
		t.Error("a process of the server's group outlived its keeper")
	}
}
