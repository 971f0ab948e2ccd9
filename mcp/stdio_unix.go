//go:build unix && !linux

package mcp

import (
	"sync"
	"syscall"

	"github.com/mcpv/mcpv/internal/lazy"
)

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup signals the server's whole process group.
func killGroup(pid int, sig syscall.Signal) { _ = syscall.Kill(-pid, sig) }

// These systems have no parent-death signal: a watcher ends the server's
// group if mcpv dies first (watch_unix.go).
var watchers struct {
	sync.Mutex // guards byPID
	byPID      map[int]*groupWatcher
}

// afterStart starts the watcher of the server's group.
func afterStart(pid int) error {
	g, err := watchGroup(pid)
	if err != nil {
		return err
	}
	watchers.Lock()
	lazy.Put(&watchers.byPID, pid, g)
	watchers.Unlock()
	return nil
}

// groupEnded lets the watcher go once mcpv has ended the group itself.
func groupEnded(pid int) {
	watchers.Lock()
	g := watchers.byPID[pid]
	delete(watchers.byPID, pid)
	watchers.Unlock()
	if g != nil {
		g.done()
	}
}
