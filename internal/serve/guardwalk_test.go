package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
	"golang.org/x/text/unicode/norm"
)

// lenient is a server that reads names and URIs as leniently as servers
// do: a tool's name trimmed, cut at a NUL, in any case and compatibility
// form; a URI decoded whole, its scheme in any case, its authority
// (localhost or any other host, a user, a port) ignored, its path
// cleaned of dot segments and empty ones, and what it reads is found in
// files, as a file server finds it.
type lenient struct{ done chan struct{} }

var lenientFiles = map[string]string{"/docs/readme.txt": "the readme", "/private/secret.txt": "THE SECRET"}

func (l *lenient) State() mcp.State {
	return mcp.State{Version: "2025-11-25", InitializeResult: servetest.Init(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"lenient","version":"1"}}`)}
}

func (l *lenient) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var p struct{ Name, URI string }
	json.Unmarshal(params, &p)
	switch method {
	case "tools/call", "prompts/get":
		name, _, _ := strings.Cut(p.Name, "\x00")
		name = strings.ToLower(norm.NFKC.String(strings.TrimSpace(name)))
		if name == "delete_all" || name == "admin" {
			return json.RawMessage(`{"content":[{"type":"text","text":"ran ` + name + `"}],"messages":[]}`), nil
		}
		return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "unknown"}
	case "resources/read":
		file, ok := resolve(p.URI)
		if !ok {
			return nil, &mcp.RPCError{Code: -32002, Message: "not found"}
		}
		b, _ := json.Marshal(map[string]any{"contents": []map[string]string{{"uri": p.URI, "text": file}}})
		return b, nil
	case "resources/list":
		return json.RawMessage(`{"resources":[{"uri":"file:///docs/readme.txt","name":"a"},{"uri":"file:///docs/../private/secret.txt","name":"b"},{"uri":"FILE:///private/secret.txt","name":"c"},{"uri":"file:///docs/%2e%2e/private/secret.txt","name":"d"}]}`), nil
	case "resources/templates/list":
		return json.RawMessage(`{"resourceTemplates":[{"uriTemplate":"file:///docs/{name}","name":"a"},{"uriTemplate":"file:///docs/../private/{name}","name":"b"},{"uriTemplate":"file://localhost/private/{name}","name":"c"},{"uriTemplate":"file://evil.example/private/{name}","name":"d"}]}`), nil
	case "tools/list":
		return json.RawMessage(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"DELETE_ALL","inputSchema":{"type":"object"}},{"name":"delete_all\u0000x","inputSchema":{"type":"object"}}]}`), nil
	}
	return json.RawMessage(`{}`), nil
}

