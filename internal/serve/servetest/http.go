package servetest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// AcceptBoth is what a client of the transport accepts;
// LegacyInitialize, a legacy client's first request.
const (
	AcceptBoth       = "application/json, text/event-stream"
	LegacyInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
)

// ModernMetaJSON is a modern request's _meta.
const ModernMetaJSON = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}`

// ModernHeaders are the headers a modern client sends with body: the
// version, and Mcp-Method and Mcp-Name as the body says, with extra
// ones added or (an empty value) taken away.
func ModernHeaders(body string, extra map[string]string) http.Header {
	h := http.Header{}
	h.Set("Accept", AcceptBoth)
	h.Set("Content-Type", "application/json")
	h.Set("Mcp-Protocol-Version", mcp.ModernVersion)
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	rawjson.DecodeLoose([]byte(body), &m) // the test's own body: one that does not decode gets no Mcp- headers, which the test is about
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

// PostModern posts body to url as a modern client does, with the
// headers ModernHeaders makes of it and extra.
func PostModern(t testing.TB, url, body string, extra map[string]string) (*http.Response, string) {
	t.Helper()
	return Send(t, http.MethodPost, url, ModernHeaders(body, extra), body)
}

// Send sends one request with header (its Host, when there is one, the
// request's host), and reads the answer.
func Send(t testing.TB, method, url string, header http.Header, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if host := header.Get("Host"); host != "" {
		req.Host = host
		header = header.Clone()
		header.Del("Host")
	}
	req.Header = header
	resp, err := Plain.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}
