package commands

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// search asks every configured server at once and ranks what they offer;
// a server that cannot start, or (in the long tier, which waits for it)
// does not list within --wait, is said on stderr and in "failed", and the
// others' hits are printed, each with the command that uses it.
func TestSearchEveryServer(t *testing.T) {
	t.Parallel()
	t.Run("quick", func(t *testing.T) { searchEveryServer(t, false) })
	t.Run("a server slower than --wait", func(t *testing.T) {
		testkit.SkipLong(t, "waits --wait (10 s) for a server that starts in 10 minutes")
		searchEveryServer(t, true)
	})
}

func searchEveryServer(t *testing.T, slow bool) {
	t.Parallel()
	w := newCfgWorld(t)
	mail := newMovingServer(t, `{"serverInfo":{"name":"mail"},"tools":[{"name":"send_email","description":"Sends an email.\nTo anyone.","inputSchema":{"type":"object","properties":{"to":{"type":"string"}}}},{"name":"list_folders","inputSchema":{"type":"object"}}]}`)
	files := newMovingServer(t, `{"serverInfo":{"name":"files"},"tools":[{"name":"read_file","description":"Reads a file; can email it too.","inputSchema":{"type":"object"}}]}`)
	entry := func(s *movingServer, more string) map[string]any {
		return map[string]any{"command": s.cmd[3], "env": map[string]string{mcptest.EnvVar: "spec=" + s.spec + more}}
	}
	servers := map[string]any{"mail": entry(mail, ""), "files": entry(files, ""), "broken": map[string]any{"command": filepath.Join(w.root, "no-such-server")}}
	// The healthy servers list within --wait however loaded the machine:
	// ten seconds against the tenth of one they take at rest.
	wait := "60s"
	if slow {
		servers["slow"], wait = entry(files, ",slow-start=600000"), "10s"
	}
	conf, _ := json.Marshal(map[string]any{"mcpServers": servers})
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.json"), string(conf))

	r := w.mcpv(t, "", "search", "--wait", wait, "email")
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
	if failed["broken"] == "" || !strings.Contains(r.stderr, `server "broken" could not be searched`) ||
		slow && (len(failed) != 2 || !strings.Contains(failed["slow"], "10s (--wait)") || !strings.Contains(r.stderr, `server "slow" could not be searched`)) ||
		!slow && len(failed) != 1 {
		t.Errorf("failed: %v; stderr %q", got.Failed, r.stderr)
	}
	if r := w.mcpv(t, "", "search", "--", "--"); r.code != 2 {
		t.Errorf("no words: exit %d, %s", r.code, r.stderr)
	}
}
