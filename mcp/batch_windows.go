package mcp

import (
	"os/exec"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// prepareCommand runs a batch file server (npx.cmd, a uvx shim) through
// cmd.exe with a command line both cmd.exe and the program behind the shim
// read as the arguments given (batchCommandLine). cmd.exe is the one in
// the system directory, not whatever %ComSpec% says.
func prepareCommand(cmd *exec.Cmd) error {
	if cmd.Err != nil || !isBatch(cmd.Path) {
		return nil
	}
	sys, err := windows.GetSystemDirectory()
	if err != nil {
		return err
	}
	comspec := filepath.Join(sys, "cmd.exe")
	line, err := batchCommandLine(comspec, cmd.Path, cmd.Args[1:])
	if err != nil {
		return err
	}
	cmd.Path = comspec
	cmd.SysProcAttr.CmdLine = line
	return nil
}
