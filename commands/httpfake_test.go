package commands

import (
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
)

// fakeHTTP is a scripted MCP server over HTTP for the cases a real server
// rarely shows. It answers initialize itself and hands every other POST to
// the test's handler; it records every request it gets.
type fakeHTTP struct {
	t       *testing.T
	url     string
	mu      sync.Mutex // guards log and sessions
	log     []string   // "METHOD jsonrpc-method headers..." per request
	body    string     // the last request body
	session int        // how many sessions were issued
	// onPost answers a POST other than initialize; it returns false to let
	// the fake answer (202 for notifications and responses).
	onPost func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool
	// onGet answers a GET; nil answers 405.
	onGet func(w http.ResponseWriter, r *http.Request)
}

func newFakeHTTP(t *testing.T) *fakeHTTP {
	f := &fakeHTTP{t: t}
	ts := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(ts.Close)
	f.url = ts.URL + "/mcp"
	return f
}

func (f *fakeHTTP) record(s string) {
	f.mu.Lock()
	f.log = append(f.log, s)
	f.mu.Unlock()
}

func (f *fakeHTTP) lastBody() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.body
}

func (f *fakeHTTP) requests() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.log, "\n")
}

func (f *fakeHTTP) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	json.Unmarshal(body, &m)
	f.mu.Lock()
	f.body = string(body)
	f.mu.Unlock()
	f.record(fmt.Sprintf("%s %s sid=%s version=%s last-event-id=%s", r.Method, m.Method,
		r.Header.Get("Mcp-Session-Id"), r.Header.Get("Mcp-Protocol-Version"), r.Header.Get("Last-Event-ID")))
	switch {
	case r.Method == http.MethodPost && f.onPost != nil && f.onPost(w, r, m.Method, m.ID):
	case r.Method == http.MethodGet:
		if f.onGet == nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		f.onGet(w, r)
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	case m.Method == "initialize":
		f.mu.Lock()
		f.session++
		sid := fmt.Sprintf("s%d", f.session)
		f.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", sid)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"0"}}}`, m.ID)
	case m.Method == "tools/list":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}`, m.ID)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

func TestHTTPStreamCutMidResponseIsResumed(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method != "tools/list" {
			return false
		}
		sseHeaders(w)
		// A priming event, a retry delay, then half an event and the cut.
		fmt.Fprint(w, "id: ev-1\nretry: 100\ndata:\n\n: keep-alive\n")
		fmt.Fprintf(w, `data: {"jsonrpc":"2.0","id":%s,"result":{"tools":[`, id)
		w.(http.Flusher).Flush()
		return true
	}
	f.onGet = func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Last-Event-ID") != "ev-1" {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		sseHeaders(w)
		// The whole response again, as two data lines of one event.
		fmt.Fprint(w, "id: ev-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\n")
		fmt.Fprint(w, "data: \"result\":{\"tools\":[{\"name\":\"resumed\"}]}}\n\n")
	}
	r := mcpv(t, "", "-u", f.url, "list-tools")
	if r.code != 0 || r.stdout != `{"tools":[{"name":"resumed"}]}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q\nrequests:\n%s", r.code, r.stdout, r.stderr, f.requests())
	}
	if !strings.Contains(f.requests(), "GET  sid=s1 version=2025-11-25 last-event-id=ev-1") {
		t.Errorf("no resumption with Last-Event-ID and session headers:\n%s", f.requests())
	}
}

func TestHTTPStreamLostForGood(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method != "tools/list" {
			return false
		}
		sseHeaders(w) // no event id: the stream cannot be resumed
		fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n")
		return true
	}
	r := mcpv(t, "", "-u", f.url, "list-tools")
	if r.code != 4 || !strings.Contains(r.stderr, "cannot be resumed") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestHTTPSessionExpiredReinitializes(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method != "tools/list" {
			return false
		}
		if r.Header.Get("Mcp-Session-Id") == "s1" {
			w.WriteHeader(http.StatusNotFound)
			return true
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"after-%s"}]}}`, id, r.Header.Get("Mcp-Session-Id"))
		return true
	}
	r := mcpv(t, "", "-u", f.url, "list-tools")
	if r.code != 0 || r.stdout != `{"tools":[{"name":"after-s2"}]}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q\nrequests:\n%s", r.code, r.stdout, r.stderr, f.requests())
	}
	want := []string{"POST initialize sid= ", "POST tools/list sid=s1", "POST initialize sid= ", "POST notifications/initialized sid=s2", "POST tools/list sid=s2", "DELETE  sid=s2"}
	got := f.requests()
	at := 0
	for _, w := range want {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("requests lack %q in order; got:\n%s", w, got)
		}
		at += i + len(w)
	}
	if !strings.Contains(r.stderr, "session expired") {
		t.Errorf("stderr %q does not tell about the new session", r.stderr)
	}
}

