//go:build unix

package trust

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A record is never read through a link or from a named pipe put in its
// place: the store is refused instead (and nothing hangs).
func TestTrustedReadsNoPlantedRecord(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "trusted")}
	const path = "/proj/.mcp.json"
	data := []byte(`{"mcpServers":{}}`)
	if err := s.Trust(path, data); err != nil {
		t.Fatal(err)
	}
	rec, err := os.ReadFile(s.entry(path))
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "record")
	if err := os.WriteFile(elsewhere, rec, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(s.entry(path))
	if err := os.Symlink(elsewhere, s.entry(path)); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Trusted(path, data); ok || err == nil {
		t.Errorf("a record that is a link: Trusted = %v, %v; want refused", ok, err)
	}
	os.Remove(s.entry(path))
	if err := syscall.Mkfifo(s.entry(path), 0o600); err != nil {
		t.Skip(err)
	}
	if ok, err := s.Trusted(path, data); ok || err == nil {
		t.Errorf("a record that is a named pipe: Trusted = %v, %v; want refused", ok, err)
	}
}
