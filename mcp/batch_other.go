//go:build !windows

package mcp

import "os/exec"

// prepareCommand has nothing to do outside Windows.
func prepareCommand(*exec.Cmd) error { return nil }
