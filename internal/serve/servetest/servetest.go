// Package servetest is what the tests of serve and of the gateway above
// it share: the servers behind them (the test binary as a fake server or
// as the demo server, the go-sdk demo and a server of listens over
// HTTP), sessions opened for a serve.Server as the command line opens
// them, and clients of serve on pipes and over HTTP, each keeping what
// it received. It names none of serve's types: serve's own tests import
// it.
package servetest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/mcp/mcptest/pipeclient"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main runs a package's tests, or makes the test binary the server
// FakeStdio or DemoStdio started.
func Main(m *testing.M) {
	if mcptest.RunIfRequested() || pipeclient.RunDemoIfRequested() {
		return
	}
	os.Exit(mcptest.GuardSuite(m.Run))
}

// FakeStdio is mcptest's fake server over stdio (the test binary, with
// Main) behaving as behaviours says.
func FakeStdio(behaviours string) *connect.Settings {
	return &connect.Settings{Command: []string{os.Args[0]}, Env: append(os.Environ(), mcptest.EnvVar+"="+behaviours),
		ProtocolEra: "legacy", ConnectTimeout: 30 * time.Second}
}

// DemoStdio is the demo server over stdio (the test binary, with Main).
func DemoStdio() *connect.Settings {
	return &connect.Settings{Command: []string{os.Args[0]}, Env: append(os.Environ(), pipeclient.DemoEnv+"=1"),
		ProtocolEra: "legacy", ConnectTimeout: 30 * time.Second}
}

// DemoURL serves the go-sdk demo server over Streamable HTTP: stateless
// for the modern era, which has no sessions.
func DemoURL(t testing.TB, era string) string {
	t.Helper()
	return Streamable(t, demoserver.New(), era)
}

// Streamable serves s over Streamable HTTP (stateless for era modern)
// until the test ends, and is its URL.
func Streamable(t testing.TB, s *sdk.Server, era string) string {
	ts := httptest.NewServer(testkit.FailOnPanic(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, &sdk.StreamableHTTPOptions{Stateless: era == "modern"})))
	t.Cleanup(ts.Close)
	return ts.URL
}

// Settings reach url, in era (legacy, modern or auto), with header sent
// on every request.
func Settings(url, era string, header http.Header) *connect.Settings {
	s := &connect.Settings{URL: url, Mode: mcp.ModeAuto, ProtocolEra: era, ConnectTimeout: 30 * time.Second,
		Header: header, Auth: connect.Auth{Mode: "none"}}
	for _, vs := range header {
		s.Secrets = append(s.Secrets, vs...)
	}
	return s
}

// Opener opens sessions to what s describes as the command line opens
// one for serve, with hooks (a serve.Relay's): the client, how it finds a
// tool's definition and how it ends, for serve.ClientUpstream.
func Opener(t testing.TB, s *connect.Settings) func(ctx context.Context, hooks connect.Hooks) (*mcp.Client, func(context.Context, string) (json.RawMessage, bool), func(), error) {
	env := connect.Env{Cwd: t.TempDir(), GOOS: runtime.GOOS, StartServer: pipeclient.StartServer}
	return func(ctx context.Context, hooks connect.Hooks) (*mcp.Client, func(context.Context, string) (json.RawMessage, bool), func(), error) {
		hooks.Client, hooks.LogsElsewhere, hooks.NoteBackPressure = mcp.Implementation{Name: "mcpv", Version: "test"}, true, true
		c, err := connect.Open(ctx, s, env, hooks)
		if err != nil {
			return nil, nil, nil, err
		}
		return c.Client, func(ctx context.Context, name string) (json.RawMessage, bool) {
			t, err := c.Tools.Find(ctx, c.Client, name)
			return t.Raw, err == nil
		}, c.Close, nil
	}
}

// Recorder is a transport that keeps a copy of everything it reads: all
// that a client ever receives.
type Recorder struct {
	mcp.Transport
	mu  sync.Mutex // guards got
	got [][]byte
}

func (r *Recorder) Read() ([]byte, error) {
	b, err := r.Transport.Read()
	if err == nil {
		r.mu.Lock()
		r.got = append(r.got, append([]byte(nil), b...))
		r.mu.Unlock()
	}
	return b, err
}

// SetProtocolVersion passes the version on, for the HTTP transport's
// MCP-Protocol-Version header.
func (r *Recorder) SetProtocolVersion(v string) {
	if vs, ok := r.Transport.(mcp.VersionSetter); ok {
		vs.SetProtocolVersion(v)
	}
}

// ConcurrentWrites passes the transport's answer on.
func (r *Recorder) ConcurrentWrites() bool {
	cw, ok := r.Transport.(mcp.ConcurrentWriter)
	return ok && cw.ConcurrentWrites()
}

// Saw reports whether a message the client received holds text.
func (r *Recorder) Saw(text string) bool {
	return slices.ContainsFunc(r.All(), func(m []byte) bool { return strings.Contains(string(m), text) })
}

// All are the messages the client received.
func (r *Recorder) All() [][]byte { r.mu.Lock(); defer r.mu.Unlock(); return r.got }

