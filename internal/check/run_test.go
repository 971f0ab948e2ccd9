package check

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A server slow to start is not a check that fails: the check's time
// stands while a server it started starts.
func TestStartUpIsNotTheChecksTime(t *testing.T) {
	testkit.SkipLong(t, "a server that starts 4 s late")
	t.Parallel()
	f := fake{transport: "stdio"}
	tg := f.target(t)
	var env string
	for _, e := range tg.Stdio.Env {
		if strings.HasPrefix(e, mcptest.EnvVar+"=") {
			env = e
		}
	}
	script := filepath.Join(t.TempDir(), "slow.sh")
	testkit.WriteScript(t, script, []byte("#!/bin/sh\nsleep 4\nexec env '"+env+"' '"+os.Args[0]+"'\n"), 0o755)
	tg.Stdio = &mcp.CommandOptions{Path: script}
	report, err := Run(context.Background(), tg, Options{Only: []string{"lifecycle.stdin-close", "lifecycle.version-echo"}, CheckTimeout: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range report.Results {
		if r.Status != Passed {
			t.Errorf("%s", describeResult(r))
		}
	}
}

// Against a server of the HTTP+SSE transport of 2024-11-05, the checks
// that need Streamable HTTP are skipped, saying so, and none fails for it.
func TestHTTPPlusSSEServer(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Legacy: true})
	info := mcp.Implementation{Name: "t", Version: "0"}
	tg := &Target{Server: "legacy", URL: srv.URL, Client: &http.Client{}, Plain: &http.Client{}, ClientInfo: info}
	tg.Open = func(ctx context.Context, h SessionHooks) (*mcp.Client, error) {
		tr, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: srv.URL})
		if err != nil {
			return nil, err
		}
		s := mcp.NewSession(tr, mcp.SessionOptions{Trace: h.Trace})
		c, err := mcp.Initialize(ctx, s, mcp.ClientOptions{Info: info})
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c, nil
	}
	report, err := Run(context.Background(), tg, Options{Only: []string{"http", "jsonrpc.unknown-method"}, CheckTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range report.Results {
		if r.Status != Skipped || !strings.Contains(r.Message, "HTTP+SSE") {
			t.Errorf("%s", describeResult(r))
		}
	}
}
