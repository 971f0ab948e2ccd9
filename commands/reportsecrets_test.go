package commands

import (
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A server that echoes a secret it inherited from mcpv's environment
// (not one given by --env or a header) cannot make a report show it:
// check's report, in each of its forms, masks it as the trace and the
// errors do.
func TestReportsMaskWhatAServerEchoes(t *testing.T) {
	t.Parallel()
	const inherited = "inherited-s3cret-4c1"
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "ping" {
			return false
		}
		x.Reply(`{"jsonrpc":"2.0","id":` + string(x.ID) + `,"error":{"code":-32000,"message":"ping refused for ` + inherited + `"}}`)
		return true
	}})
	env := with(testEnv(t), "SERVICE_API_TOKEN="+inherited)
	for _, format := range []string{"text", "json", "junit"} {
		r := mcpvIn(t, env, "", "check", "-u", srv.URL, "--protocol-era", "legacy", "--only", "lifecycle.ping", "--format", format)
		if r.code != 1 || !strings.Contains(r.stdout, "***") || strings.Contains(r.stdout+r.stderr, inherited) {
			t.Errorf("%s: exit %d, the secret shown or nothing masked:\nstdout %s\nstderr %s", format, r.code, r.stdout, r.stderr)
		}
	}
}