func TestHTTPNotificationAnswers(t *testing.T) {
	t.Parallel()
	// The conformance suite's raw server answers notifications with 200 and a
	// body that is no response to anything; GET with 400.
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method == "initialize" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		if method == "ping" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
		} else {
			fmt.Fprint(w, `{"jsonrpc":"2.0","result":{}}`)
		}
		return true
	}
	f.onGet = func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadRequest) }
	r := mcpv(t, "", "-u", f.url, "ping")
	if r.code != 0 || r.stdout != "{}\n" || r.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter, id json.RawMessage)
		code   int
		errHas string
	}{
		{"401 names the challenge", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://x/.well-known/oauth-protected-resource", scope="tools:read"`)
			w.WriteHeader(http.StatusUnauthorized)
		}, 5, `scope="tools:read"`},
		{"403", func(w http.ResponseWriter, id json.RawMessage) { w.WriteHeader(http.StatusForbidden) }, 5, "refused access (HTTP 403"},
		{"500", func(w http.ResponseWriter, id json.RawMessage) {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "database down")
		}, 4, "HTTP 500 Internal Server Error from http://127.0.0.1"},
		{"JSON-RPC error in a 400", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"bad cursor"}}`, id)
		}, 3, "bad cursor"},
		{"batch answer", func(w http.ResponseWriter, id json.RawMessage) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			fmt.Fprintf(w, `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}},{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}]`, id)
		}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeHTTP(t)
			f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
				if method != "tools/list" {
					return false
				}
				tt.answer(w, id)
				return true
			}
			r := mcpv(t, "", "-u", f.url, "list-tools")
			if r.code != tt.code || !strings.Contains(r.stderr, tt.errHas) {
				t.Fatalf("exit %d (want %d), stderr %q (want %q)", r.code, tt.code, r.stderr, tt.errHas)
			}
			if strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
				t.Errorf("stderr is not one line: %q", r.stderr)
			}
		})
	}
}

func TestHTTPTimeoutCancelsByPostThenDeletes(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method != "tools/call" {
			return false
		}
		sseHeaders(w)
		<-r.Context().Done() // never answers
		return true
	}
	start := time.Now()
	r := mcpv(t, "", "-u", f.url, "--timeout", "200ms", "call", "x")
	if r.code != 124 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	got := f.requests()
	c, d := strings.Index(got, "POST notifications/cancelled sid=s1"), strings.Index(got, "DELETE  sid=s1")
	if c < 0 || d < 0 || c > d {
		t.Errorf("want the cancellation POSTed, then DELETE; got:\n%s", got)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
}

func TestHTTPUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		errHas string
	}{
		{[]string{"-u", "ftp://x", "ping"}, "want an http:// or https:// URL with a host"},
		{[]string{"-u", "ftp://user:pw@x/?api_key=s3cr3t", "ping"}, "invalid server URL"},
		{[]string{"-u", "http://127.0.0.1:1", "-H", "Bearer sk-live-s3cr3t", "ping"}, "(21 characters)"},
		{[]string{"-u", "http://127.0.0.1:1", "ping", "--", "server"}, "give one server"},
		{[]string{"-H", "X-A: b", "ping", "--", "server"}, "are for HTTP servers"},
		{[]string{"-u", "http://127.0.0.1:1", "-H", "no colon", "ping"}, "want 'Name: value'"},
		{[]string{"-u", "http://127.0.0.1:1", "--env", "A=1", "ping"}, "--env and --cwd are for stdio servers"},
		{[]string{"-u", "http://127.0.0.1:1", "--transport", "carrier-pigeon", "ping"}, "must be one of"},
	}
	for _, tt := range tests {
		r := mcpv(t, "", tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.errHas) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.errHas)
		}
		if strings.Contains(r.stderr, "s3cr3t") {
			t.Errorf("%q: stderr shows a secret: %q", tt.args, r.stderr)
		}
	}
	if r := mcpv(t, "", "-u", "http://127.0.0.1:1/mcp", "ping"); r.code != 4 || !strings.Contains(r.stderr, "connection refused") {
		t.Errorf("unreachable server: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestHTTPHeadersAndURLFromEnvironment(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method != "ping" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"team":%q,"key":%q}}`, id, r.Header.Get("X-Team"), r.Header.Get("X-Api-Key"))
		return true
	}
	file := t.TempDir() + "/headers"
	if err := os.WriteFile(file, []byte("# credentials\nX-Api-Key: k-123\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mcpvIn(t, with(testEnv(t), "MCPV_URL="+f.url), "", "-H", "X-Team: blue", "--header", "@"+file, "ping")
	if r.code != 0 || r.stdout != `{"team":"blue","key":"k-123"}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestHTTPSWithCACert(t *testing.T) {
	t.Parallel()
	server := demoserver.New()
	ts := httptest.NewTLSServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(ts.Close)
	certFile := t.TempDir() + "/ca.pem"
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	if err := os.WriteFile(certFile, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	if r := mcpv(t, "", "-u", ts.URL, "ping"); r.code != 4 || !strings.Contains(r.stderr, "certificate") {
		t.Errorf("without --cacert: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := mcpv(t, "", "-u", ts.URL, "--cacert", certFile, "ping"); r.code != 0 || r.stdout != "{}\n" {
		t.Errorf("with --cacert: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	notPEM := t.TempDir() + "/not.pem"
	os.WriteFile(notPEM, []byte("hello"), 0o644)
	if r := mcpv(t, "", "-u", ts.URL, "--cacert", notPEM, "ping"); r.code != 2 || !strings.Contains(r.stderr, "no PEM certificate") {
		t.Errorf("bad --cacert: exit %d, stderr %q", r.code, r.stderr)
	}
}
