package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/exitcode"
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

// In CI (the CI variable set, or --ci), a missing snapshot fails its step
// with the command that records it, instead of being written unseen.
func TestTestMissingSnapshotInCI(t *testing.T) {
	t.Parallel()
	file := "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": plain}\nsteps:\n  - snapshot: s.json\n"
	fail := "✗ snapshot s.json"
	why := "s.json does not exist, and a missing snapshot is not written in CI (--ci): record it with 'mcpv test --no-ci t.yaml' and commit it"
	tests := []struct {
		name    string
		ci      string // the CI variable, if set
		args    []string
		written bool
	}{
		{"CI set", "true", nil, false},
		{"CI=1", "1", nil, false},
		{"--ci", "", []string{"--ci"}, false},
		{"CI set, --no-ci", "true", []string{"--no-ci"}, true},
		{"CI set, --update", "true", []string{"--update"}, true},
		{"CI=false", "false", nil, true},
		{"not in CI", "", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, dir := testWorld(t, map[string]string{"t.yaml": file})
			if tt.ci != "" {
				w.setenv("CI", tt.ci)
			}
			r := w.mcpv(t, "", append(append([]string{"test"}, tt.args...), "t.yaml")...)
			_, err := os.Stat(filepath.Join(dir, "s.json"))
			switch {
			case tt.written && (r.code != 0 || err != nil || !strings.Contains(r.stdout, "written to s.json")):
				t.Errorf("exit %d, snapshot %v:\n%s", r.code, err, r.stdout)
			case !tt.written && (r.code != exitcode.ToolError || err == nil || !strings.Contains(r.stdout, fail) || !strings.Contains(r.stdout, why)):
				t.Errorf("exit %d, snapshot written: %v:\n%s", r.code, err == nil, r.stdout)
			}
		})
	}
}

// --snapshot and --lint list the server once between them; a command
// step between two surface steps has them list it again.
func TestTestSnapshotAndLintListOnce(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "log")
	server := "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": 'pages=3', " + mcptest.EnvLog + ": '" + log + "'}\n"
	w, dir := testWorld(t, map[string]string{
		"t.yaml": server + "steps:\n  - ping:\n",
		"u.yaml": server + "steps:\n  - snapshot: u.json\n  - ping:\n  - lint:\n",
	})
	pages := func() int {
		data, _ := os.ReadFile(log)
		os.Remove(log)
		return strings.Count(string(data), `"method":"tools/list"`)
	}
	if r := w.mcpv(t, "", "test", "--snapshot", "--lint", "t.yaml"); r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stdout)
	}
	if n := pages(); n != 3 {
		t.Errorf("--snapshot --lint asked for %d pages of tools, want the 3 once", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "t.snapshot.json")); err != nil {
		t.Error(err)
	}
	if r := w.mcpv(t, "", "test", "u.yaml"); r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stdout)
	}
	if n := pages(); n != 6 {
		t.Errorf("with a step between, %d pages of tools, want 6", n)
	}
}

// Under --lint, a server's stray output on stdout is a finding of the lint
// step, in every report format, not only in the JSON report's stderr.
func TestTestLintReportsStrayOutput(t *testing.T) {
	t.Parallel()
	w, _ := testWorld(t, map[string]string{"t.yaml": "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": 'junk'}\nsteps:\n  - ping:\n"})
	finding := `[stray-output]`
	for _, format := range []string{"text", "junit", "tap", "json"} {
		r := w.mcpv(t, "", "test", "--lint", "--format", format, "t.yaml")
		report := r.stdout
		if format == "json" {
			// Beyond the stderr tail, where the warnings were before.
			var raw struct {
				Files []struct {
					Steps []struct {
						Name  string
						Notes []string
					}
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil || len(raw.Files) != 1 {
				t.Fatalf("json: %v: %s", err, r.stdout)
			}
			report = strings.Join(raw.Files[0].Steps[0].Notes, "\n")
		}
		if r.code != 0 || strings.Count(report, finding) != 1 || !strings.Contains(report, `this is not JSON`) {
			t.Errorf("%s: exit %d, stderr %q:\n%s", format, r.code, r.stderr, r.stdout)
		}
	}
	if r := w.mcpv(t, "", "test", "t.yaml"); strings.Contains(r.stdout, finding) {
		t.Errorf("without --lint:\n%s", r.stdout)
	}
}

// The command a CI failure names for a missing snapshot records it, also
// when --snapshot made the step: run as printed, it writes the file.
func TestTestMissingSnapshotCommandRecordsIt(t *testing.T) {
	t.Parallel()
	file := "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": plain}\nsteps:\n  - ping:\n"
	w, dir := testWorld(t, map[string]string{"t.yaml": file})
	w.setenv("CI", "true")
	r := w.mcpv(t, "", "test", "--snapshot", "t.yaml")
	m := regexp.MustCompile(`record it with '([^']*)'`).FindStringSubmatch(r.stdout)
	if r.code != exitcode.ToolError || m == nil {
		t.Fatalf("exit %d, no command named:\n%s", r.code, r.stdout)
	}
	words := strings.Fields(m[1])
	if r := w.mcpv(t, "", words[1:]...); r.code != 0 {
		t.Fatalf("%s: exit %d\n%s", m[1], r.code, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "t.snapshot.json")); err != nil {
		t.Errorf("%s did not record the snapshot: %v", m[1], err)
	}
}
