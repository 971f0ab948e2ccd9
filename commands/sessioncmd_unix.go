//go:build unix

package commands

import (
	"os/exec"
	"syscall"
	"time"
)

// stopKeeper ends a keeper that is not to stay: SIGTERM (it closes its
// server in order), then SIGKILL of its process group.
func stopKeeper(cmd *exec.Cmd, exited chan struct{}) {
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}

// keeperProcAttr detaches the keeper: a session of its own, away from the
// terminal's signals.
func keeperProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// sessionsSupported: a keeper needs Unix sockets and the peer's uid.
func sessionsSupported() error { return nil }