// WaitMessage waits for the first notification of method the client
// received, and returns it.
func (r *Recorder) WaitMessage(t testing.TB, method string) string {
	t.Helper()
	var i int
	WaitFor(t, method, func() bool {
		i = slices.IndexFunc(r.All(), func(m []byte) bool { return strings.Contains(string(m), `"method":"`+method+`"`) })
		return i >= 0
	})
	return string(r.All()[i])
}

// Answers is the handler of a downstream client: it answers elicitation,
// sampling and roots with fixed results naming who answers.
func Answers(who string) mcp.RequestHandler {
	return func(_ context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
		switch method {
		case "elicitation/create":
			return json.RawMessage(`{"action":"accept","content":{"name":"` + who + `","age":7}}`), nil
		case "sampling/createMessage":
			return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"` + who + `"},"model":"m"}`), nil
		case "roots/list":
			return json.RawMessage(`{"roots":[{"uri":"file:///` + who + `","name":"` + who + `"}]}`), nil
		}
		return nil, mcp.MethodNotFound(method)
	}
}

// ClientCaps are what a client declares: every capability a server may
// ask it for.
const ClientCaps = `{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{}}}`

// Streamer serves one client on a pair of streams (serve.Server).
type Streamer interface {
	ServeStream(ctx context.Context, r io.Reader, w io.Writer, closeIn func() error) error
}

// StdioClient serves srv to mcpv's own client over a pair of pipes, and
// returns the client, initialized in era (legacy or modern).
func StdioClient(t testing.TB, srv Streamer, era string) (*mcp.Client, *Recorder) {
	t.Helper()
	return StdioClientDeclaring(t, srv, era, ClientCaps)
}

// StdioClientDeclaring is StdioClient declaring the capabilities caps.
func StdioClientDeclaring(t testing.TB, srv Streamer, era, caps string) (*mcp.Client, *Recorder) {
	t.Helper()
	upR, upW := io.Pipe()     // client -> serve
	downR, downW := io.Pipe() // serve -> client
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.ServeStream(ctx, upR, downW, upR.Close); downW.Close() }()
	rec := &Recorder{Transport: mcp.NewStreamTransport(downR, upW, func() error { upW.Close(); return downR.Close() }, nil)}
	sess := mcp.NewSession(rec, mcp.SessionOptions{Handler: Answers("stdio")})
	t.Cleanup(func() {
		sess.Close(context.Background())
		cancel()
		<-served
	})
	return InitializeDeclaring(t, sess, era, caps), rec
}

// InitializeDeclaring initializes a client on sess in era, declaring
// caps.
func InitializeDeclaring(t testing.TB, sess *mcp.Session, era, caps string) *mcp.Client {
	t.Helper()
	opts := mcp.ClientOptions{Info: mcp.Implementation{Name: "downstream", Version: "1"}, Capabilities: json.RawMessage(caps)}
	if era == "modern" {
		opts.ProtocolVersion = mcp.ModernVersion
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcp.Initialize(ctx, sess, opts)
	if err != nil {
		t.Fatalf("initialize through serve: %v", err)
	}
	return c
}

// HTTPClient is mcpv's own client of an HTTP endpoint, initialized in
// era; who names it in its answers.
func HTTPClient(t testing.TB, url, era, who string) (*mcp.Client, *Recorder) {
	t.Helper()
	return httpClient(t, url, era, who, nil)
}

// Authed is mcpv's client of url with a bearer token, in era; the token
// names it in its answers.
func Authed(t testing.TB, url, token, era string) (*mcp.Client, *Recorder) {
	t.Helper()
	return httpClient(t, url, era, token, http.Header{"Authorization": {"Bearer " + token}})
}

func httpClient(t testing.TB, url, era, who string, header http.Header) (*mcp.Client, *Recorder) {
	t.Helper()
	tr, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: url, Mode: mcp.ModeStreamable, Header: header})
	if err != nil {
		t.Fatal(err)
	}
	rec := &Recorder{Transport: tr}
	sess := mcp.NewSession(rec, mcp.SessionOptions{Handler: Answers(who)})
	t.Cleanup(func() { sess.Close(context.Background()) })
	return InitializeDeclaring(t, sess, era, ClientCaps), rec
}

// Call sends a request, which must succeed.
func Call(t testing.TB, c *mcp.Client, method, params string) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.Call(ctx, method, json.RawMessage(params))
	if err != nil {
		t.Fatalf("%s %s: %v", method, params, err)
	}
	return res
}

// WaitFor waits for cond, failing only as the test's own deadline (go
// test -timeout) nears: no bound of its own, which a busy machine could
// miss (30 s was, in a race run at load).
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if end, ok := d.Deadline(); ok {
			deadline = end.Add(-30 * time.Second)
		}
	}
	for ; !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Calls sends a request for as long as the benchmark loops.
func Calls(b *testing.B, c *mcp.Client, method, params string) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.Call(ctx, method, json.RawMessage(params)); err != nil {
			b.Fatal(err)
		}
	}
}
