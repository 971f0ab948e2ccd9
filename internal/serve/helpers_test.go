package serve

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// demoURL serves the go-sdk demo server over Streamable HTTP: stateless
// for the modern era, which has no sessions.
func demoURL(t testing.TB, era string) string {
	t.Helper()
	server := demoserver.New()
	opts := &sdk.StreamableHTTPOptions{Stateless: era == "modern"}
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, opts))
	t.Cleanup(ts.Close)
	return ts.URL
}

// settingsFor reaches url, in era (legacy, modern or auto), with header
// sent on every request.
func settingsFor(url, era string, header http.Header) *connect.Settings {
	s := &connect.Settings{URL: url, Mode: mcp.ModeAuto, ProtocolEra: era, ConnectTimeout: 30 * time.Second,
		Header: header, Auth: connect.Auth{Mode: "none"}}
	for _, vs := range header {
		s.Secrets = append(s.Secrets, vs...)
	}
	return s
}

// serverFor is a Server, not started, in front of the upstream settings
// describe.
func serverFor(t testing.TB, s *connect.Settings) *Server {
	env := connect.Env{Cwd: t.TempDir(), GOOS: runtime.GOOS}
	return &Server{Open: func(ctx context.Context, r Relay) (Upstream, error) {
		return testUpstream(connect.Open(ctx, s, env, testRelayHooks(r)))
	}}
}

// testRelayHooks are the session opener's hooks for r, as the command
// line makes them (commands/serve.go, relayHooks).
func testRelayHooks(r Relay) connect.Hooks {
	return connect.Hooks{Client: mcp.Implementation{Name: "mcpv", Version: "test"}, LogsElsewhere: true, NoteBackPressure: true,
		OnNotification: r.OnNotification, Route: r.Route, Capabilities: r.Capabilities, AwaitCapabilities: r.AwaitCapabilities,
		ReadGate: r.ReadGate, Secret: r.Secret}
}

// testUpstream is c as an upstream session.
func testUpstream(c *connect.Conn, err error) (Upstream, error) {
	if err != nil {
		return nil, err
	}
	return ClientUpstream(c.Client, func(ctx context.Context, name string) (json.RawMessage, bool) {
		t, err := c.Tools.Find(ctx, c.Client, name)
		return t.Raw, err == nil
	}, c.Close), nil
}

// startServer starts a Server in front of the upstream settings describe.
func startServer(t testing.TB, s *connect.Settings, guard Guards, isolate bool) *Server {
	t.Helper()
	secrets := redact.NewScrubber(io.Discard)
	secrets.Add(SecretsOf(s.Secrets, s.Env)...)
	srv := serverFor(t, s)
	srv.Guard, srv.Isolate, srv.Secrets = guard, isolate, secrets
	if err := srv.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// recorder is a transport that keeps a copy of everything it reads: all
// that a client ever receives.
type recorder struct {
	mcp.Transport
	mu  sync.Mutex
	got [][]byte
}

func (r *recorder) Read() ([]byte, error) {
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
func (r *recorder) SetProtocolVersion(v string) {
	if vs, ok := r.Transport.(mcp.VersionSetter); ok {
		vs.SetProtocolVersion(v)
	}
}

// ConcurrentWrites passes the transport's answer on.
func (r *recorder) ConcurrentWrites() bool {
	cw, ok := r.Transport.(mcp.ConcurrentWriter)
	return ok && cw.ConcurrentWrites()
}

// saw reports whether a message the client received holds text.
func (r *recorder) saw(text string) bool {
	for _, m := range r.all() {
		if strings.Contains(string(m), text) {
			return true
		}
	}
	return false
}

func (r *recorder) all() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got
}

// answers is the handler of a downstream client: it answers elicitation,
// sampling and roots with fixed results naming who answers.
func answers(who string) mcp.RequestHandler {
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

const clientCaps = `{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{}}}`

// stdioClient serves srv to mcpv's own client over a pair of pipes, and
// returns the client, initialized in era (legacy or modern).
func stdioClient(t testing.TB, srv *Server, era string) (*mcp.Client, *recorder) {
	t.Helper()
	return stdioClientDeclaring(t, srv, era, clientCaps)
}

// stdioClientDeclaring is stdioClient declaring the capabilities caps.
func stdioClientDeclaring(t testing.TB, srv *Server, era, caps string) (*mcp.Client, *recorder) {
	t.Helper()
	upR, upW := io.Pipe()     // client -> serve
	downR, downW := io.Pipe() // serve -> client
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.ServeStream(ctx, upR, downW, upR.Close); downW.Close() }()
	rec := &recorder{Transport: mcp.NewStreamTransport(downR, upW, func() error { upW.Close(); return downR.Close() }, nil)}
	sess := mcp.NewSession(rec, mcp.SessionOptions{Handler: answers("stdio")})
	t.Cleanup(func() {
		sess.Close(context.Background())
		cancel()
		<-served
	})
	return initializeDeclaring(t, sess, era, caps), rec
}

func initialize(t testing.TB, sess *mcp.Session, era string) *mcp.Client {
	t.Helper()
	return initializeDeclaring(t, sess, era, clientCaps)
}

func initializeDeclaring(t testing.TB, sess *mcp.Session, era, caps string) *mcp.Client {
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

// httpClient is mcpv's own client of srv's HTTP endpoint.
func httpClient(t testing.TB, url, era, who string) (*mcp.Client, *recorder) {
	t.Helper()
	tr, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: url, Mode: mcp.ModeStreamable})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Transport: tr}
	sess := mcp.NewSession(rec, mcp.SessionOptions{Handler: answers(who)})
	t.Cleanup(func() { sess.Close(context.Background()) })
	return initialize(t, sess, era), rec
}

