package connect

import (
	"context"
	"os"
	"os/exec"
	"syscall"
)

// shellCommand runs line with cmd.exe /d /s /c, passed as typed (os/exec
// would quote it again).
func shellCommand(ctx context.Context, line string) *exec.Cmd {
	comspec := comSpec(os.Getenv)
	cmd := exec.CommandContext(ctx, comspec)
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: cmdLine(comspec, line)}
	return cmd
}
