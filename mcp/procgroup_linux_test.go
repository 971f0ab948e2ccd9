package mcp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// waitGroupGone waits until no live process is left in process group pgid.
// Zombies count as gone: their parent (init, outside our control) reaps them.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for {
		err := syscall.Kill(-pgid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		live := liveGroupMembers(pgid)
		if len(live) == 0 {
			t.Logf("process group %d holds only zombies awaiting their reaper", pgid)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v of group %d still run after Close", live, pgid)
		}
		time.Sleep(20 * time.Millisecond) // nothing to wait on but /proc
	}
}

// liveGroupMembers lists the processes of group pgid that are not zombies.
func liveGroupMembers(pgid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var live []int
	for _, path := range stats {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may contain spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 3 || string(f[0]) == "Z" || string(f[0]) == "X" {
			continue
		}
		if g, _ := strconv.Atoi(string(f[2])); g == pgid {
			pid, _ := strconv.Atoi(string(bytes.Fields(b)[0]))
			live = append(live, pid)
		}
	}
	return live
}