func serveHTTP(t testing.TB, srv *Server, token string) string {
	t.Helper()
	h := srv.HTTPHandler(token, false)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return ts.URL + "/mcp"
}

func call(t testing.TB, c *mcp.Client, method, params string) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.Call(ctx, method, json.RawMessage(params))
	if err != nil {
		t.Fatalf("%s %s: %v", method, params, err)
	}
	return res
}

// httpServe serves the upstream at url (spoken to in the legacy era)
// through an HTTP handler that set shapes, on a test server; it returns
// the handler and the endpoint's URL.
func httpServe(t *testing.T, url string, set func(*HTTPHandler)) (*HTTPHandler, string) {
	srv := startServer(t, settingsFor(url, "legacy", nil), nil, false)
	h := srv.HTTPHandler("", false)
	if set != nil {
		set(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return h, ts.URL + "/mcp"
}

// acceptBoth is what a client of the transport accepts; legacyInitialize,
// a legacy client's first request.
const (
	acceptBoth       = "application/json, text/event-stream"
	legacyInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
)

// modernMetaJSON is a modern request's _meta.
const modernMetaJSON = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}`

// modernHeaders are the headers a modern client sends with body: the
// version, and Mcp-Method and Mcp-Name as the body says, with extra
// ones added or (an empty value) taken away.
func modernHeaders(body string, extra map[string]string) http.Header {
	h := http.Header{}
	h.Set("Accept", acceptBoth)
	h.Set("Content-Type", "application/json")
	h.Set("Mcp-Protocol-Version", mcp.ModernVersion)
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	json.Unmarshal([]byte(body), &m)
	h.Set("Mcp-Method", m.Method)
	switch m.Method {
	case "tools/call", "prompts/get":
		h.Set("Mcp-Name", m.Params.Name)
	case "resources/read":
		h.Set("Mcp-Name", m.Params.URI)
	}
	for k, v := range extra {
		switch {
		case v == "":
			h.Del(k)
		case k != http.CanonicalHeaderKey(k):
			// Sent as written: the name in another case.
			h.Del(k)
			h[k] = []string{v}
		default:
			h.Set(k, v)
		}
	}
	return h
}

// postModern posts body to url as a modern client does, with the
// headers modernHeaders makes of it and extra.
func postModern(t testing.TB, url, body string, extra map[string]string) (*http.Response, string) {
	t.Helper()
	return post(t, url, modernHeaders(body, extra), body)
}

// post POSTs body to url with header, and reads the answer.
func post(t testing.TB, url string, header http.Header, body string) (*http.Response, string) {
	t.Helper()
	return send(t, http.MethodPost, url, header, body)
}

// send sends one request with header (its Host, when there is one, the
// request's host), and reads the answer.
func send(t testing.TB, method, url string, header http.Header, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if host := header.Get("Host"); host != "" {
		req.Host = host
		header = header.Clone()
		header.Del("Host")
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}
