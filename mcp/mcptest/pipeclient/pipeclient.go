// Package pipeclient serves mcptest's fakes on pipes in the test process
// (no program to start, nothing to listen on): a client of a fixture
// server (Client), and the start of a command's server that serves the
// fake so where the process is not the test's subject (StartServer).
package pipeclient

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
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
	tr, err := mcp.StartCommand(mcp.CommandOptions{Path: "fixture", Serve: func(in io.ReadCloser, out, _ io.WriteCloser) error {
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
// one difference: where opts start the test binary as the demo server
// (DemoEnv), or mcptest.Program (or the test binary, which serves the
// fake too) as a fake that needs no process of its own
// (mcptest.NewInProcess), the server is served in this process, on the
// pipes a process would have (mcp.CommandOptions.Serve). It is what a
// test puts where a command's server is started (connect.Env.StartServer).
func StartServer(opts mcp.CommandOptions) (*mcp.CommandTransport, error) {
	if v, ok := mcptest.EnvValue(opts.Env, DemoEnv); ok && v != "" && opts.Path == os.Args[0] && len(opts.Args) == 0 {
		opts.Serve = func(in io.ReadCloser, out, _ io.WriteCloser) error {
			// It ends at the end of its stdin, as the process does.
			return demoserver.NewWith(demoOptions(v)).Run(context.Background(), &sdk.IOTransport{Reader: in, Writer: out})
		}
	} else if opts.Serve == nil && mcptest.IsProgram(opts.Path) {
		if f, err := mcptest.NewInProcess(opts.Env, opts.Dir); err == nil && f != nil {
			opts.Serve = func(in io.ReadCloser, out, _ io.WriteCloser) error { f.Serve(in, out); return nil }
		}
	}
	return mcp.StartCommand(opts)
}

// DemoEnv makes a test binary that calls RunDemoIfRequested the go-sdk
// demo server (internal/demoserver) over stdio: 1, or options separated
// by ";": ttl=DURATION, private, versions=V1,V2. StartServer serves it in
// the process.
const DemoEnv = "MCPV_DEMO"

// RunDemoIfRequested serves the demo server on stdin and stdout, and
// exits, when DemoEnv asks for it; it returns false when not.
func RunDemoIfRequested() bool {
	v := os.Getenv(DemoEnv)
	if v == "" {
		return false
	}
	if err := demoserver.NewWith(demoOptions(v)).Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
	os.Exit(0)
	return true
}

// demoOptions are the demo server's options that DemoEnv's value v says.
func demoOptions(v string) demoserver.Options {
	var opts demoserver.Options
	for o := range strings.SplitSeq(v, ";") {
		key, value, _ := strings.Cut(o, "=")
		switch key {
		case "ttl":
			opts.TTL, _ = time.ParseDuration(value)
		case "private":
			opts.Private = true
		case "versions":
			opts.Versions = strings.Split(value, ",")
		}
	}
	return opts
}
