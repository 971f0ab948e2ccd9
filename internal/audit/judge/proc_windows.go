package judge

import (
	"os/exec"
	"syscall"

	"github.com/mcpv/mcpv/internal/safedir"
)

// command runs line with cmd.exe /d /s /c, as --sampling-cmd does.
func command(line string) *exec.Cmd {
	cmdExe, err := safedir.CmdExe()
	if err != nil {
		cmdExe = `C:\Windows\System32\cmd.exe`
	}
	cmd := exec.Command(cmdExe)
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `"` + cmdExe + `" /d /s /c "` + line + `"`}
	return cmd
}

// kill ends the judge (what it started may live on: its pipes are let
// go after a second, cmd.WaitDelay).
func kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
