package commands

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// search asks every configured server at once and ranks what they offer;
// a server that cannot start, or does not list within --wait, is said on
// stderr and in "failed", and the others' hits are printed, each with the
// command that uses it.
func TestSearchEveryServer(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	mail := newMovingServer(t, `{"serverInfo":{"name":"mail"},"tools":[{"name":"send_email","description":"Sends an email.\nTo anyone.","inputSchema":{"type":"object","properties":{"to":{"type":"string"}}}},{"name":"list_folders","inputSchema":{"type":"object"}}]}`)
	files := newMovingServer(t, `{"serverInfo":{"name":"files"},"tools":[{"name":"read_file","description":"Reads a file; can email it too.","inputSchema":{"type":"object"}}]}`)
	entry := func(s *movingServer, more string) map[string]any {
		return map[string]any{"command": s.cmd[3], "env": map[string]string{mcptest.EnvVar: "spec=" + s.spec + more}}
	}
	conf, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"mail": entry(mail, ""), "files": entry(files, ""),
		"slow": entry(files, ",slow-start=30000"), "broken": map[string]any{"command": filepath.Join(w.root, "no-such-server")}}})
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.json"), string(conf))

	r := w.mcpv(t, "", "search", "--wait", "2s", "email")
	var got struct {
		Query string
		Hits  []struct {
			Server, Kind, Name, Description, Command string
			Tokens                                   int
		}
		Failed []struct{ Server, Error string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 || got.Query != "email" {
		t.Fatalf("exit %d (%v), stdout %q, stderr %q", r.code, err, r.stdout, r.stderr)
	}
	if len(got.Hits) != 2 || got.Hits[0].Name != "send_email" || got.Hits[0].Server != "mail" || got.Hits[0].Description != "Sends an email." ||
		got.Hits[0].Command != "mcpv call send_email -s mail --help" || got.Hits[0].Tokens == 0 || got.Hits[1].Name != "read_file" {
		t.Errorf("hits: %+v", got.Hits)
	}
	failed := map[string]string{}
	for _, f := range got.Failed {
		failed[f.Server] = f.Error
	}
	if len(failed) != 2 || !strings.Contains(failed["slow"], "2s (--wait)") || failed["broken"] == "" ||
		!strings.Contains(r.stderr, `server "broken" could not be searched`) || !strings.Contains(r.stderr, `server "slow" could not be searched`) {
		t.Errorf("failed: %v; stderr %q", got.Failed, r.stderr)
	}
	if r := w.mcpv(t, "", "search", "--", "--"); r.code != 2 {
		t.Errorf("no words: exit %d, %s", r.code, r.stderr)
	}
}
