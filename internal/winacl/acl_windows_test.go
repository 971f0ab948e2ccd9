package winacl

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProtect checks the real thing: a file given the owner-only DACL is
// readable by its owner alone, and the directory mcpv makes for its state
// under the user's profile is writable by nobody else.
func TestProtect(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "token.json")
	if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Protect(path); err != nil {
		t.Fatal(err)
	}
	owner, aces, noDACL, err := OfPath(path)
	if err != nil {
		t.Fatal(err)
	}
	if OthersMayRead(owner, aces, noDACL) {
		t.Errorf("protected file: owner %s, entries %v: others may read it", owner, aces)
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Errorf("the owner cannot read the protected file: %v", err)
	}
	owner, aces, noDACL, err = OfPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	if OthersMayWriteDir(owner, aces, noDACL) {
		t.Errorf("the temporary directory under the profile: owner %s, entries %v: others may write it", owner, aces)
	}
}
