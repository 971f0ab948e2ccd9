//go:build unix

package config

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A config file that is not a regular file is refused at once: a FIFO
// would hang mcpv, /dev/zero fill its memory, /dev/tty read keystrokes.
func TestConfigFileMustBeRegular(t *testing.T) {
	w := newWorld(t)
	fifo := filepath.Join(w.project, ".mcp.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, path := range []string{fifo, "/dev/zero", w.project} {
		_, err := Load(FileSource(path, w.project, "--config"))
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v", path, err)
		}
	}
	// As a project file it is skipped with a warning, like any broken file
	// of another program's.
	_, skipped, err := Find(w.env("linux"), "x")
	var nf *NotFoundError
	if !errors.As(err, &nf) || len(skipped) != 1 || !strings.Contains(skipped[0].Error(), "a named pipe") {
		t.Errorf("Find = %v, skipped %v", err, skipped)
	}
}
