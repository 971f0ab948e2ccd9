//go:build unix

package connect

import (
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// A file a flag names is read by the safe reader's rule: a FIFO named by
// mistake is refused rather than waited on.
func TestFlagFilesAreReadSafely(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	env := Env{Cwd: dir, GOOS: runtime.GOOS}
	_, err := readHeaders([]string{"@fifo"}, env)
	if !usageErr(err) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("-H @fifo: %v", err)
	}
}
