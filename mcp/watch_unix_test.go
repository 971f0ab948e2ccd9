//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startGroup starts a shell in a process group of its own with a child of
// its own, both sleeping.
func startGroup(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", "sleep 60 & sleep 60; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	pgid := cmd.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	return pgid
}

func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

func TestGroupWatcherEndsTheGroupWhenMcpvDies(t *testing.T) {
	t.Parallel()
	pgid := startGroup(t)
	g, err := watchGroup(pgid)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if !groupAlive(pgid) {
		t.Fatal("the group ended before mcpv did")
	}
	g.w.Close() // what the kernel does to the write end when mcpv dies
	deadline := time.Now().Add(5 * time.Second)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			t.Fatal("the server's group outlived mcpv")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestGroupWatcherLetsGoWhenDone(t *testing.T) {
	t.Parallel()
	pgid := startGroup(t)
	g, err := watchGroup(pgid)
	if err != nil {
		t.Fatal(err)
	}
	g.done()
	g.done() // once
	time.Sleep(500 * time.Millisecond)
	if !groupAlive(pgid) {
		t.Fatal("the watcher signalled a group it was told was done")
	}
}
