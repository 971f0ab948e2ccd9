package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// paths renders requests as "METHOD PATH RPC-METHOD", one each.
func paths(reqs []mcptest.HTTPRequest) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, strings.TrimSpace(fmt.Sprintf("%s %s %s", r.Method, r.Path, r.RPCMethod)))
	}
	return out
}

// legacyTools answers on the legacy stream: tools/list at once, tools/call
// after asking the client for its roots there.
func legacyTools(x *mcptest.Exchange) bool {
	switch x.RPCMethod {
	case "tools/list":
		x.Reply(x.Result(`{"tools":[]}`))
	case "tools/call":
		x.W.WriteHeader(http.StatusAccepted)
		x.Send(`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`)
		answer, err := x.Server().Wait(x.R.Context(), responseTo(`"srv-1"`))
		if err != nil {
			return true
		}
		x.Send(x.Result(`{"content":[],"answer":` + string(answer.Body) + `}`))
	default:
		return false
	}
	return true
}

func TestHTTPLegacyFallback(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Legacy: true, LegacyStatus: status, Post: legacyTools})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{Handler: rootsHandler})
			c := h.initialize(t)
			if got, err := c.Call(testCtx(t), "tools/list", nil); err != nil || string(got) != `{"tools":[]}` {
				t.Fatalf("tools/list: %s, %v", got, err)
			}
			got, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"x"}`))
			if want := `{"content":[],"answer":{"jsonrpc":"2.0","id":"srv-1","result":{"roots":[{"uri":"file:///w"}]}}}`; err != nil || string(got) != want {
				t.Fatalf("tools/call: %s, %v; want %s", got, err, want)
			}
			h.close(t)
			// No standalone GET and no DELETE: the legacy transport has neither.
			want := []string{
				"POST /mcp initialize",
				"GET /mcp",
				"POST /messages?session=s1 initialize",
				"POST /messages?session=s1 notifications/initialized",
				"POST /messages?session=s1 tools/list",
				"POST /messages?session=s1 tools/call",
				"POST /messages?session=s1",
			}
			if d := cmp.Diff(want, paths(srv.Requests())); d != "" {
				t.Errorf("requests (-want +got):\n%s", d)
			}
		})
	}
}

func TestHTTPModes(t *testing.T) {
	t.Parallel()
	t.Run("sse", func(t *testing.T) {
		t.Parallel()
		srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Legacy: true})
		h := dialHTTP(t, HTTPOptions{URL: srv.URL, Mode: ModeSSE}, SessionOptions{})
		h.initialize(t)
		want := []string{"GET /mcp", "POST /messages?session=s1 initialize", "POST /messages?session=s1 notifications/initialized"}
		if d := cmp.Diff(want, paths(srv.Requests())); d != "" {
			t.Errorf("requests (-want +got):\n%s", d)
		}
	})
	t.Run("sse against a Streamable HTTP server", func(t *testing.T) {
		t.Parallel()
		srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
		h := dialHTTP(t, HTTPOptions{URL: srv.URL, Mode: ModeSSE}, SessionOptions{})
		_, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo()})
		if !errors.Is(err, ErrNotLegacy) || !strings.Contains(err.Error(), srv.URL+" is a Streamable HTTP server, not a legacy HTTP+SSE one (its GET: HTTP 405") {
			t.Errorf("got %v", err)
		}
		// The probe's session is ended.
		if d := cmp.Diff([]string{"GET /mcp", "POST /mcp initialize", "DELETE /mcp"}, paths(srv.Requests())); d != "" {
			t.Errorf("requests (-want +got):\n%s", d)
		}
	})
	t.Run("streamable-http", func(t *testing.T) {
		t.Parallel()
		srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Legacy: true})
		h := dialHTTP(t, HTTPOptions{URL: srv.URL, Mode: ModeStreamable}, SessionOptions{})
		_, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo()})
		var se *StatusError
		if !errors.As(err, &se) || se.Status != http.StatusMethodNotAllowed {
			t.Errorf("got %v, want the 405", err)
		}
		if d := cmp.Diff([]string{"POST /mcp initialize"}, paths(srv.Requests())); d != "" {
			t.Errorf("requests (-want +got):\n%s", d)
		}
	})
}

func TestHTTPLegacyFallbackFails(t *testing.T) {
	t.Parallel()
	endpoint := func(x *mcptest.Exchange) { x.SSE().Raw("event: endpoint\ndata: /messages?session=s1\n\n") }
	tests := []struct {
		name     string
		opts     mcptest.HTTPOptions
		errHas   string
		auth     bool
		wantReqs []string
	}{
		{"an endpoint on another origin", mcptest.HTTPOptions{Legacy: true, Endpoint: "http://127.0.0.2:9/messages"},
			"POST SRV: 405 Method Not Allowed; as a legacy SSE server: legacy SSE: the endpoint event names another origin; refusing to send there",
			false, []string{"POST /mcp initialize", "GET /mcp"}},
		{"an endpoint on another scheme", mcptest.HTTPOptions{Legacy: true, Endpoint: "https:/messages"},
			"refusing to send there", false, []string{"POST /mcp initialize", "GET /mcp"}},
		{"a GET stream refused for want of credentials", mcptest.HTTPOptions{Legacy: true, Get: func(x *mcptest.Exchange) {
			x.Status(http.StatusUnauthorized, "", "WWW-Authenticate", `Bearer realm="x"`)
		}}, `the server requires authorization (HTTP 401 from SRV); it asks for: Bearer realm="x"`, true, []string{"POST /mcp initialize", "GET /mcp"}},
		{"no GET stream either", mcptest.HTTPOptions{Legacy: true, Get: func(x *mcptest.Exchange) { x.Status(http.StatusMethodNotAllowed, "") }},
			"POST SRV: 405 Method Not Allowed; as a legacy SSE server: GET: HTTP 405 Method Not Allowed from SRV", false, nil},
		{"a GET answered with JSON", mcptest.HTTPOptions{Legacy: true, Get: func(x *mcptest.Exchange) {
			x.Status(http.StatusOK, "{}", "Content-Type", "application/json")
		}}, `as a legacy SSE server: GET stream: answered with Content-Type "application/json"`, false, nil},
		{"a stream with no endpoint", mcptest.HTTPOptions{Legacy: true, Get: func(x *mcptest.Exchange) { x.SSE().Event("", note("hi")) }},
			"as a legacy SSE server: legacy SSE: the stream ended before an endpoint event: EOF", false, nil},
		{"a stream that ends after the endpoint", mcptest.HTTPOptions{Legacy: true, Get: endpoint},
			"initialize: legacy SSE: the server closed its event stream", false, nil},
		{"a JSON-RPC error in the 400 (no fallback)", mcptest.HTTPOptions{Post: answerTo("initialize", func(x *mcptest.Exchange) {
			x.Status(http.StatusBadRequest, x.Error(-32600, "not like that"), "Content-Type", "application/json")
		})}, "initialize: server error -32600: not like that", false, []string{"POST /mcp initialize"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mcptest.NewHTTPServer(t, tt.opts)
			h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
			_, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo()})
			want := strings.ReplaceAll(tt.errHas, "SRV", srv.URL)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v\nwant %s", err, want)
			}
			var ae *AuthError
			if tt.auth != errors.As(err, &ae) {
				t.Errorf("got %T, an *AuthError: %v", err, tt.auth)
			}
			if tt.wantReqs != nil {
				if d := cmp.Diff(tt.wantReqs, paths(srv.Requests())); d != "" {
					t.Errorf("requests (-want +got):\n%s", d)
				}
			}
		})
	}
}

// TestHTTPInitializeRefusedWithVersions: a 400 carrying "unsupported
// protocol version" is the server's answer, and the client's retry with a
// version both speak goes to the same endpoint.
func TestHTTPInitializeRefusedWithVersions(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "initialize" || strings.Contains(string(x.Body), `"2025-06-18"`) {
			return false
		}
		x.Status(http.StatusBadRequest, `{"jsonrpc":"2.0","id":`+string(x.ID)+`,"error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":["2025-06-18"]}}}`,
			"Content-Type", "application/json")
		return true
	}})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	c := h.initialize(t)
	if c.ProtocolVersion() != "2025-06-18" {
		t.Errorf("version %q", c.ProtocolVersion())
	}
	awaitRequest(t, srv, func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet })
	want := []string{"POST /mcp initialize", "POST /mcp initialize", "POST /mcp notifications/initialized", "GET /mcp"}
	if d := cmp.Diff(want, paths(srv.Requests())); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}

// TestHTTPLegacyPostOutlivesItsAnswer: a legacy server answers on its event
// stream, often before its POST's own 202. The caller, answered, is gone;
// the POST is not cancelled for it. (net/http may hand that POST's
// connection to the next request as soon as the 202 is read, before the
// POST returns: cancelled then, the next request failed with "context
// canceled", as a go-sdk legacy server showed under load.) Reached as a
// legacy server, and by falling back to one, whose initialize is the POST
// sent again.
func TestHTTPLegacyPostOutlivesItsAnswer(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{ModeSSE, ModeAuto} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			var cancelled []string
			var handled sync.WaitGroup
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Legacy: true, Post: func(x *mcptest.Exchange) bool {
				var result string
				switch x.RPCMethod {
				case "initialize":
					result = `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"fake","version":"1"}}`
				case "tools/list":
					result = `{"tools":[]}`
				default:
					return false
				}
				handled.Add(1)
				defer handled.Done()
				x.Send(x.Result(result))
				select {
				case <-x.R.Context().Done(): // the client closed the POST's connection
					mu.Lock()
					cancelled = append(cancelled, x.RPCMethod)
					mu.Unlock()
				case <-time.After(300 * time.Millisecond):
				}
				x.W.WriteHeader(http.StatusAccepted)
				return true
			}})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL, Mode: mode}, SessionOptions{})
			ictx, cancel := context.WithCancel(testCtx(t))
			c, err := Initialize(ictx, h.s, ClientOptions{Info: testInfo()})
			cancel() // as a command's start-up ends
			if err != nil {
				t.Fatal(err)
			}
			if got, err := c.Call(testCtx(t), "tools/list", nil); err != nil || string(got) != `{"tools":[]}` {
				t.Fatalf("tools/list: %s, %v", got, err)
			}
			handled.Wait()
			if len(cancelled) > 0 {
				t.Errorf("POSTs cancelled once their answers had come on the stream: %q", cancelled)
			}
			if got, err := c.Call(testCtx(t), "ping", nil); err != nil {
				t.Errorf("ping after them: %s, %v", got, err)
			}
		})
	}
}

// TestHTTPLegacyPostLetGo: a POST the legacy server never answers is let go
// soon after its caller gives up, not kept (with its connection) for as
// long as the transport.
func TestHTTPLegacyPostLetGo(t *testing.T) {
	t.Parallel()
	letGo := make(chan struct{})
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Legacy: true, Post: func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" {
			return false
		}
		select {
		case <-x.R.Context().Done(): // the client closed the POST's connection
			close(letGo)
		case <-time.After(2 * time.Minute):
		}
		return true
	}})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, Mode: ModeSSE}, SessionOptions{})
	c := h.initialize(t)
	ctx, cancel := context.WithTimeout(testCtx(t), 100*time.Millisecond)
	defer cancel()
	if _, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"x"}`)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("tools/call: %v, want the deadline", err)
	}
	gaveUp := time.Now()
	select {
	case <-letGo:
		t.Logf("let go %v after its caller", time.Since(gaveUp).Round(time.Millisecond))
	case <-time.After(time.Minute): // a hang guard: legacyLetGo is a second
		t.Fatal("the POST was still held a minute after its caller gave up")
	}
}
