package trust

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/errkind"
)

// world is a project directory and a trust store of the user's own.
func world(t *testing.T, files map[string]string) (store Store, cwd string) {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	cwd = t.TempDir()
	for name, text := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(cwd, name)), 0o755)
		if err := os.WriteFile(filepath.Join(cwd, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Store{Dir: filepath.Join(state, "trusted"), Root: state}, cwd
}

func TestTrustAFoundTestFile(t *testing.T) {
	t.Parallel()
	const text = "server: {command: [./server]}\nsteps:\n  - ping:\n"
	store, cwd := world(t, map[string]string{"smoke.mcpv.yaml": text})
	path := filepath.Join(cwd, "smoke.mcpv.yaml")

	err := CheckFound(store, cwd, "smoke.mcpv.yaml", []byte(text))
	var ce *errkind.ConfigError
	want := "smoke.mcpv.yaml is not trusted: a test file found without being named runs only once trusted; review it, then run: mcpv trust smoke.mcpv.yaml (or name it: mcpv test smoke.mcpv.yaml)"
	if !errors.As(err, &ce) || err.Error() != want {
		t.Errorf("untrusted: %v", err)
	}
	rec, err := Trust(store, cwd, "smoke.mcpv.yaml", false)
	if err != nil || rec["file"] != path || rec["test"] != true || len(rec["sha256"].(string)) != 64 {
		t.Fatalf("Trust = %v, %v", rec, err)
	}
	if err := CheckFound(store, cwd, "smoke.mcpv.yaml", []byte(text)); err != nil {
		t.Errorf("trusted: %v", err)
	}
	if err := CheckFound(store, cwd, "smoke.mcpv.yaml", []byte(text+"  - info:\n")); !errors.As(err, &ce) {
		t.Errorf("changed: %v, want trust needed again", err)
	}
	rec, err = Trust(store, cwd, "smoke.mcpv.yaml", true)
	if err != nil || rec["file"] != path || rec["revoked"] != true {
		t.Errorf("revoke: %v, %v", rec, err)
	}
	if err := CheckFound(store, cwd, "smoke.mcpv.yaml", []byte(text)); err == nil {
		t.Error("revoked, yet trusted")
	}
}

func TestCheckFoundEscapesTheName(t *testing.T) {
	t.Parallel()
	store, cwd := world(t, nil)
	err := CheckFound(store, cwd, "a\x1b[2Jb c.mcpv.yaml", []byte("x"))
	if err == nil || strings.Contains(err.Error(), "\x1b") || !strings.Contains(err.Error(), `mcpv trust 'a\x1b[2Jb c.mcpv.yaml'`) {
		t.Errorf("CheckFound = %q", err)
	}
}

func TestTrustAConfigFile(t *testing.T) {
	t.Parallel()
	store, cwd := world(t, map[string]string{
		".mcp.json":           `{"mcpServers":{"b":{"command":"./b"},"a":{"command":"./a"}}}`,
		"broken/.mcp.json":    `{"mcpServers":`,
		"mcpv-tests/bad.yaml": "steps: [\n",
	})
	rec, err := Trust(store, cwd, ".mcp.json", false)
	if err != nil || rec["file"] != filepath.Join(cwd, ".mcp.json") || strings.Join(rec["servers"].([]string), " ") != "b a" {
		t.Fatalf("Trust = %v, %v", rec, err)
	}
	if ok, err := store.Trusted(filepath.Join(cwd, ".mcp.json"), []byte(`{"mcpServers":{"b":{"command":"./b"},"a":{"command":"./a"}}}`)); !ok || err != nil {
		t.Errorf("the store does not hold the trust: %v, %v", ok, err)
	}
	var ce *errkind.ConfigError
	if _, err := Trust(store, cwd, "broken/.mcp.json", false); !errors.As(err, &ce) {
		t.Errorf("a broken config file: %v, want a *errkind.ConfigError", err)
	}
	if _, err := Trust(store, cwd, "mcpv-tests/bad.yaml", false); !errors.As(err, &ce) || !strings.Contains(err.Error(), "mcpv-tests/bad.yaml") {
		t.Errorf("a test file that is no YAML: %v, want a *errkind.ConfigError naming it", err)
	}
	var ue *errkind.UsageError
	if _, err := Trust(store, cwd, "gone.mcpv.yaml", false); !errors.As(err, &ue) {
		t.Errorf("a missing test file: %v, want a *errkind.UsageError", err)
	}
}

func TestPathIsAsFound(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	_, cwd := world(t, map[string]string{"real.json": "{}"})
	os.Symlink(filepath.Join(cwd, "real.json"), filepath.Join(cwd, ".mcp.json"))
	if got := Path(cwd, ".mcp.json"); got != filepath.Join(cwd, ".mcp.json") {
		t.Errorf("Path = %s, want the link's own path", got)
	}
}
