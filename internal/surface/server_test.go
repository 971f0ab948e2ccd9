package surface

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/mcp/mcptest/pipeclient"
)

// pipeTransport carries newline-delimited messages to a fixture server
// running in the test process.
type pipeTransport struct {
	in   *bufio.Reader  // from the server
	inR  *io.PipeReader // the same, to close
	out  *io.PipeWriter // to the server
	done chan struct{}  // closed when the server has returned
}

func (p *pipeTransport) Read() ([]byte, error) {
	for {
		line, err := p.in.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			return t, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (p *pipeTransport) Write(_ context.Context, msg []byte) error {
	_, err := p.out.Write(append(slices.Clip(msg), '\n'))
	return err
}

func (p *pipeTransport) Close(context.Context) error {
	p.out.Close() // the server reads EOF and returns
	<-p.done
	p.inR.Close()
	return nil
}

// serve runs a fixture server of spec over pipes and returns a client that
// has negotiated with it as mcpv does by default (server/discover first,
// then initialize), closed when the test ends.
func serve(t *testing.T, spec *mcptest.Spec) *mcp.Client {
	t.Helper()
	return connect(t, pipes(spec))
}

// pipes runs a fixture server of spec over pipes, and is the transport to
// it.
func pipes(spec *mcptest.Spec) *pipeTransport {
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	done := make(chan struct{})
	go func() { // stops when the transport closes the server's stdin
		defer close(done)
		mcptest.ServeSpec(spec, toServerR, fromServerW)
		fromServerW.Close()
	}()
	return &pipeTransport{in: bufio.NewReader(fromServerR), inR: fromServerR, out: toServerW, done: done}
}

// connect initializes a client over tr and closes it when the test ends.
func connect(t *testing.T, tr mcp.Transport) *mcp.Client {
	t.Helper()
	s := mcp.NewSession(tr, mcp.SessionOptions{})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	c, err := mcp.Initialize(ctx, s, mcp.ClientOptions{
		Info:    mcp.Implementation{Name: "surface-test", Version: "0"},
		Probe:   true,
		Timeout: 10 * time.Second,
	})
	if err != nil {
		s.Close(context.Background())
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// loadSpec reads a spec from testdata.
func loadSpec(t *testing.T, name string) *mcptest.Spec {
	t.Helper()
	spec, err := mcptest.LoadSpec(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// parseSpec reads a spec written in a test.
func parseSpec(t *testing.T, text string) *mcptest.Spec {
	t.Helper()
	spec, err := mcptest.ParseSpec([]byte(text))
	if err != nil {
		t.Fatalf("spec: %v\n%s", err, text)
	}
	return spec
}

// TestMain lets this test binary be the fixture server as a program (see
// startFixtureServer).
func TestMain(m *testing.M) {
	if mcptest.RunIfRequested() {
		return
	}
	os.Exit(mcptest.GuardSuite(m.Run))
}

// startFixtureServer starts the fixture server, this test binary with
// spec=FILE (served in this process), with a spec file from testdata.
func startFixtureServer(t *testing.T, spec string) *mcp.Client {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("testdata", spec))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	tr, err := pipeclient.StartServer(mcp.CommandOptions{Path: os.Args[0], Env: append(os.Environ(), mcptest.EnvVar+"=spec="+path), Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, tr)
}
