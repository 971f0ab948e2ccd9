package commands

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A summary never says "passed" before an exit that is not 0: audit --all
// of a clean server beside a project's .mcp.json that is not trusted
// (its stdio server does not run) says the run failed, in the text and in
// the JSON report, and exits 2 as the untrusted server does.
func TestAuditSummaryOfAnIncompleteRun(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	clean := newMovingServer(t, `{"serverInfo":{"name":"clean"},"tools":[{"name":"add","description":"Adds two numbers.","inputSchema":{"type":"object"}}]}`)
	conf, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"clean": map[string]any{"command": clean.cmd[3], "env": map[string]string{mcptest.EnvVar: "spec=" + clean.spec, "GORACE": "atexit_sleep_ms=0"}}}})
	w.write(t, w.home+"/.config/mcpv/servers.json", string(conf))
	w.write(t, ".mcp.json", `{"mcpServers":{"cloned":{"command":"sh","args":["-c","true"]}}}`)

	r := w.mcpv(t, "", "audit", "--all")
	if r.code != 2 || strings.Contains(r.stdout, "passed") || !strings.Contains(r.stdout, "; failed: 1 server could not be audited") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 2 and a summary that says the run failed", r.code, r.stdout, r.stderr)
	}
	r = w.mcpv(t, "", "audit", "--all", "--format", "json")
	var rep struct{ Failed bool }
	if r.code != 2 || json.Unmarshal([]byte(r.stdout), &rep) != nil || !rep.Failed {
		t.Errorf("JSON: exit %d, %s; want 2 and failed: true", r.code, r.stdout)
	}
}
