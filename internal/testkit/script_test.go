//go:build unix

package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestWriteScriptWritesAnExecutable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.sh")
	WriteScript(t, p, []byte("#!/bin/sh\necho \"ran $1\"\n"), 0o700)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %o, want 700", fi.Mode().Perm())
	}
	out, err := exec.Command(p, "x").Output()
	if err != nil || string(out) != "ran x\n" {
		t.Errorf("ran it: %q, %v", out, err)
	}
}
