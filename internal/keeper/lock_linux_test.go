//go:build linux

package keeper

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A keeper releases its lock a moment before its process ends, and a
// caller told the session stopped may look for the process at once:
// awaitEnd waits for the process as well as the lock, and takes a zombie
// (a keeper its parent has not reaped) for ended.
func TestAwaitEndWaitsForTheProcess(t *testing.T) {
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), waitEnv+"=1")
	in, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()
	unheld := Paths{Lock: filepath.Join(t.TempDir(), "s.lock")}
	done := make(chan error, 1)
	go func() { done <- awaitEnd(unheld, child.Process.Pid, "s", time.Hour) }()
	select {
	case err := <-done:
		t.Fatalf("awaitEnd returned while the process ran: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	in.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	child.Wait()
	if alive(os.Getpid()) {
		t.Error("a keeper in this process was waited for")
	}
}
