package mcp

import (
	"errors"
	"fmt"
	"net/http"
	neturl "net/url"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

func TestHTTPStatusErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 400)
	tests := []struct {
		name      string
		answer    func(x *mcptest.Exchange)
		wantErr   string
		wantCall  bool     // a *CallError (the server's answer), else a *TransportError
		wantNotes []string // delivered before the failure
	}{
		{"500 with a long body", func(x *mcptest.Exchange) { x.Status(http.StatusInternalServerError, "database down "+long) },
			"tools/list: POST: HTTP 500 Internal Server Error from SRV: database down " + long[:286] + "… (114 more bytes)", false, nil},
		{"HTML error page", func(x *mcptest.Exchange) {
			x.Status(http.StatusBadGateway, "<html><body>\n<h1>502 Bad Gateway</h1>\n</body></html>\n", "Content-Type", "text/html")
		}, "tools/list: POST: HTTP 502 Bad Gateway from SRV: an HTML page", false, nil},
		{"HTML error page with a title", func(x *mcptest.Exchange) {
			x.Status(http.StatusBadGateway, "<!DOCTYPE html>\n<html><head><TITLE>\n  502 Bad &amp; Gateway\n</TITLE><style>body{}</style></head><body>"+long+"</body></html>", "Content-Type", "text/plain")
		}, `tools/list: POST: HTTP 502 Bad Gateway from SRV: an HTML page titled "502 Bad & Gateway"`, false, nil},
		{"HTML error page in Latin-1", func(x *mcptest.Exchange) {
			x.Status(http.StatusBadGateway, "<html><title>Passerelle \xe9\xe9\xe9\xe9\xe9\xe9 hors service</title></html>", "Content-Type", "text/html; charset=iso-8859-1")
		}, "tools/list: POST: HTTP 502 Bad Gateway from SRV: an HTML page titled \"Passerelle \\xe9\\xe9\\xe9\\xe9\\xe9\\xe9 hors service\"", false, nil},
		{"a text body over several lines", func(x *mcptest.Exchange) {
			x.Status(http.StatusServiceUnavailable, "upstream\r\n\tnot ready\n\nretry later\n")
		}, "tools/list: POST: HTTP 503 Service Unavailable from SRV: upstream not ready retry later", false, nil},
		{"an HTML page with 200", func(x *mcptest.Exchange) {
			x.Status(http.StatusOK, "<html>login</html>", "Content-Type", "text/html")
		}, `tools/list: unexpected answer: HTTP 200 OK, Content-Type "text/html"`, false, nil},
		{"an empty JSON body", func(x *mcptest.Exchange) {
			x.Status(http.StatusOK, " \n", "Content-Type", "application/json")
		}, "tools/list: the server answered with an empty body", false, nil},
		{"a JSON-RPC error in a 400", func(x *mcptest.Exchange) {
			x.Status(http.StatusBadRequest, x.Error(-32602, "bad cursor"), "Content-Type", "application/json")
		}, "tools/list: server error -32602: bad cursor", true, nil},
		{"a JSON-RPC error over several lines", func(x *mcptest.Exchange) {
			x.Reply(x.Error(-32000, "line1\nmcpv: forged\r\n\n\tline3\u2028line4\u2029line5\u0085\x1b[8m"))
		}, `tools/list: server error -32000: line1 mcpv: forged line3 line4 line5 \x1b[8m`, true, nil},
		{"a JSON-RPC error without our id", func(x *mcptest.Exchange) {
			x.Reply(`{"jsonrpc":"2.0","error":{"code":-32600,"message":"no can do"}}`)
		}, "tools/list: server error -32600: no can do", true, nil},
		{"no response to our id", func(x *mcptest.Exchange) { x.Reply(note("only this")) },
			"tools/list: the server's answer holds no response to request 2", false, []string{delivered("only this")}},
		{"a response to another id", func(x *mcptest.Exchange) { x.Reply(`{"jsonrpc":"2.0","id":99,"result":{}}`) },
			"the server's answer holds no response to request 2", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/list", tt.answer)})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
			c := h.initialize(t)
			_, err := c.Call(testCtx(t), "tools/list", nil)
			var ce *CallError
			var te *TransportError
			if tt.wantCall && !errors.As(err, &ce) || !tt.wantCall && !errors.As(err, &te) {
				t.Errorf("got %T %v; want a CallError: %v", err, err, tt.wantCall)
			}
			if te != nil && strings.Contains(te.Error(), "tools/list") {
				t.Errorf("the transport's error %q names the method, which the session names", te)
			}
			if err != nil && strings.Count(err.Error(), "tools/list") != 1 {
				t.Errorf("%v: want the method named once", err)
			}
			want := strings.ReplaceAll(tt.wantErr, "SRV", srv.URL)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("got %v\nwant %s", err, want)
			}
			if _, err := c.Call(testCtx(t), "ping", nil); err != nil {
				t.Errorf("ping after the failure: %v", err)
			}
			if d := cmp.Diff(tt.wantNotes, h.delivered(t)); d != "" {
				t.Errorf("notifications (-want +got):\n%s", d)
			}
		})
	}
}

