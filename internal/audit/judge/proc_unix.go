//go:build !windows

package judge

import (
	"os/exec"
	"syscall"
)

// command runs line with sh -c, as --sampling-cmd does, in a process
// group of its own: kill ends the judge and whatever it started.
func command(line string) *exec.Cmd {
	cmd := exec.Command("sh", "-c", line)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// kill ends the judge's process group.
func kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
