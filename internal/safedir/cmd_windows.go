package safedir

import (
	"path/filepath"

	"golang.org/x/sys/windows"
)

// CmdExe is the system's cmd.exe, in the system directory: what runs a
// batch file server and --sampling-cmd, whatever %ComSpec% says.
func CmdExe() (string, error) {
	sys, err := windows.GetSystemDirectory()
	if err != nil {
		return "", err
	}
	return filepath.Join(sys, "cmd.exe"), nil
}
