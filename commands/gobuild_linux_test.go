package commands

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/longtest"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// TestStartBoundWaitsForGoBuild: a server that go run is still building
// (the go command and its compiler, before the program runs) is not
// counted against --connect-timeout: here a "compile" step that lasts
// past the bound, after which the program starts and answers. (Linux:
// the build is seen in /proc.)
func TestStartBoundWaitsForGoBuild(t *testing.T) {
	longtest.Skip(t, "a build that outlasts a 1 s connect timeout")
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
	os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/bash\n\"${0%/*}/compile\"\nexec \"$@\"\n"), 0o755)
	os.WriteFile(filepath.Join(bin, "compile"), []byte("#!/bin/bash\nread -r _ < \""+fifo+"\"\n"), 0o755)
	done := make(chan result, 1)
	go func() { // ends with the run
		done <- mcpv(t, "", "--connect-timeout", "1s", "--timeout", "1m", "ping", "--env", mcptest.EnvVar+"=plain", "--", filepath.Join(bin, "go"), os.Args[0])
	}()
	time.Sleep(3 * time.Second) // the build outlasts the connect timeout
	// Without a reader (the build given up, the server killed), no wait.
	if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.WriteString("built\n")
		f.Close()
	}
	if r := <-done; r.code != 0 {
		t.Errorf("exit %d, stderr %s; want the build not counted against --connect-timeout", r.code, r.stderr)
	}
}
