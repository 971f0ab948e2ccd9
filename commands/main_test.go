package commands

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/output"
)

func TestMain(m *testing.M) {
	if mcptest.RunIfRequested() || runDemoIfRequested() || runBrowserIfRequested() {
		return
	}
	os.Exit(m.Run())
}

type result struct {
	code           int
	stdout, stderr string
}

// mcpv runs the command line in-process with the given stdin, as a pipe user would.
func mcpv(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	ios := output.NewStreams(strings.NewReader(stdin), &out, &errb)
	code := run(context.Background(), args, ios, os.Environ())
	return result{code, out.String(), errb.String()}
}

// fake returns the argument tail that starts this test binary as a fake server.
func fake(behaviour string) []string {
	return []string{"--env", mcptest.EnvVar + "=" + behaviour, "--", os.Args[0]}
}

func args(a ...[]string) []string {
	var out []string
	for _, x := range a {
		out = append(out, x...)
	}
	return out
}
