package trust

import (
	"os"
	"path/filepath"
	"runtime"
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
	if err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 { // Windows: the access list, internal/winacl
		t.Fatalf("store dir mode %v, %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(s.Dir)
	if len(entries) != 1 {
		t.Fatalf("%d entries, want 1", len(entries))
	}
	info, _ := entries[0].Info()
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
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
	home := t.TempDir() // on macOS an earlier ~/.local/state/mcpv decides
	tests := []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"linux", nil, filepath.Join(home, ".local", "state", "mcpv")},
		{"linux", map[string]string{"XDG_STATE_HOME": "relative"}, filepath.Join(home, ".local", "state", "mcpv")},
		{"linux", map[string]string{"XDG_STATE_HOME": "/st"}, filepath.Join("/st", "mcpv")},
		{"darwin", nil, filepath.Join(home, "Library", "Application Support", "mcpv")},
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\me\AppData\Local`}, `C:\Users\me\AppData\Local\mcpv`},
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\me\AppData\Local`, "XDG_STATE_HOME": `D:\state`}, `D:\state\mcpv`},
	}
	for _, tt := range tests {
		if runtime.GOOS == "windows" && tt.goos != "windows" {
			continue // Unix paths joined by Windows' rules are another test
		}
		get := func(k string) string { return tt.env[k] }
		if got := StateDir(get, home, tt.goos); got != tt.want {
			t.Errorf("%s %v: %s, want %s", tt.goos, tt.env, got, tt.want)
		}
	}
	if got := StateDir(func(string) string { return "" }, `C:\Users\me`, "windows"); got != `C:\Users\me\AppData\Local\mcpv` {
		t.Errorf("windows without LOCALAPPDATA: %s", got)
	}
	// An upgrade on macOS keeps the state an earlier mcpv made.
	old := filepath.Join(home, ".local", "state", "mcpv")
	if err := os.MkdirAll(old, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := StateDir(func(string) string { return "" }, home, "darwin"); got != old {
		t.Errorf("darwin with an earlier state directory: %s, want %s", got, old)
	}
}