func TestHTTPAuthErrorsEndTheTransport(t *testing.T) {
	t.Parallel()
	challenge := func(code int) func(x *mcptest.Exchange) {
		return func(x *mcptest.Exchange) {
			x.Status(code, "", "WWW-Authenticate", `Bearer resource_metadata="http://x/.well-known/oauth-protected-resource", scope="tools:read"`)
		}
	}
	tests := []struct {
		name   string
		post   func(x *mcptest.Exchange) bool
		get    func(x *mcptest.Exchange)
		status int
	}{
		{"401 to initialize", answerTo("initialize", challenge(http.StatusUnauthorized)), nil, 401},
		// A 403 with a challenge; without one, to a request that carried no
		// credentials, it is no authorization matter (TestHTTPErrors in commands).
		{"403 to a later call", answerTo("tools/list", challenge(http.StatusForbidden)), nil, 403},
		{"401 to a stream's resumption", answerTo("tools/list", func(x *mcptest.Exchange) {
			e := x.SSE()
			e.Raw("retry: 1\n")
			e.Event("ev-1", note("then a cut"))
		}), func(x *mcptest.Exchange) {
			if x.LastEventID == "" {
				x.Status(http.StatusMethodNotAllowed, "")
				return
			}
			challenge(http.StatusUnauthorized)(x)
		}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: tt.post, Get: tt.get})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
			c, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo()})
			if err == nil {
				_, err = c.Call(testCtx(t), "tools/list", nil)
			}
			var ae *AuthError
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want an *AuthError", err)
			}
			want := &AuthError{Status: tt.status, URL: srv.URL, Challenge: []string{`Bearer resource_metadata="http://x/.well-known/oauth-protected-resource", scope="tools:read"`}}
			if d := cmp.Diff(want, ae); d != "" {
				t.Errorf("AuthError (-want +got):\n%s", d)
			}
			waitFor(t, h.s.Done())
			if !errors.As(h.s.Err(), &ae) {
				t.Errorf("the session ended with %v, want the *AuthError", h.s.Err())
			}
		})
	}
}

func TestHTTPUnreachable(t *testing.T) {
	t.Parallel()
	url := testkit.DeadURL(t)
	var mu sync.Mutex
	var lines []string
	h := dialHTTP(t, HTTPOptions{URL: url, Trace: func(l string) {
		mu.Lock()
		lines = append(lines, l)
		mu.Unlock()
	}}, SessionOptions{})
	_, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo()})
	var te *TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "initialize: POST "+url+": dial tcp") {
		t.Fatalf("got %v, want a *TransportError from the dial", err)
	}
	var ue *neturl.Error
	if errors.As(err, &ue) {
		t.Errorf("the error keeps the *url.Error, which repeats the URL: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "POST "+url+" {") || !strings.Contains(lines[0], "} -> ") || !connRefusedText(lines[0]) {
		t.Errorf("trace %q", lines)
	}
}

func TestNewHTTPTransportRefusesBadURLs(t *testing.T) {
	for _, u := range []string{"ftp://x/mcp", "http://", "127.0.0.1:8080/mcp", "http://a b/", ""} {
		if _, err := NewHTTPTransport(HTTPOptions{URL: u}); err == nil || !strings.Contains(err.Error(), "invalid server URL") {
			t.Errorf("%q: %v", u, err)
		}
	}
}
func TestHTTPRedirects(t *testing.T) {
	t.Parallel()
	// sameOrigin is what a careful caller's client does (mcpv's command line
	// does this): follow redirects within the server's origin only.
	sameOrigin := &http.Client{CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != via[0].URL.Host {
			return fmt.Errorf("refusing to follow a redirect to another origin (%s)", req.URL.Host)
		}
		return nil
	}}
	tests := []struct {
		name   string
		client *http.Client
		target string // where /mcp redirects to; OTHER is another origin
		errHas string
	}{
		{"within the origin", nil, "/moved", ""},
		{"to another origin, refused by the client", sameOrigin, "OTHER", "refusing to follow a redirect to another origin"},
		{"to another origin, with the default client", nil, "OTHER", "refusing to follow a redirect to another origin (http://127.0.0.1:"},
		{"in a loop", nil, "/mcp", "stopped after 10 redirects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			other := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true})
			target := strings.ReplaceAll(tt.target, "OTHER", other.URL)
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
				if x.Path != "/mcp" {
					return false
				}
				http.Redirect(x.W, x.R, target, http.StatusTemporaryRedirect)
				return true
			}})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL, Client: tt.client, Header: http.Header{"X-Api-Key": {"k"}}}, SessionOptions{})
			c, err := Initialize(testCtx(t), h.s, ClientOptions{Info: testInfo()})
			if err == nil {
				_, err = c.Call(testCtx(t), "ping", nil)
			}
			if tt.errHas == "" && err != nil || tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)) {
				t.Errorf("got %v, want %q", err, tt.errHas)
			}
			for _, r := range other.Requests() {
				t.Errorf("another origin got %s with X-Api-Key %q", r, r.Header.Get("X-Api-Key"))
			}
		})
	}
}

// connRefusedText: the OS's words for a refused connection, as Go prints
// them (Windows says "actively refused", wine "Connection refused.").
func connRefusedText(s string) bool {
	return strings.Contains(s, "connection refused") || runtime.GOOS == "windows" && strings.Contains(s, "connectex: ")
}
