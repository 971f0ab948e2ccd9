package trust

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTrustFollowsContent(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "state", "trusted")}
	path := "/proj/.mcp.json"
	v1, v2 := []byte(`{"mcpServers":{}}`), []byte(`{"mcpServers":{"x":{"command":"evil"}}}`)
	check := func(data []byte, want bool) {
		t.Helper()
		got, err := s.Trusted(path, data)
		if err != nil || got != want {
			t.Fatalf("Trusted = %v, %v; want %v", got, err, want)
		}
	}
	check(v1, false)
	if err := s.Trust(path, v1); err != nil {
		t.Fatal(err)
	}
	check(v1, true)
	check(v2, false) // changed: trust again
	if ok, _ := s.Trusted("/other/.mcp.json", v1); ok {
		t.Fatal("trust leaked to another path")
	}
	if err := s.Trust(path, v2); err != nil {
		t.Fatal(err)
	}
	check(v2, true)
	check(v1, false) // only the latest content
	fi, err := os.Stat(s.Dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("store dir mode %v, %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(s.Dir)
	if len(entries) != 1 {
		t.Fatalf("%d entries, want 1", len(entries))
	}
	info, _ := entries[0].Info()
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("entry mode %v", info.Mode())
	}
	if had, err := s.Revoke(path); !had || err != nil {
		t.Fatalf("Revoke = %v, %v", had, err)
	}
	check(v2, false)
	if had, _ := s.Revoke(path); had {
		t.Fatal("second revoke found something")
	}
}

func TestStateDir(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if got := StateDir(get, "/home/u"); got != "/home/u/.local/state/mcpv" {
		t.Errorf("default: %s", got)
	}
	env["XDG_STATE_HOME"] = "relative"
	if got := StateDir(get, "/home/u"); got != "/home/u/.local/state/mcpv" {
		t.Errorf("a relative XDG_STATE_HOME must be ignored: %s", got)
	}
	env["XDG_STATE_HOME"] = "/st"
	if got := StateDir(get, "/home/u"); got != "/st/mcpv" {
		t.Errorf("xdg: %s", got)
	}
}
