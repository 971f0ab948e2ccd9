package commands

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Cases found in review: each once made mcpv hang, pick the wrong exit code
// or send a header where it must not go.

func TestHTTPStuckAnswerDoesNotBlockCancellation(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		switch {
		case method == "tools/list":
			sseHeaders(w)
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return true
		case method == "" && string(id) == `"srv-1"`: // mcpv's answer to the ping: never acknowledged
			<-r.Context().Done()
			return true
		}
		return false
	}
	start := time.Now()
	r := mcpv(t, "", "-u", f.url, "--timeout", "1s", "list-tools")
	if r.code != 124 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if took := time.Since(start); took > 8*time.Second {
		t.Errorf("took %v: the stuck POST held up the cancellation", took)
	}
	if !strings.Contains(f.requests(), "POST notifications/cancelled") {
		t.Errorf("no cancellation sent:\n%s", f.requests())
	}
}

func TestHTTPRedirectToAnotherOriginRefused(t *testing.T) {
	t.Parallel()
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "" {
			leaked.Store(true)
		}
		w.WriteHeader(http.StatusTeapot)
	}))
	defer other.Close()
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		http.Redirect(w, r, other.URL+"/evil", http.StatusTemporaryRedirect)
		return true
	}
	r := mcpv(t, "", "-u", f.url, "-H", "X-Api-Key: k", "ping")
	if r.code != 4 || !strings.Contains(r.stderr, "redirect to another origin") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if leaked.Load() {
		t.Error("the -H header reached another origin")
	}
}

func TestHTTPAnswerWithoutOurID(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method != "tools/list" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"no can do"}}`)
		return true
	}
	start := time.Now()
	r := mcpv(t, "", "-u", f.url, "--timeout", "20s", "list-tools")
	if r.code != 3 || !strings.Contains(r.stderr, "no can do") || time.Since(start) > 10*time.Second {
		t.Errorf("exit %d after %v, stderr %q", r.code, time.Since(start), r.stderr)
	}
}

func TestHTTPInitializeRefusedWithVersions(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method == "ping" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
			return true
		}
		if method != "initialize" || strings.Contains(f.lastBody(), `"2025-06-18"`) {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":["2025-06-18"]}}}`, id)
		return true
	}
	r := mcpv(t, "", "-u", f.url, "ping")
	if r.code != 0 || strings.Count(f.requests(), "POST initialize") != 2 {
		t.Errorf("exit %d, stderr %q\nrequests:\n%s", r.code, r.stderr, f.requests())
	}
}

func TestHTTPLegacyFallbackKeepsAuthError(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer ts.Close()
	if r := mcpv(t, "", "-u", ts.URL, "ping"); r.code != 5 {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestVerboseTraceMasksSecretArguments(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"-v", "call", "--no-validate", "echo", "message=hi", "api_key=s3cr3t-value", `auth:={"token":"s3cr3t-too"}`}, demo())...)
	if strings.Contains(r.stderr, "s3cr3t") {
		t.Errorf("the trace shows a secret:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, `"api_key":"***"`) {
		t.Errorf("the trace does not show the masked member:\n%s", r.stderr)
	}
}

func TestURLElicitationRequiredError(t *testing.T) {
	t.Parallel()
	f := newFakeHTTP(t)
	f.onPost = func(w http.ResponseWriter, r *http.Request, method string, id json.RawMessage) bool {
		if method != "tools/call" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32042,"message":"URL elicitation required","data":{"elicitations":[{"mode":"url","elicitationId":"e1","url":"https://auth.example.com/connect?x=1","message":"Connect your account"}]}}}`, id)
		return true
	}
	r := mcpv(t, "", "-u", f.url, "call", "x")
	if r.code != 3 || !strings.Contains(r.stderr, "https://auth.example.com/connect?x=1") || !strings.Contains(r.stderr, "Connect your account") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
