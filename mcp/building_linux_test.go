package mcp

import (
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// TestBuildingSeesARunningProgram: a process group whose leader is a
// program, not a step of a Go build, is not building (known from the
// leader's stat alone), and one that is gone is not either.
func TestBuildingSeesARunningProgram(t *testing.T) {
	cmd := exec.Command("sleep", "3600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	pid := cmd.Process.Pid
	if building(pid) {
		t.Error("sleep's group is building")
	}
	if comm, g, ok := procStat("/proc/" + strconv.Itoa(pid) + "/stat"); !ok || comm != "sleep" || g != pid {
		t.Errorf("procStat of sleep: %q, group %d, %v", comm, g, ok)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if building(pid) {
		t.Error("a group that is gone is building")
	}
}
