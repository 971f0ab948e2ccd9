package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
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

// TestBuildingReadsEveryMemberWhenTheLeaderIsTheToolchain: a group led by
// the go command is building while every member is a step of the build,
// and is not once one member is the program (go run's program started):
// the leader's stat alone cannot say, so every member is read.
func TestBuildingReadsEveryMemberWhenTheLeaderIsTheToolchain(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep:", err)
	}
	dir := t.TempDir()
	// start runs sleep under name (the comm /proc shows is the name it
	// was run by) in the group pgid (0: a new group it leads).
	start := func(name string, pgid int) int {
		t.Helper()
		path := filepath.Join(dir, name)
		if _, err := os.Lstat(path); err != nil {
			if err := os.Symlink(sleep, path); err != nil {
				t.Fatal(err)
			}
		}
		cmd := &exec.Cmd{Path: path, Args: []string{"sleep", "3600"},
			SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		if comm, _, ok := procStat("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/stat"); !ok || comm != name {
			t.Fatalf("started as %q, /proc says %q", name, comm)
		}
		return cmd.Process.Pid
	}
	for _, tt := range []struct {
		members []string
		want    bool
	}{
		{[]string{"compile", "link"}, true},
		{[]string{"compile", "myserver"}, false},
	} {
		leader := start("go", 0)
		for _, m := range tt.members {
			start(m, leader)
		}
		if got := building(leader); got != tt.want {
			t.Errorf("go with %q: building %v, want %v", tt.members, got, tt.want)
		}
	}
}
