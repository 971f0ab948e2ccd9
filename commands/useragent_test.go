package commands

import (
	"strings"
	"testing"
)

// A User-Agent given with -H is the run's, on the MCP server's requests
// and the authorization server's alike.
func TestUserAgentFromHeaderFlag(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	srv.Clients["ci-bot"] = "ci-secret-value-123"
	w.setenv("MCPV_CLIENT_SECRET", "ci-secret-value-123")
	r := w.mcpv(t, "", "-H", "User-Agent: probe/1", "--grant", "client-credentials", "--client-id", "ci-bot",
		"-u", srv.URL(), "ping")
	if r.code != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	agents := srv.Agents()
	for _, req := range []string{"POST /mcp", "POST /token"} {
		if _, ok := agents[req]; !ok {
			t.Errorf("no %s among %v", req, agents)
		}
	}
	metadata := false
	for req, agent := range agents {
		metadata = metadata || strings.HasPrefix(req, "GET /.well-known/")
		if agent != "probe/1" {
			t.Errorf("%s: User-Agent %q, want probe/1", req, agent)
		}
	}
	if !metadata {
		t.Errorf("no metadata request among %v", agents)
	}
}
