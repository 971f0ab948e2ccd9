package connect

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

func TestUserAgent(t *testing.T) {
	got := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r.Header.Get("User-Agent") }))
	defer srv.Close()
	c, err := httpClient("", userAgent(&Settings{}, Hooks{Client: mcp.Implementation{Name: "mcpv", Version: "v1.2.3"}}))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", srv.URL, nil)
	if resp, err := c.Do(req); err == nil {
		resp.Body.Close()
	}
	if ua := <-got; ua != "mcpv/v1.2.3" {
		t.Errorf("User-Agent %q, want mcpv/v1.2.3", ua)
	}
	req, _ = http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("User-Agent", "mine/1") // -H "User-Agent: ..." wins
	if resp, err := c.Do(req); err == nil {
		resp.Body.Close()
	}
	if ua := <-got; ua != "mine/1" {
		t.Errorf("User-Agent %q, want the request's own", ua)
	}
	if req.Header.Get("User-Agent") != "mine/1" {
		t.Error("the caller's request was changed")
	}
}

func TestUserAgentFromHeader(t *testing.T) {
	h := Hooks{Client: mcp.Implementation{Name: "mcpv", Version: "v1.2.3"}}
	s := &Settings{Header: http.Header{"User-Agent": {"probe/1"}}}
	if ua := userAgent(s, h); ua != "probe/1" {
		t.Errorf("with -H: %q, want probe/1", ua)
	}
	if ua := userAgent(&Settings{}, Hooks{}); ua != "" {
		t.Errorf("without client info: %q, want none (Go's own)", ua)
	}
}
