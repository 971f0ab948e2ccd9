// Package pipeclient serves mcptest's fakes on pipes in the test process
// (no program to start, nothing to listen on): a client of a fixture
// server (Client), and the start of a command's server that serves the
// fake so where the process is not the test's subject (StartServer).
package pipeclient

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// Client is a client, initialized with opts, of a fixture server of spec
// (mcptest's JSON spec); the session closes when the test ends, which ends
// the server.
func Client(t testing.TB, spec string, opts mcp.ClientOptions) *mcp.Client {
	t.Helper()
	s, err := mcptest.ParseSpec([]byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := mcp.StartCommand(mcp.CommandOptions{Path: "fixture", Serve: func(in io.Reader, out, _ io.Writer) error {
		mcptest.ServeSpec(s, in, out)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	sess := mcp.NewSession(tr, mcp.SessionOptions{})
	t.Cleanup(func() { sess.Close(context.Background()) })
	c, err := mcp.Initialize(context.Background(), sess, opts)
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c
}

// StartServer starts the server opts name as mcp.StartCommand does, with
// one difference: where opts start mcptest.Program (or the test binary,
// which serves the fake too) as a fake that needs no process of its own
// (mcptest.NewInProcess), the fake is served in this process, on the
// pipes a process would have (mcp.CommandOptions.Serve). It is what a
// test puts where a command's server is started (connect.Env.StartServer).
func StartServer(opts mcp.CommandOptions) (*mcp.CommandTransport, error) {
	if opts.Serve == nil && (opts.Path == mcptest.Program() || opts.Path == os.Args[0]) {
		if f, err := mcptest.NewInProcess(opts.Env, opts.Dir); err == nil && f != nil {
			opts.Serve = func(in io.Reader, out, _ io.Writer) error { f.Serve(in, out); return nil }
		}
	}
	return mcp.StartCommand(opts)
}
