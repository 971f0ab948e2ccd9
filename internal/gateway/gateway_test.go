package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
)

func TestMain(m *testing.M) { servetest.Main(m) }

// serverFor is a Server, not started, in front of the upstream settings
// describe.
func serverFor(t testing.TB, s *connect.Settings) *serve.Server {
	open := servetest.Opener(t, s)
	return &serve.Server{Open: func(ctx context.Context, r serve.Relay) (serve.Upstream, error) {
		c, tool, end, err := open(ctx, connect.Hooks{OnNotification: r.OnNotification, Route: r.Route, Capabilities: r.Capabilities, AwaitCapabilities: r.AwaitCapabilities, ReadGate: r.ReadGate, Secret: r.Secret})
		return serve.ClientUpstream(c, tool, end), err
	}}
}

// started is a Server in front of the upstream settings describe,
// started: serve alone, beside a gateway.
func started(t testing.TB, s *connect.Settings) *serve.Server {
	srv := serverFor(t, s)
	if err := srv.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// testMember is a member of a test's gateway.
type testMember struct {
	name     string
	prefix   *string
	settings *connect.Settings
	guard    serve.Guards
	isolate  bool
	eager    bool
}

// logBuf is a log a test reads: serve's stderr.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// count is how many lines of the log hold text.
func (l *logBuf) count(text string) int {
	return strings.Count(l.String(), text)
}

// startGateway starts a gateway of members, its log in the logBuf.
func startGateway(t testing.TB, members ...testMember) (*Gateway, *logBuf) {
	t.Helper()
	return startGatewayWith(t, nil, members...)
}

// startGatewayWith is startGateway with the gateway's bounds set by set
// before it starts.
func startGatewayWith(t testing.TB, set func(*Gateway), members ...testMember) (*Gateway, *logBuf) {
	t.Helper()
	log := &logBuf{}
	g := &Gateway{Log: slog.New(slog.NewTextHandler(log, nil)), Secrets: redact.NewScrubber(io.Discard)}
	if set != nil {
		set(g)
	}
	for _, tm := range members {
		srv := serverFor(t, tm.settings)
		srv.Guard, srv.Isolate = tm.guard, tm.isolate
		g.Secrets.Add(serve.SecretsOf(tm.settings.Secrets, tm.settings.Env)...)
		g.Members = append(g.Members, &Member{Name: tm.name, Prefix: tm.prefix, Server: srv, Eager: tm.eager})
	}
	if err := g.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(g.Close)
	return g, log
}

// specServer is a stdio fake whose surface is spec (mcptest.Spec as
// JSON).
func specServer(t testing.TB, spec string) *connect.Settings {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	return servetest.FakeStdio("spec=" + path)
}

// gatewayHTTP serves g over HTTP with clients (nil: no token), and
// returns the endpoint's URL.
func gatewayHTTP(t testing.TB, g *Gateway, clients *serve.Clients) (*Handler, string) {
	t.Helper()
	h := g.HTTPHandler(clients, false, "", nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return h, ts.URL + "/mcp"
}

// names are the names (or URIs) of a list result's items under key.
func itemKeys(t testing.TB, res json.RawMessage, key string) []string {
	t.Helper()
	var items []map[string]any
	var page map[string]json.RawMessage
	json.Unmarshal(res, &page)
	json.Unmarshal(page[key], &items)
	field := map[string]string{"tools": "name", "prompts": "name", "resources": "uri", "resourceTemplates": "uriTemplate", "tasks": "taskId"}[key]
	var out []string
	for _, it := range items {
		out = append(out, fmt.Sprint(it[field]))
	}
	return out
}

// listAll walks a list through c to its end.
func listAll(t testing.TB, c *mcp.Client, method, key string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, _, err := c.List(ctx, method, key, mcp.Pages{})
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return itemKeys(t, res, key)
}

const twoToolsSpec = `{"tools":[{"name":"add","inputSchema":{"type":"object"}},{"name":"echo","inputSchema":{"type":"object"}}],
	"prompts":[{"name":"greet"}],
	"resources":[{"uri":"file:///shared.txt","name":"shared"},{"uri":"file:///%s.txt","name":"own"}],
	"resourceTemplates":[{"uriTemplate":"%s://notes/{id}","name":"notes"}],
	"callResults":{"add":{"content":[{"type":"text","text":"%s added"}]}},
	"readResults":{"file:///shared.txt":{"contents":[{"uri":"file:///shared.txt","text":"%s's shared"}]}}}`

func twoTools(t testing.TB, who string) *connect.Settings {
	return specServer(t, fmt.Sprintf(twoToolsSpec, who, who, who, who))
}

// TestGatewayNamesNeverCollide: two servers with the same tools,
// prompts and a resource of the same URI, behind one endpoint: the
// names carry each server's prefix and reach their own server; the URI
// both list is the first's, the other's hidden, said once; a URI one
// server lists and a template's reach theirs.
func TestGatewayNamesNeverCollide(t *testing.T) {
	t.Parallel()
	g, log := startGateway(t, testMember{name: "alpha", settings: twoTools(t, "alpha")}, testMember{name: "beta", settings: twoTools(t, "beta")})
	for _, side := range []string{"stdio", "http"} {
		for _, era := range []string{"legacy", "modern"} {
			t.Run(side+"/"+era, func(t *testing.T) {
				var c *mcp.Client
				if side == "stdio" {
					c, _ = servetest.StdioClient(t, g.Server(), era)
				} else {
					_, u := gatewayHTTP(t, g, nil)
					c, _ = servetest.HTTPClient(t, u, era, side)
				}
				if got, want := strings.Join(listAll(t, c, "tools/list", "tools"), " "), "alpha__add alpha__echo beta__add beta__echo"; got != want {
					t.Errorf("tools: %s, want %s", got, want)
				}
				if got, want := strings.Join(listAll(t, c, "prompts/list", "prompts"), " "), "alpha__greet beta__greet"; got != want {
					t.Errorf("prompts: %s, want %s", got, want)
				}
				if got, want := strings.Join(listAll(t, c, "resources/list", "resources"), " "), "file:///shared.txt file:///alpha.txt file:///beta.txt"; got != want {
					t.Errorf("resources: %s, want %s", got, want)
				}
				if got := servetest.Call(t, c, "tools/call", `{"name":"beta__add","arguments":{}}`); !strings.Contains(string(got), "beta added") {
					t.Errorf("beta__add: %s", got)
				}
				if got := servetest.Call(t, c, "tools/call", `{"name":"alpha__add","arguments":{}}`); !strings.Contains(string(got), "alpha added") {
					t.Errorf("alpha__add: %s", got)
				}
				if got := servetest.Call(t, c, "resources/read", `{"uri":"file:///shared.txt"}`); !strings.Contains(string(got), "alpha's shared") {
					t.Errorf("the URI both list: %s, want alpha's", got)
				}
				if got := servetest.Call(t, c, "prompts/get", `{"name":"beta__greet"}`); !strings.Contains(string(got), "greet") {
					t.Errorf("beta__greet: %s", got)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				for _, name := range []string{"add", "gamma__add", "alpha_add", "ALPHA__add"} {
					_, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"`+name+`","arguments":{}}`))
					var ce *mcp.CallError
					if !errors.As(err, &ce) || ce.Err.Code != mcp.CodeInvalidParams {
						t.Errorf("tools/call %s: %v, want -32602", name, err)
					}
				}
			})
		}
	}
	if n := log.count("both list the uri"); n != 1 {
		t.Errorf("the URI both list was said %d times, want once:\n%s", n, log)
	}
}

// TestGatewayCheck: names and prefixes that would let one server's names
// read as another's are refused before anything starts.
func TestGatewayCheck(t *testing.T) {
	t.Parallel()
	p := func(s string) *string { return &s }
	for _, tt := range []struct {
		sep     string
		members []Member
		want    string
	}{
		{"", []Member{{Name: "a"}, {Name: "A"}}, `two servers are called "A"`},
		{"", []Member{{Name: "github"}, {Name: "gh", Prefix: p("GitHub")}}, "prefixes that read alike"},
		{"", []Member{{Name: "github"}, {Name: "gh", Prefix: p("g\u0456thub")}}, "a server's name here holds"},
		{"", []Member{{Name: "a"}, {Name: "b", Prefix: p("x__y")}}, `its prefix "x__y" holds the separator "__"`},
		{"", []Member{{Name: "a"}, {Name: "a_"}}, `servers "a" and "a_": a name of "a_" starts as one of "a"`},
		{"._.", []Member{{Name: "a._"}, {Name: "a"}}, `servers "a" and "a._"`},
		{"_-", []Member{{Name: "a_"}, {Name: "a"}, {Name: "b"}, {Name: "b", Prefix: p("c")}}, `two servers are called "b"`},
		{"", []Member{{Name: "a"}, {Name: "b", Prefix: p("a_")}}, `servers "a" and "b"`},
	} {
		g := &Gateway{Separator: tt.sep}
		for i := range tt.members {
			g.Members = append(g.Members, &tt.members[i])
		}
		if err := g.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.members, err, tt.want)
		}
	}
	ok := &Gateway{Members: []*Member{{Name: "a"}, {Name: "ab"}, {Name: "a-b"}, {Name: "c", Prefix: p("")}, {Name: "d", Prefix: p("")}}}
	if err := ok.Check(); err != nil {
		t.Errorf("names apart: %v", err)
	}
}

// TestGatewayResourceNotFound: a URI no server lists is not found, as
// each era says: -32002 in the initialize era, -32602 in the 2026-07-28
// era, which retired -32002.
func TestGatewayResourceNotFound(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t, testMember{name: "alpha", settings: twoTools(t, "alpha")}, testMember{name: "beta", settings: twoTools(t, "beta")})
	for era, want := range map[string]int{"legacy": -32002, "modern": mcp.CodeInvalidParams} {
		c, _ := servetest.StdioClient(t, g.Server(), era)
		_, err := c.Call(t.Context(), "resources/read", json.RawMessage(`{"uri":"nowhere://x"}`))
		var ce *mcp.CallError
		if !errors.As(err, &ce) || ce.Err.Code != want {
			t.Errorf("%s: %v, want %d", era, err, want)
		}
	}
}
