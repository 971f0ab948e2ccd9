//go:build unix && !linux

package mcp

import (
	"errors"
	"syscall"
	"testing"
	"time"
)

// waitGroupGone waits until process group pgid is empty.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still exists after Close", pgid)
		}
		time.Sleep(20 * time.Millisecond) // nothing to wait on
	}
}
