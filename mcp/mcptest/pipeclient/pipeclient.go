// Package pipeclient gives a test a client of a fixture server
// (mcptest.ServeSpec) served on pipes in the test process: no program to
// start, nothing to listen on.
package pipeclient

import (
	"context"
	"io"
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
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	go func() { mcptest.ServeSpec(s, toServer, fromServer); fromServer.Close() }() // ends when the session closes its side
	tr := mcp.NewStreamTransport(toClient, fromClient, func() error { fromClient.Close(); return toClient.Close() }, nil)
	sess := mcp.NewSession(tr, mcp.SessionOptions{})
	t.Cleanup(func() { sess.Close(context.Background()) })
	c, err := mcp.Initialize(context.Background(), sess, opts)
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return c
}
