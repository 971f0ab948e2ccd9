package mcp

import (
	"sync"
	"syscall"

	"github.com/mcpv/mcpv/internal/lazy"
)

// ProcessGroups records the process groups of the stdio servers a program
// has running, so that it can end them all at once: mcpv's second Ctrl-C
// exits without the orderly shutdown, and must not leave a server's
// children behind. The zero value is ready; it is safe for concurrent use.
type ProcessGroups struct {
	mu   sync.Mutex   // guards pids
	pids map[int]bool // process group ids (the servers' pids)
}

func (g *ProcessGroups) add(pid int) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	lazy.Put(&g.pids, pid, true)
}

// Kill sends SIGKILL to every process group still recorded.
func (g *ProcessGroups) Kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for pid := range g.pids {
		killGroup(pid, syscall.SIGKILL)
	}
}
