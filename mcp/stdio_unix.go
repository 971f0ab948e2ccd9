//go:build unix && !linux

package mcp

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killGroup signals the server's whole process group.
func killGroup(pid int, sig syscall.Signal) { _ = syscall.Kill(-pid, sig) }
