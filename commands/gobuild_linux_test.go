package commands

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// TestStartBoundWaitsForGoBuild: a server that go run is still building
// (the go command and its compiler, before the program runs) is not
// counted against --connect-timeout: the bound runs on a clock of the
// test's own, which the test runs out while a "compile" step lasts, after
// which the program starts and answers. (Linux: the build is seen in
// /proc.)
func TestStartBoundWaitsForGoBuild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "built")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	// A go command, as go run is: a build step, then the program. Each
	// a script named as the toolchain's processes are, with no process
	// of its own but for them (read is bash's own).
	testkit.WriteScript(t, filepath.Join(bin, "go"), []byte("#!/bin/bash\n\"${0%/*}/compile\"\nexec \"$@\"\n"), 0o755)
	testkit.WriteScript(t, filepath.Join(bin, "compile"), []byte("#!/bin/bash\nread -r _ < \""+fifo+"\"\n"), 0o755)
	const connect = time.Second
	clock := mcptest.NewClock()
	done := make(chan result, 1)
	go func() { // ends with the run
		done <- mcpvIn(t, onClock(testEnv(t), clock), "", "--connect-timeout", connect.String(), "--timeout", "1m", "ping", "--env", mcptest.EnvVar+"=plain", "--", filepath.Join(bin, "go"), os.Args[0])
	}()
	build := openWhenRead(t, fifo) // the build has begun
	clock.WaitUntil(t, "the start bound stopped for the build", func(ts mcptest.Timers) bool {
		return ts.Stopped[connect] > 0 && ts.Running[connect] == 0
	})
	if n := clock.Fire(connect); n != 0 { // the build outlasts the connect timeout
		t.Errorf("%d start bounds ran during the build", n)
	}
	build.WriteString("built\n")
	build.Close()
	if r := <-done; r.code != 0 {
		t.Errorf("exit %d, stderr %s; want the build not counted against --connect-timeout", r.code, r.stderr)
	}
}
