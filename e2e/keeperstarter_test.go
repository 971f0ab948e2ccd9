//go:build unix && e2e

package e2e

import (
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A session start that is ended at once (SIGKILL: it can do nothing more,
// as when a second signal cuts its wait for the keeper) while its server is
// still starting takes the keeper and the server with it: the keeper
// watches its starter, and does not wait for the server's start, an hour
// here, to learn that nobody is there to be told.
func TestSessionStartCutTakesItsKeeper(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGHUP} {
		srv := newServer(t, "slow-start=3600000,grandchild")
		mark := markOf(srv)
		r := &run{cmd: exec.Command(mcpvBin, append([]string{"session", "start", "cut", "--connect-timeout", "2h"}, srv.args()...)...)}
		// The mark in the starter's environment is in the keeper's too.
		r.cmd.Env = append(slices.Clone(w.env), markVar+"="+mark)
		r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Minute); !exists(srv.pid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				r.cmd.Process.Kill()
				t.Fatalf("the server never started; stderr %q", r.stderr.String())
			}
		}
		r.cmd.Process.Signal(sig)
		if sig == syscall.SIGHUP { // and again at once: the second ends mcpv without waiting for the keeper
			r.cmd.Process.Signal(sig)
		}
		code, _ := r.wait(t, time.Minute)
		if left := leftovers(mark); left != "" {
			t.Errorf("%v: session start ended (exit %d) and left: %s", sig, code, left)
		}
		if code, out, _ := w.mcpv("session", "list", "-r", "-q", ".sessions[].name"); code != 0 || strings.Contains(out, "cut") {
			t.Errorf("%v: the session stayed: session list exit %d, %q", sig, code, out)
		}
	}
}
