//go:build unix && e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// checkPending are the checks that fail, for what check does rather than
// what serve does, where serve asks for a bearer token: check takes a
// server that answers 401 for one that offers the authorization of
// OAuth, which serve does not (its token is its own). Every other check
// must pass there too.
var checkPending = map[string]bool{"auth.resource-metadata": true, "auth.metadata-location": true, "auth.server-metadata": true}

// TestServeCheckPasses: mcpv check holds every MUST of mcpv serve --http
// (exit 0), in front of one server and as a gateway of two (and of a
// server of 2025-11-25's tasks beside one of none), with a
// bearer token and without, its client speaking each era (with a token,
// no check fails but those of checkPending).
func TestServeCheckPasses(t *testing.T) {
	testkit.SkipLong(t, "runs mcpv check eight times against serve")
	t.Parallel()
	demo := `{"command": ` + jsonString(demoBin(t)) + `}`
	// s3 runs tasks as 2025-11-25 has them (the core capability): serve
	// speaks both eras in front of it, and the 2026-07-28 era's tasks
	// extension is not declared there
	spec := filepath.Join(t.TempDir(), "tasks.json")
	if err := os.WriteFile(spec, []byte(`{"tools":[{"name":"job","description":"A job.","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}],
		"capabilities":{"tools":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"tasks":{"steps":2,"pollMs":20}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := gatewayWorld(t, map[string]string{"s1": demo, "s2": demo, "s3": fakeEntry("spec=" + spec)})
	for _, setup := range []string{"one", "gateway", "tasks"} {
		for _, auth := range []string{"token", "none"} {
			t.Run(setup+"/"+auth, func(t *testing.T) {
				t.Parallel()
				args := []string{"serve", "--http", "127.0.0.1:0", "-s", "s1"}
				switch setup {
				case "gateway":
					args = append(args, "-s", "s2")
				case "tasks":
					args = append(args, "-s", "s3")
				}
				if auth == "none" {
					args = append(args, "--http-no-token")
				}
				cmd := exec.Command(mcpvBin, args...)
				cmd.Env = env
				stderr, _ := cmd.StderrPipe()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
				url, token := (&lineLog{}).follow(t, stderr)
				for _, era := range []string{"legacy", "modern"} {
					t.Run(era, func(t *testing.T) {
						checkArgs := []string{"--protocol-era", era, "-u", url}
						if token != "" {
							checkArgs = append(checkArgs, "-H", "Authorization: Bearer "+token)
						}
						checkArgs = append(checkArgs, "check", "--format", "json", "-r", "-q", `.areas[].checks[] | select(.status == "failed") | .id`)
						out, err := exec.Command(mcpvBin, checkArgs...).Output()
						var failed []string
						for _, id := range strings.Fields(string(out)) {
							if !(token != "" && checkPending[id]) {
								failed = append(failed, id)
							}
						}
						if code := exitCode(err); len(failed) > 0 || code > 1 || (code != 0 && token == "") {
							t.Errorf("mcpv check: exit %d; failed: %s", code, strings.Join(failed, " "))
						}
					})
				}
			})
		}
	}
}
