//go:build unix

package commands

import (
	"os"
	"path/filepath"
	"strings"
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

// A data file that is a FIFO, /dev/zero or a link to it (planted in a
// cloned repository) is refused at once, not waited on or read without end.
func TestLoadDataFromAFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo, zero := filepath.Join(dir, "rows.jsonl"), filepath.Join(dir, "zero.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	os.Symlink("/dev/zero", zero)
	for data, says := range map[string]string{fifo: "a named pipe", "/dev/zero": "a character device", zero: "a character device"} {
		r := mcpv(t, "", args([]string{"load", "call", "x", "n~=.row", "--data", data}, fake("plain"))...)
		r.expect(t, 2, "", "", "--data: not a regular file but "+says)
	}
}

// --report writes where it is told, never through a symbolic link, and a
// path it cannot write is found before any server starts.
func TestLoadReportFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "bashrc")
	os.WriteFile(target, []byte("keep me"), 0o644)
	link := filepath.Join(dir, "report.html")
	os.Symlink(target, link)
	nowhere := []string{"--", "/nonexistent/server"}
	r := mcpv(t, "", args([]string{"load", "ping", "--report", link}, nowhere)...)
	r.expect(t, 2, "", "", "--report: ")
	if b, _ := os.ReadFile(target); string(b) != "keep me" {
		t.Errorf("written through the link: %q", b)
	}
	r = mcpv(t, "", args([]string{"load", "ping", "--report", filepath.Join(dir, "no", "such", "dir.html")}, nowhere)...)
	r.expect(t, 2, "", "", "--report: ")
	page := filepath.Join(dir, "page.html")
	r = mcpv(t, "", args([]string{"load", "ping", "-n", "3", "--report", page}, fake("plain"))...)
	r.expect(t, 0, "", "iterations 3", "")
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), `"iterations":3`) {
		t.Errorf("the page (%v) does not hold the run", err)
	}
}
