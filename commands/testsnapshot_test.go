package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A server that declares resources but answers resources/templates/list
// with "method not found", as many do, passes a snapshot step: the list
// is empty, recorded as such and noted once; lint warns, and passes.
func TestTestSnapshotOfAnUnimplementedList(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, map[string]string{"t.yaml": "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": 'plain,not-found=resources/templates/list'}\nsteps:\n  - snapshot: s.json\n  - lint:\n"})
	r := w.mcpv(t, "", "test", "t.yaml")
	note := "the server answers resources/templates/list with method not found: taken as empty"
	if r.code != 0 || strings.Count(r.stdout, note) != 1 || !strings.Contains(r.stdout, "written to s.json") ||
		!strings.Contains(r.stdout, `warning: capabilities: "resources" is declared, but resources/templates/list answers method not found (taken as an empty list) [capabilities]`) {
		t.Fatalf("exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "s.json"))
	s, err := surface.ParseSnapshot(data)
	if err != nil || len(s.Tools) == 0 || len(s.ResourceTemplates) != 0 || strings.Join(s.Unimplemented, ",") != "resources/templates/list" {
		t.Errorf("snapshot %v:\n%s", err, data)
	}
	if r := w.mcpv(t, "", "test", "t.yaml"); r.code != 0 || strings.Count(r.stdout, note) != 1 {
		t.Errorf("again: exit %d:\n%s", r.code, r.stdout)
	}
}
