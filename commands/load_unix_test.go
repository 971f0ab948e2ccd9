//go:build unix

package commands

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A mix file that is a FIFO (planted in a cloned repository) is refused at
// once, not waited on.
func TestLoadMixFromAFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "mix.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	r := mcpv(t, "", args([]string{"load", "--mix", fifo}, fake("plain"))...)
	r.expect(t, 2, "", "", "--mix: ")
}

// A data file that is a FIFO is refused at once, not waited on.
func TestLoadDataFromAFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "rows.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	r := mcpv(t, "", args([]string{"load", "call", "x", "n~=.row", "--data", fifo}, fake("plain"))...)
	r.expect(t, 2, "", "", "--data: not a regular file but a named pipe")
}