// resolve finds the file a URI names, as a lenient file server would.
func resolve(uri string) (string, bool) {
	decoded, err := url.PathUnescape(uri)
	if err != nil {
		return "", false
	}
	decoded = norm.NFKC.String(decoded)
	scheme, rest, ok := strings.Cut(decoded, ":")
	if !ok || !strings.EqualFold(scheme, "file") {
		return "", false
	}
	if r, ok := strings.CutPrefix(rest, "//"); ok { // any authority: the path alone is read
		rest = "/"
		if i := strings.IndexByte(r, '/'); i >= 0 {
			rest = r[i:]
		}
	}
	rest, _, _ = strings.Cut(rest, "#")
	rest = strings.ReplaceAll(rest, `\`, "/")
	f, ok := lenientFiles[path.Clean("/"+rest)]
	return f, ok
}

func (l *lenient) Relay(ctx context.Context, m string, p json.RawMessage) (json.RawMessage, error) {
	return l.Forward(ctx, m, p)
}
func (l *lenient) ForwardNotification(context.Context, string, json.RawMessage) error { return nil }
func (l *lenient) Tool(context.Context, string) (json.RawMessage, bool)               { return nil, false }
func (l *lenient) Done() <-chan struct{}                                              { return l.done }
func (l *lenient) Err() error                                                         { return errors.New("gone") }
func (l *lenient) Close()                                                             {}

// walkArounds are URIs a lenient server reads as file:///private/secret.txt.
var walkArounds = []string{
	"file:///private/secret.txt",
	"file:///docs/../private/secret.txt",
	"file:///docs/%2e%2e/private/secret.txt",
	"file:///docs/%2E%2E/private/secret.txt",
	"file:///docs/.%2e/private/secret.txt",
	"file:///docs/..%2fprivate/secret.txt",
	"file:///docs/..%5cprivate/secret.txt",
	`file:///docs/..\private/secret.txt`,
	"file:////private/secret.txt",
	"file:///private//secret.txt",
	"file:///private/./secret.txt",
	"file:///%70rivate/secret.txt",
	"file:///private/%73ecret.txt",
	"FILE:///private/secret.txt",
	"File:///private/secret.txt",
	"file://localhost/private/secret.txt",
	"file://LOCALHOST/private/secret.txt",
	"file:/private/secret.txt",
	"file://127.0.0.1/private/secret.txt",
	"file://[::1]/private/secret.txt",
	"file://127.1/private/secret.txt",
	"file://localhost:80/private/secret.txt",
	"file://user@localhost/private/secret.txt",
	"file://evil.example/private/secret.txt",
	"file://user:pw@evil.example:8080/private/secret.txt",
	"file://*/private/secret.txt",
	"file:///docs/\uff0e\uff0e/private/secret.txt",
	"file:///docs/\uff0e\uff0e\uff0fprivate/secret.txt",
	"file:///docs/%ef%bc%8e%ef%bc%8e/private/secret.txt",
	"file:///docs/readme.txt#/../../private/secret.txt",
	"file:///docs/%252e%252e/private/secret.txt",
	"file:///private/secret.txt%00",
	" file:///private/secret.txt",
}

// TestGuardCannotBeWalkedAround: against a server that resolves URIs and
// names leniently, every other way of writing what the guard hides is
// refused by the guard (an allow-list and a deny-list alike), on reads
// and in lists; what the guard allows still works.
func TestGuardCannotBeWalkedAround(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		guard config.Guard
	}{
		{"allow-list", config.Guard{AllowResources: []string{"file:///docs/*"}, AllowTools: []string{"echo"}, AllowPrompts: []string{"hello"}}},
		{"deny-list", config.Guard{DenyResources: []string{"file:///private/*"}, DenyTools: []string{"delete_*"}, DenyPrompts: []string{"admin"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			up := &lenient{done: make(chan struct{})}
			srv := &Server{Open: func(context.Context, Relay) (Upstream, error) { return up, nil }, Guard: Guards{tt.guard}}
			if err := srv.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			c, _ := servetest.StdioClient(t, srv, "legacy")
			for _, uri := range walkArounds {
				params, _ := json.Marshal(map[string]string{"uri": uri})
				res, err := c.Call(context.Background(), "resources/read", params)
				var ce *mcp.CallError
				if !errors.As(err, &ce) || !strings.Contains(ce.Err.Message, "guarded") {
					t.Errorf("read %q: %s %v, want the guard's refusal", uri, res, err)
				}
			}
			for _, name := range []string{"delete_all", "DELETE_ALL", "Delete_All", "delete_all\x00", "delete_all ", " delete_all", "delete_all\u00a0", "ｄｅｌｅｔｅ＿ａｌｌ", "delete\u200b_all"} {
				params, _ := json.Marshal(map[string]any{"name": name, "arguments": map[string]any{}})
				if res, err := c.Call(context.Background(), "tools/call", params); err == nil {
					t.Errorf("call %q: %s, want the guard's refusal", name, res)
				}
			}
			for _, name := range []string{"admin", "ADMIN", "ａｄｍｉｎ", "admin\x00", "admin\t"} {
				params, _ := json.Marshal(map[string]any{"name": name})
				if res, err := c.Call(context.Background(), "prompts/get", params); err == nil {
					t.Errorf("get %q: %s, want the guard's refusal", name, res)
				}
			}
			list := string(servetest.Call(t, c, "resources/list", `{}`))
			if !strings.Contains(list, "file:///docs/readme.txt") || strings.Contains(list, "private") {
				t.Errorf("resources/list: %s, want the readme alone", list)
			}
			templates := string(servetest.Call(t, c, "resources/templates/list", `{}`))
			if !strings.Contains(templates, "file:///docs/{name}") || strings.Contains(templates, "private") {
				t.Errorf("resources/templates/list: %s, want the docs template alone", templates)
			}
			tools := string(servetest.Call(t, c, "tools/list", `{}`))
			if !strings.Contains(tools, `"echo"`) || strings.Contains(tools, "DELETE") || strings.Contains(tools, `\u0000`) {
				t.Errorf("tools/list: %s, want echo alone", tools)
			}
			for _, uri := range []string{"file:///docs/readme.txt", "file://evil.example/docs/readme.txt"} {
				if res := string(servetest.Call(t, c, "resources/read", `{"uri":"`+uri+`"}`)); !strings.Contains(res, "the readme") {
					t.Errorf("the readme as %s: %s", uri, res)
				}
			}
		})
	}
}
