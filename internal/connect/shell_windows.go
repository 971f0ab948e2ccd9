package connect

import (
	"context"
	"os/exec"
	"syscall"
)

// shellCommand runs line with cmd.exe /d /s /c, passed as typed (os/exec
// would quote it again).
func shellCommand(ctx context.Context, line string, getenv func(string) string) *exec.Cmd {
	comspec := comSpec(getenv)
	cmd := exec.CommandContext(ctx, comspec)
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: cmdLine(comspec, line)}
	return cmd
}
