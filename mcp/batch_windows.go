package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpv/mcpv/internal/safedir"
)

// prepareCommand runs a batch file server (npx.cmd, a uvx shim) through
// cmd.exe with a command line both cmd.exe and the program behind the shim
// read as the arguments given (batchCommandLine). cmd.exe is the one in
// the system directory, not whatever %ComSpec% says.
func prepareCommand(cmd *exec.Cmd) error {
	if cmd.Err != nil || cmd.Path == "" {
		return nil // Start reports it
	}
	bat, ok := batchFile(startedPath(cmd))
	if !ok {
		return nil
	}
	comspec, err := safedir.CmdExe()
	if err != nil {
		return err
	}
	line, err := batchCommandLine(comspec, filepath.FromSlash(bat), cmd.Args[1:])
	if err != nil {
		return err
	}
	cmd.Path = comspec
	cmd.SysProcAttr.CmdLine = line
	return nil
}

// startedPath is the file cmd.Start would run. exec.Command puts a bare
// name's PATH and PATHEXT lookup (npx → C:\...\npx.cmd) in cmd.Path, but
// gives any other path its PATHEXT extension only in Start (C:\nodejs\npx,
// or node_modules\.bin\server from cmd.Dir), so that is done here the
// same way. cmd.Path must not be "".
func startedPath(cmd *exec.Cmd) string {
	path := cmd.Path
	full := path
	if cmd.Dir != "" && filepath.VolumeName(path) == "" && !os.IsPathSeparator(path[0]) {
		full = filepath.Join(cmd.Dir, path)
	}
	if lp, err := exec.LookPath(full); err == nil && strings.HasPrefix(lp, full) {
		return path + lp[len(full):]
	}
	return path
}
