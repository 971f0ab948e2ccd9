// Package pipeclient serves mcptest's fakes on pipes in the test process
// (no program to start, nothing to listen on): a client of a fixture
// server (Client), and the start of a command's server that serves the
// fake in process where the process is not the test's subject
// (StartServer).
package pipeclient

import (
	"context"
	"io"
	"log/slog"
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
	tr := Serve(func(in io.Reader, out io.Writer) { mcptest.ServeSpec(s, in, out) }, nil)
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
// which serves the fake too) as a fake that needs
// no process of its own (mcptest.NewInProcess), the fake is served in
// this process, on pipes. It is what a test puts where a command's
// server is started (connect.Env.StartServer).
func StartServer(opts mcp.CommandOptions) (mcp.Transport, error) {
	if opts.Path != mcptest.Program() && opts.Path != os.Args[0] || opts.Junk != nil {
		return mcp.StartCommand(opts)
	}
	f, err := mcptest.NewInProcess(opts.Env, opts.Dir)
	if err != nil || f == nil {
		return mcp.StartCommand(opts)
	}
	return Serve(f.Serve, opts.Log).AsServerStdout(), nil
}

// Serve is a transport to a server that serve runs in this process on
// pipes: serve reads what the client writes until it ends, and writes
// the answers. Closing the transport ends what the client writes, and
// what it reads once serve has returned.
func Serve(serve func(in io.Reader, out io.Writer), log *slog.Logger) *mcp.StreamTransport {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	go func() { serve(toServer, fromServer); fromServer.Close(); toServer.Close() }() // ends when the client closes its side
	return mcp.NewStreamTransport(toClient, fromClient, func() error { fromClient.Close(); return toClient.Close() }, log)
}
