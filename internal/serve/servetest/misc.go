package servetest

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// Plain is these helpers' client, over connections of its own
// (TestNoRequestThroughTheSharedPool says why).
var Plain = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

// Do sends one request with the headers given ("Host" the request's
// host), and reads the answer.
func Do(t testing.TB, method, url string, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	h := http.Header{}
	for k, v := range header {
		h.Set(k, v)
	}
	return Send(t, method, url, h, body)
}

// EchoHeaders is an MCP server of the initialize era that puts the
// headers of each request everywhere it can: its server info, a tool's
// description, a result, an error, a log message.
func EchoHeaders(t testing.TB) string {
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
		if json.Unmarshal(body, &m) != nil {
			http.Error(w, "the body is no JSON-RPC message", http.StatusBadRequest)
			return
		}
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		all, _ := json.Marshal(r.Header)
		quoted, _ := json.Marshal(string(all))
		text := string(quoted)
		var answer string // its result, or its error, as a member of the response
		switch {
		case m.Method == "initialize":
			answer = `"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"echo","version":` + text + `},"instructions":` + text + `}`
		case m.Method == "tools/list":
			answer = `"result":{"tools":[{"name":"headers","description":` + text + `,"inputSchema":{"type":"object"}}]}`
		case m.Method == "tools/call" && m.Params.Name == "headers":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: "+`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":`+text+`}}`+"\n\n")
			io.WriteString(w, "data: "+`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[{"type":"text","text":`+text+`}]}}`+"\n\n")
			return
		default:
			answer = `"error":{"code":-32603,"message":` + text + `,"data":{"headers":` + string(all) + `}}`
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,`+answer+`}`)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// WithHeader adds its header to every request.
type WithHeader struct{ H http.Header }

func (w WithHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	maps.Copy(r.Header, w.H)
	return Plain.Transport.RoundTrip(r)
}

// Counting is open (a serve.Server's Open) counting the sessions it
// opens.
func Counting[R, U any](open func(context.Context, R) (U, error)) (func(context.Context, R) (U, error), *atomic.Int64) {
	var opened atomic.Int64
	return func(ctx context.Context, r R) (U, error) {
		opened.Add(1)
		return open(ctx, r)
	}, &opened
}
