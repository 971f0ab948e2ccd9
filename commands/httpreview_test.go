package commands

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// Cases found in review: each once made mcpv hang, pick the wrong exit code
// or send a header where it must not go.

func TestHTTPRedirectToAnotherOriginRefused(t *testing.T) {
	t.Parallel()
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "" {
			leaked.Store(true)
		}
		w.WriteHeader(http.StatusTeapot)
	}))
	defer other.Close()
	f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		http.Redirect(x.W, x.R, other.URL+"/evil", http.StatusTemporaryRedirect)
		return true
	})
	r := mcpv(t, "", "-u", f.URL, "-H", "X-Api-Key: k", "ping")
	if r.code != 4 || !strings.Contains(r.stderr, "redirect to another origin") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if leaked.Load() {
		t.Error("the -H header reached another origin")
	}
}

func TestVerboseTraceMasksSecretArguments(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"-v", "call", "--no-validate", "echo", "message=hi", "api_key=s3cr3t-value", `auth:={"token":"s3cr3t-too"}`}, demo())...)
	if strings.Contains(r.stderr, "s3cr3t") {
		t.Errorf("the trace shows a secret:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, `"api_key":"***"`) {
		t.Errorf("the trace does not show the masked member:\n%s", r.stderr)
	}
}

func TestURLElicitationRequiredError(t *testing.T) {
	t.Parallel()
	f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" {
			return false
		}
		x.Reply(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32042,"message":"URL elicitation required","data":{"elicitations":[{"mode":"url","elicitationId":"e1","url":"https://auth.example.com/connect?x=1","message":"Connect your account"}]}}}`, x.ID))
		return true
	})
	r := mcpv(t, "", "-u", f.URL, "call", "x")
	if r.code != 3 || !strings.Contains(r.stderr, "https://auth.example.com/connect?x=1") || !strings.Contains(r.stderr, "Connect your account") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
