package connect

import (
	"context"
	"os/exec"
	"syscall"

	"github.com/mcpv/mcpv/internal/safedir"
)

// shellCommand runs line with cmd.exe /d /s /c, passed as typed (os/exec
// would quote it again).
func shellCommand(ctx context.Context, line string) *exec.Cmd {
	cmdExe, err := safedir.CmdExe()
	if err != nil {
		cmdExe = `C:\Windows\System32\cmd.exe`
	}
	cmd := exec.CommandContext(ctx, cmdExe)
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: cmdLine(cmdExe, line)}
	return cmd
}
