package safedir

import (
	"path/filepath"
	"testing"
)

// A state directory made under the user's profile is the user's alone.
func TestMkdirAllUnderProfile(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "mcpv", "oauth")
	if err := MkdirAll(root, dir); err != nil {
		t.Fatal(err)
	}
	if err := Check(root, dir); err != nil {
		t.Fatal(err)
	}
}
