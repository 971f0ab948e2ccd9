package origin

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{"http://app.test:3000", "http://app.test:3000", ""},
		{"HTTP://App.Test:3000", "http://app.test:3000", ""},
		{"http://app.test:3000/", "http://app.test:3000", ""},
		{"http://app.test:80", "http://app.test", ""},
		{"https://app.test:443", "https://app.test", ""},
		{"https://app.test:80", "https://app.test:80", ""},
		{"http://[::1]:8080", "http://[::1]:8080", ""},
		{"chrome-extension://abcdefgh", "chrome-extension://abcdefgh", ""},
		{"null", "", "sandboxed"},
		{"*", "", "every web page"},
		{"", "", "not an origin"},
		{"app.test:3000", "", "not an origin"},
		{"http://app.test/path", "", "no path"},
		{"http://app.test?x", "", "no path"},
		{"http://app.test#f", "", "no path"},
		{"http://user@app.test", "", "no path"},
		{"http://app.test:99999", "", "out of range"},
		{"http://app.test:", "", "port is empty"},
		{"http://", "", "not an origin"},
		{"http://app test", "", "not an origin"},
		{"http://app.test\\@evil.test", "", "not an origin"},
		{"file:///etc/passwd", "", "not an origin"},
		{"data:text/html,x", "", "not an origin"},
	} {
		got, err := Parse(tt.in)
		if got != tt.want || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Parse(%q) = %q, %v; want %q, error with %q", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestAdmits(t *testing.T) {
	p, err := NewPolicy([]string{"http://app.test:3000", "HTTPS://Admin.Example"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		origin string
		want   bool
	}{
		{"", true}, // not a browser
		{"http://localhost:5173", true},
		{"http://LOCALHOST:5173", true},
		{"http://127.0.0.1:8080", true},
		{"http://127.9.9.9", true},
		{"http://[::1]:3000", true},
		{"http://app.test:3000", true},
		{"https://admin.example", true},
		{"https://admin.example:443", true},
		{"http://app.test:3001", false},
		{"https://app.test:3000", false},
		{"http://admin.example", false},
		{"null", false},
		{"http://localhost.evil.test", false},
		{"http://localhost.", false},
		{"http://127.0.0.1.nip.io", false},
		{"http://0.0.0.0:3000", false},
		{"http://[::ffff:7f00:1]", true}, // 127.0.0.1, mapped: still this machine
		{"http://evil.test", false},
		{"http://127.0.0.1:3000/x/../y", false},
		{"garbage", false},
	} {
		if got := p.Admits(tt.origin); got != tt.want {
			t.Errorf("Admits(%q) = %v, want %v", tt.origin, got, tt.want)
		}
	}
	if (Policy{}).Admits("http://app.test:3000") {
		t.Error("the zero Policy admits a named origin")
	}
	if _, err := NewPolicy([]string{"null"}); err == nil {
		t.Error(`NewPolicy admits "null"`)
	}
}

func TestLoopbackHost(t *testing.T) {
	for _, tt := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1:8808", true}, {"localhost:8808", true}, {"localhost", true}, {"[::1]:8808", true}, {"[::1]", true},
		{"evil.test:8808", false}, {"evil.test", false}, {"", false}, {"localhost.evil.test:80", false}, {"0.0.0.0:8808", false},
	} {
		if got := LoopbackHost(tt.host); got != tt.want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestSameHost(t *testing.T) {
	for _, tt := range []struct {
		origin, host string
		want         bool
	}{
		{"https://mcp.example", "mcp.example", true},
		{"https://mcp.example", "MCP.example:443", true},
		{"http://mcp.example:8808", "mcp.example:8808", true},
		{"http://mcp.example", "mcp.example:80", true},
		{"https://mcp.example", "mcp.example:8443", false},
		{"https://evil.example", "mcp.example", false},
		{"https://mcp.example.evil.example", "mcp.example", false},
		{"null", "mcp.example", false},
		{"https://mcp.example", "", false},
	} {
		if got := SameHost(tt.origin, tt.host); got != tt.want {
			t.Errorf("SameHost(%q, %q) = %v, want %v", tt.origin, tt.host, got, tt.want)
		}
	}
}

var mcpCORS = CORS{
	Methods:  []string{"GET", "POST", "DELETE"},
	Headers:  []string{"Authorization", "Content-Type", "Mcp-Session-Id"},
	Prefixes: []string{"Mcp-Param-"},
	Expose:   []string{"Mcp-Session-Id"},
	MaxAge:   600,
}

// A preflight is answered with what is allowed: every header allowed by
// name, and of those it asks for, the ones under an allowed prefix, each
// once; what is not allowed, or is no header's name, is left out, so that
// the browser refuses the request.
func TestPreflight(t *testing.T) {
	for _, tt := range []struct {
		name  string
		asked []string
		want  string
	}{
		{"none asked", nil, "Authorization, Content-Type, Mcp-Session-Id"},
		{"allowed ones", []string{"authorization,content-type"}, "Authorization, Content-Type, Mcp-Session-Id"},
		{"a param", []string{"authorization, mcp-param-region"}, "Authorization, Content-Type, Mcp-Session-Id, mcp-param-region"},
		{"a param twice, in two lines", []string{"Mcp-Param-Region", "mcp-param-region, mcp-param-zone"}, "Authorization, Content-Type, Mcp-Session-Id, mcp-param-region, mcp-param-zone"},
		{"not allowed", []string{"cookie, x-forwarded-for, mcp-paramx"}, "Authorization, Content-Type, Mcp-Session-Id"},
		{"the prefix alone", []string{"mcp-param-"}, "Authorization, Content-Type, Mcp-Session-Id"},
		{"not tokens", []string{"mcp-param-a b, mcp-param-(x), mcp-param-é, ,,, "}, "Authorization, Content-Type, Mcp-Session-Id"},
	} {
		r := httptest.NewRequest(http.MethodOptions, "/mcp", nil)
		r.Header.Set("Origin", "http://app.test")
		r.Header.Set("Access-Control-Request-Method", "POST")
		for _, a := range tt.asked {
			r.Header.Add("Access-Control-Request-Headers", a)
		}
		if !IsPreflight(r) {
			t.Fatalf("%s: not a preflight", tt.name)
		}
		w := httptest.NewRecorder()
		mcpCORS.Preflight(w, r)
		h := w.Result().Header
		if w.Code != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != "http://app.test" ||
			h.Get("Access-Control-Allow-Methods") != "GET, POST, DELETE" || h.Get("Access-Control-Max-Age") != "600" ||
			!strings.Contains(h.Get("Vary"), "Origin") || h.Get("Access-Control-Allow-Credentials") != "" {
			t.Errorf("%s: %d %v", tt.name, w.Code, h)
		}
		if got := h.Get("Access-Control-Allow-Headers"); got != tt.want {
			t.Errorf("%s: Access-Control-Allow-Headers %q, want %q", tt.name, got, tt.want)
		}
		if h.Get("Access-Control-Allow-Private-Network") != "" {
			t.Errorf("%s: private network allowed unasked", tt.name)
		}
	}
	r := httptest.NewRequest(http.MethodOptions, "/mcp", nil)
	r.Header.Set("Origin", "https://app.example")
	r.Header.Set("Access-Control-Request-Method", "POST")
	r.Header.Set("Access-Control-Request-Private-Network", "true")
	w := httptest.NewRecorder()
	mcpCORS.Preflight(w, r)
	if w.Result().Header.Get("Access-Control-Allow-Private-Network") != "true" {
		t.Error("a page asking to reach the private network is not let")
	}
	for _, r := range []*http.Request{
		httptest.NewRequest(http.MethodOptions, "/mcp", nil),
		httptest.NewRequest(http.MethodPost, "/mcp", nil),
	} {
		r.Header.Set("Access-Control-Request-Method", "POST")
		if IsPreflight(r) {
			t.Errorf("%s without Origin taken for a preflight", r.Method)
		}
	}
}

func TestActual(t *testing.T) {
	h := http.Header{}
	mcpCORS.Actual(h, "http://localhost:5173")
	if h.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || h.Get("Vary") != "Origin" ||
		h.Get("Access-Control-Expose-Headers") != "Mcp-Session-Id" || h.Get("Access-Control-Allow-Credentials") != "" {
		t.Errorf("%v", h)
	}
}
