package commands

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
)

// httpModes are the go-sdk Streamable HTTP server set-ups mcpv must handle.
var httpModes = map[string]*sdk.StreamableHTTPOptions{
	"sse":         {},
	"json":        {JSONResponse: true},
	"stateless":   {Stateless: true},
	"event-store": {EventStore: sdk.NewMemoryEventStore(nil)},
}

func demoHTTP(t *testing.T, opts *sdk.StreamableHTTPOptions) string {
	t.Helper()
	server := demoserver.New()
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, opts))
	t.Cleanup(ts.Close)
	return ts.URL
}

func demoLegacySSE(t *testing.T) string {
	t.Helper()
	server := demoserver.New()
	ts := httptest.NewServer(sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestDemoServerOverHTTP runs the stdio table of TestDemoServer against the
// go-sdk server over each HTTP set-up.
func TestDemoServerOverHTTP(t *testing.T) {
	t.Parallel()
	urls := map[string]func(t *testing.T) string{"legacy-sse": demoLegacySSE}
	for name, opts := range httpModes {
		urls[name] = func(t *testing.T) string { return demoHTTP(t, opts) }
	}
	for mode, url := range urls {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			u := url(t)
			for _, tt := range demoCases {
				if tt.name == "request unknown method" {
					// The go-sdk answers an unknown method over HTTP with a plain
					// 400, not a JSON-RPC error: a transport failure to mcpv.
					tt.wantCode = 4
				}
				r := mcpv(t, tt.stdin, append([]string{"-u", u}, tt.args...)...)
				if r.code != tt.wantCode {
					t.Errorf("%s: exit code %d, want %d; stderr:\n%s", tt.name, r.code, tt.wantCode, r.stderr)
				}
				if d := cmp.Diff(tt.wantOut, strings.TrimSuffix(r.stdout, "\n")); d != "" {
					t.Errorf("%s: stdout (-want +got):\n%s", tt.name, d)
				}
			}
		})
	}
}

func TestHTTPTimeoutAndVerbose(t *testing.T) {
	t.Parallel()
	u := demoHTTP(t, httpModes["sse"])
	start := time.Now()
	r := mcpv(t, "", "-u", u, "-v", "-H", "Authorization: Bearer sekrit-token", "--timeout", "300ms", "call", "slow", "seconds:=30")
	if r.code != 124 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "sekrit") {
		t.Errorf("the verbose trace shows the Authorization header:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "Authorization: ***") || !strings.Contains(r.stderr, `"method":"notifications/cancelled"`) {
		t.Errorf("trace lacks the masked header or the cancellation:\n%s", r.stderr)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
}

// TestGoSDKSessionExpiry ends the go-sdk server's session behind mcpv's back
// (as its idle timeout would) and checks that mcpv starts a new one.
func TestGoSDKSessionExpiry(t *testing.T) {
	t.Parallel()
	server := demoserver.New()
	inner := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	var once sync.Once
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			if strings.Contains(string(body), `"tools/list"`) {
				once.Do(func() { // expire the session: the real server answers 404 from now on
					del := httptest.NewRequest(http.MethodDelete, "/", nil)
					del.Header.Set("Mcp-Session-Id", sid)
					inner.ServeHTTP(httptest.NewRecorder(), del)
				})
			}
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	r := mcpv(t, "", "-u", ts.URL, "list-tools", "-c", "-q", "[.tools[].name]")
	if r.code != 0 || r.stdout != `["add","ask","big","echo","fail","log","roots","sample","slow"]`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "session expired (HTTP 404); starting a new one") {
		t.Errorf("stderr %q", r.stderr)
	}
}
