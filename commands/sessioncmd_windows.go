package commands

import (
	"errors"
	"os/exec"
	"syscall"
)

func stopKeeper(cmd *exec.Cmd, exited chan struct{}) {
	cmd.Process.Kill()
	<-exited
}

func keeperProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// sessionsSupported: a keeper serves on a Unix socket and checks the
// peer's uid, which Windows cannot tell.
func sessionsSupported() error {
	return errors.New("sessions are not available on Windows: a keeper checks the uid of each client, which Windows sockets do not report")
}
