package serverstate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFullDisk: a save on a full disk fails alone (the caller passes over
// it): the file kept before is left whole, and no half-written file stays
// behind. It needs a file system of its own to fill: a small tmpfs, which
// root may mount; skipped otherwise.
func TestFullDisk(t *testing.T) {
	dir, root := place(t)
	state := filepath.Dir(dir)
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", state, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
		t.Skipf("no small file system to fill: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(state, syscall.MNT_DETACH) })
	clk := &clock{t: time.Unix(1_000_000, 0)}
	s := Open(dir, root, server, clk.now)
	s.Learnt(modern, nil, true)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(pathOf(dir, server.Server))
	if err != nil {
		t.Fatal(err)
	}
	filler, err := os.Create(filepath.Join(state, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := filler.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	filler.Close()

	s = Open(dir, root, server, clk.now)
	keepTools(t, s, `{"tools":[{"name":"t1","description":"`+strings.Repeat("d", 32<<10)+`"}],"ttlMs":60000}`)
	err = s.Save()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Save on a full disk = %v, want no space left", err)
	}
	after, _ := os.ReadFile(pathOf(dir, server.Server))
	if string(after) != string(before) {
		t.Errorf("the file kept before changed:\n%s\nwas\n%s", after, before)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if f, _, why := read(root, dir, pathOf(dir, server.Server)); f == nil || f.Era == nil {
		t.Errorf("the file kept before does not read: %s", why)
	}
}
