package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// echoHeaders is an MCP server of the initialize era that puts the
// headers of each request everywhere it can: its server info, a tool's
// description, a result, an error, a log message.
func echoHeaders(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		json.Unmarshal(body, &m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		all, _ := json.Marshal(r.Header)
		quoted, _ := json.Marshal(string(all))
		text := string(quoted)
		var result, rpcErr string
		switch {
		case m.Method == "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"echo","version":` + text + `},"instructions":` + text + `}`
		case m.Method == "tools/list":
			result = `{"tools":[{"name":"headers","description":` + text + `,"inputSchema":{"type":"object"}}]}`
		case m.Method == "tools/call" && m.Params.Name == "headers":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: "+`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":`+text+`}}`+"\n\n")
			result = `{"content":[{"type":"text","text":` + text + `}]}`
			io.WriteString(w, "data: "+`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`+"\n\n")
			return
		default:
			rpcErr = `{"code":-32603,"message":` + text + `,"data":{"headers":` + string(all) + `}}`
		}
		w.Header().Set("Content-Type", "application/json")
		if rpcErr != "" {
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":`+rpcErr+`}`)
			return
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestTokensStayInside: a server that echoes the credentials it is sent
// (in results, errors, notifications, its server info) never shows them
// to a client of serve, on stdio or HTTP: a client that records all it
// receives finds them masked.
func TestTokensStayInside(t *testing.T) {
	t.Parallel()
	const token = "s3cr3t-t0ken-v4lue"
	const key = `k3y"with\quote`
	header := http.Header{"Authorization": {"Bearer " + token}, "X-Api-Key": {key}}
	srv := startServer(t, settingsFor(echoHeaders(t), "legacy", header), nil, false)
	stdio, stdioRec := stdioClient(t, srv, "legacy")
	web, webRec := httpClient(t, serveHTTP(t, srv, ""), "legacy", "http")
	for name, c := range map[string]*mcp.Client{"stdio": stdio, "http": web} {
		call(t, c, "tools/list", `{}`)
		if res := call(t, c, "tools/call", `{"name":"headers","arguments":{}}`); !strings.Contains(string(res), "***") {
			t.Errorf("%s: the server's echo is not there, masked: %s", name, res)
		}
		if _, err := c.Call(t.Context(), "resources/list", nil); err == nil {
			t.Errorf("%s: resources/list: want the server's error", name)
		}
	}
	escaped, _ := json.Marshal(key)
	twice, _ := json.Marshal(string(escaped))
	for name, rec := range map[string]*recorder{"stdio": stdioRec, "http": webRec} {
		got := rec.all()
		if len(got) < 5 {
			t.Fatalf("%s: the client received %d messages", name, len(got))
		}
		for _, m := range got {
			for _, secret := range []string{token, key, string(escaped[1 : len(escaped)-1]), string(twice[3 : len(twice)-3])} {
				if strings.Contains(string(m), secret) {
					t.Errorf("%s: a client received a secret: %s", name, m)
				}
			}
		}
	}
}
