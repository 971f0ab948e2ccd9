package mcp

import "syscall"

// The server gets its own process group and is killed if mcpv dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup signals the server's whole process group.
func killGroup(pid int, sig syscall.Signal) { _ = syscall.Kill(-pid, sig) }

// afterStart has nothing to do: the parent-death signal is set at start.
func afterStart(int) error { return nil }

// groupEnded has nothing to do.
func groupEnded(int) {}
