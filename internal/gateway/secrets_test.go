package gateway

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
)

// TestGatewaySecretsStayInside: behind one endpoint, two servers each
// echoing the credentials they are sent: a client of the endpoint, on
// stdio and HTTP, and a client of each server's own path, find neither
// server's credentials in anything they receive (server info and
// instructions merged, descriptions, results, errors, log messages).
func TestGatewaySecretsStayInside(t *testing.T) {
	t.Parallel()
	tokens := map[string]string{"alpha": "alpha-s3cr3t-t0ken", "beta": "beta-s3cr3t-t0ken"}
	var members []testMember
	for _, name := range []string{"alpha", "beta"} {
		header := http.Header{"Authorization": {"Bearer " + tokens[name]}}
		members = append(members, testMember{name: name, settings: servetest.Settings(servetest.EchoHeaders(t), "legacy", header)})
	}
	g, _ := startGateway(t, members...)
	_, base := gatewayHTTP(t, g, nil)
	stdio, stdioRec := servetest.StdioClient(t, g.Server(), "legacy")
	web, webRec := servetest.HTTPClient(t, base, "legacy", "http")
	modern, modernRec := servetest.HTTPClient(t, base, "modern", "modern")
	alone, aloneRec := servetest.HTTPClient(t, base+"/beta", "legacy", "alone")
	for name, c := range map[string]*mcp.Client{"stdio": stdio, "http": web, "modern": modern} {
		listAll(t, c, "tools/list", "tools")
		for _, m := range []string{"alpha", "beta"} {
			if res := servetest.Call(t, c, "tools/call", `{"name":"`+m+`__headers","arguments":{}}`); !strings.Contains(string(res), "***") {
				t.Errorf("%s: %s's echo is not there, masked: %s", name, m, res)
			}
		}
		if _, err := c.Call(t.Context(), "prompts/get", json.RawMessage(`{"name":"alpha__x"}`)); err == nil {
			t.Errorf("%s: prompts/get: want the server's error", name)
		}
	}
	if res := servetest.Call(t, alone, "tools/call", `{"name":"headers","arguments":{}}`); !strings.Contains(string(res), "***") {
		t.Errorf("beta alone: its echo is not there, masked: %s", res)
	}
	for name, rec := range map[string]*servetest.Recorder{"stdio": stdioRec, "http": webRec, "modern": modernRec, "alone": aloneRec} {
		got := rec.All()
		if len(got) < 3 {
			t.Fatalf("%s: the client received %d messages", name, len(got))
		}
		for _, m := range got {
			for _, secret := range tokens {
				if strings.Contains(string(m), secret) {
					t.Errorf("%s: a client received a secret: %.300s", name, m)
				}
			}
		}
	}
}
