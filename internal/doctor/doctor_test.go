package doctor

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

func TestMain(m *testing.M) {
	if mcptest.RunIfRequested() {
		return
	}
	os.Exit(mcptest.GuardSuite(m.Run))
}

// want is what a walk must end in: the step that fails (or "" for none)
// with its code and words in its finding and fix, and steps that pass or
// warn on the way.
type want struct {
	fail       string // the failing step's name
	code       int
	finding    string // in the failing step's finding (or, with fail "", in the named step's)
	fix        string
	ok, warned []string
}

func (w want) check(t *testing.T, r *Report) {
	t.Helper()
	byName := map[string]Step{}
	for _, s := range r.Steps {
		byName[s.Name] = s
	}
	f := r.Failed()
	switch {
	case w.fail == "" && f != nil:
		t.Errorf("failed at %s: %s", f.Name, f.Finding)
	case w.fail != "" && f == nil:
		t.Errorf("no step failed, want %s", w.fail)
	case w.fail != "" && f.Name != w.fail:
		t.Errorf("failed at %s (%s), want %s", f.Name, f.Finding, w.fail)
	case f != nil:
		if f.Code != w.code || r.code() != w.code {
			t.Errorf("code %d, want %d", f.Code, w.code)
		}
		if !strings.Contains(f.Finding, w.finding) || !strings.Contains(f.Fix, w.fix) {
			t.Errorf("finding %q, fix %q; want %q and %q", f.Finding, f.Fix, w.finding, w.fix)
		}
		after := false
		for _, s := range r.Steps {
			if after && s.Status != Skipped {
				t.Errorf("%s was reached after %s failed", s.Name, f.Name)
			}
			after = after || s.Name == f.Name
		}
	}
	for _, n := range w.ok {
		if s := byName[n]; s.Status != OK {
			t.Errorf("%s: %s %q, want ok", n, s.Status, s.Finding)
		}
	}
	for _, n := range w.warned {
		if s := byName[n]; s.Status != Warn || s.Fix == "" {
			t.Errorf("%s: %s %q, want a warning with a fix", n, s.Status, s.Finding)
		}
	}
	if t.Failed() {
		for _, s := range r.Steps {
			t.Logf("  %s %s: %s (%s)", s.Status, s.Name, s.Finding, s.Fix)
		}
	}
}

func walkOf(t *testing.T, tg Target) *Report {
	t.Helper()
	if tg.Timeout == 0 {
		tg.Timeout = 10 * time.Second
	}
	tg.ClientInfo = mcp.Implementation{Name: "doctor-test", Version: "0"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return Walk(ctx, tg)
}

// answering is an MCP endpoint that answers initialize, as handler.
func answering(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"t","version":"0"}}}`))
}

// Over HTTP, a server broken at each step fails the walk at that step,
// with the exit code it stands for and a fix; a good one passes.
func TestHTTPWalk(t *testing.T) {
	t.Parallel()
	spec, _ := mcptest.ParseSpec([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`))
	good := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Spec: spec})
	closed := testkit.DeadURL(t)
	serve := func(h http.HandlerFunc) string {
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.URL + "/mcp"
	}
	as := oauthtest.New(t, http.HandlerFunc(answering))
	tests := []struct {
		name string
		tg   Target
		want want
	}{
		{"a good server", Target{URL: good.URL},
			want{ok: []string{"URL", "proxy", "name resolution", "TCP connect", "endpoint", "resource metadata", "server card", "era"}}},
		{"no http URL", Target{URL: "ftp://example.test/mcp"}, want{fail: "URL", code: 4, finding: `scheme "ftp"`, fix: "http://"}},
		{"a name that does not resolve", Target{URL: "http://no-such-host.test/mcp", Resolve: func(context.Context, string) ([]string, error) {
			return nil, &net.DNSError{Err: "no such host", Name: "no-such-host.test", IsNotFound: true}
		}}, want{fail: "name resolution", code: 4, finding: "cannot be resolved", fix: "spelling"}},
		{"nothing listens", Target{URL: closed}, want{fail: "TCP connect", code: 4, finding: "connection refused", fix: "start the server"}},
		{"a redirect", Target{URL: serve(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/mcp/", http.StatusTemporaryRedirect)
		})},
			want{fail: "endpoint", code: 4, finding: "a redirect to /mcp/", fix: "--url /mcp/"}},
		{"no endpoint here", Target{URL: serve(http.NotFound)}, want{fail: "endpoint", code: 4, finding: "no MCP endpoint here", fix: "/mcp"}},
		{"a web page", Target{URL: serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>sign in</html>"))
		})}, want{fail: "endpoint", code: 4, finding: "a web page", fix: "sign-in page"}},
		{"a server error", Target{URL: serve(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "database down", 500) })},
			want{fail: "endpoint", code: 4, finding: "database down", fix: "log"}},
		{"an answer of the wrong type", Target{URL: serve(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })},
			want{fail: "endpoint", code: 1, finding: "text/plain", fix: "JSON or an event stream"}},
		{"an endpoint that never answers", Target{URL: serve(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // then the server sees the client go
			<-r.Context().Done()
		}), Timeout: 300 * time.Millisecond},
			want{fail: "endpoint", code: 124, finding: "no answer", fix: "--connect-timeout"}},
		{"authorization asked for", Target{URL: as.URL()},
			want{fail: "authorization", code: 5, finding: "Bearer", fix: "mcpv auth login", ok: []string{"endpoint", "resource metadata", "authorization server", "registration", "scopes"}}},
		{"an era mcpv does not speak", Target{URL: serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"t","version":"0"}}}`))
		}), Era: "legacy"},
			want{fail: "era", code: 4, finding: `"1999-01-01"`, fix: "no version in common", ok: []string{"endpoint"}}},
		{"the first request refused", Target{URL: serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unsupported protocol version"}}`))
		}), Era: "legacy"},
			want{fail: "era", code: 4, finding: "initialize was refused: error -32602: Unsupported protocol version", fix: "speaks no era"}},
		{"server/discover listing no version mcpv speaks", Target{URL: serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2030-01-01"],"capabilities":{}}}`))
		}), Era: "modern"},
			want{fail: "era", code: 1, finding: `lists no version mcpv speaks: ["2030-01-01"]`}},
		{"server/discover's result not decoding", Target{URL: serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":"2026-07-28","capabilities":{}}}`))
		}), Era: "modern"},
			want{fail: "era", code: 1, finding: "server/discover's result does not decode", fix: "supportedVersions is an array of strings"}},
		{"initialize's result not decoding", Target{URL: serve(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":20250618,"capabilities":{},"serverInfo":{"name":"t","version":"0"}}}`))
		}), Era: "legacy"},
			want{fail: "era", code: 4, finding: "initialize's result does not decode", fix: "protocolVersion is a string"}},
		{"a proxy in the way", Target{URL: good.URL, Plain: &http.Client{Transport: &http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return url.Parse(closed) }}}},
			want{fail: "TCP connect", code: 4, finding: "connection refused", warned: []string{"proxy"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.want.check(t, walkOf(t, tc.tg))
		})
	}
}

// TLS: a certificate no authority this machine trusts signed, one for
// another name, one expired: each fails the TLS step, saying which; a
// trusted one passes, saying for what and until when.
func TestTLSWalk(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(answering))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes refused on purpose
	srv.StartTLS()
	t.Cleanup(srv.Close)
	trusted := srv.Client() // trusts the test server's certificate
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	toLoopback := func(context.Context, string) ([]string, error) { return []string{"127.0.0.1"}, nil }
	expired := expiredServer(t)
	_, eport, _ := net.SplitHostPort(expired.srv.Listener.Addr().String())
	tests := []struct {
		name string
		tg   Target
		want want
	}{
		{"trusted", Target{URL: srv.URL + "/mcp", Plain: trusted, Client: trusted}, want{ok: []string{"TLS", "endpoint", "era"}}},
		{"an authority not trusted", Target{URL: srv.URL + "/mcp"}, want{fail: "TLS", code: 4, finding: "which no authority this machine trusts signed", fix: "--cacert"}},
		{"another name", Target{URL: "https://wrong-name.test:" + port + "/mcp", Plain: trusted, Client: trusted, Resolve: toLoopback},
			want{fail: "TLS", code: 4, finding: "not for wrong-name.test", fix: "a name its certificate has"}},
		{"expired", Target{URL: "https://127.0.0.1:" + eport + "/mcp", Plain: expired.client, Client: expired.client},
			want{fail: "TLS", code: 4, finding: "it has expired", fix: "renew"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.want.check(t, walkOf(t, tc.tg))
		})
	}
}

// expiredServer is a TLS server whose certificate, from a CA the client
// trusts, expired yesterday.
func expiredServer(t *testing.T) (out struct {
	srv    *httptest.Server
	client *http.Client
}) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: time.Now().Add(-48 * time.Hour),
		NotAfter: time.Now().Add(48 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	out.srv = httptest.NewUnstartedServer(http.HandlerFunc(answering))
	out.srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	out.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	out.srv.StartTLS()
	t.Cleanup(out.srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(caCert)
	out.client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	return out
}

// Over stdio, a server broken at each step fails the walk at that step:
// not found, not executable, exiting at once, silent; one that writes
// junk on stdout before its answer is warned about; a good one passes.
func TestStdioWalk(t *testing.T) {
	t.Parallel()
	self := os.Args[0]
	fake := func(behaviours string) *mcp.CommandOptions {
		return &mcp.CommandOptions{Path: self, Env: append(os.Environ(), mcptest.EnvVar+"="+behaviours)}
	}
	textOnly := filepath.Join(t.TempDir(), "spec.json")
	os.WriteFile(textOnly, []byte(`{"faults":["text-answers"]}`), 0o600)
	pretty := filepath.Join(t.TempDir(), "pretty.json")
	os.WriteFile(pretty, []byte(`{"faults":["pretty-json"]}`), 0o600)
	notExec := filepath.Join(t.TempDir(), "server")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	tests := []struct {
		name string
		tg   Target
		want want
	}{
		{"a good server", Target{Stdio: fake("plain")}, want{ok: []string{"command", "start", "stderr", "stdout before the answer", "first answer", "era"}}},
		{"not found", Target{Stdio: &mcp.CommandOptions{Path: "mcpv-doctor-no-such-server"}}, want{fail: "command", code: 4, finding: "not found", fix: "install"}},
		{"not executable", Target{Stdio: &mcp.CommandOptions{Path: notExec}}, want{fail: "command", code: 4, finding: "not executable", fix: "chmod +x"}},
		{"exits at once", Target{Stdio: fake("no-such-behaviour")}, want{fail: "first answer", code: 4, finding: "no-such-behaviour", fix: "run the command by hand"}},
		{"silent", Target{Stdio: fake("slow-start=60000"), StartTimeout: 300 * time.Millisecond}, want{fail: "first answer", code: 124, finding: "no answer", fix: "--connect-timeout"}},
		{"junk on stdout", Target{Stdio: fake("junk")}, want{warned: []string{"stdout before the answer"}, ok: []string{"first answer"}}},
		// A line of no JSON has the first exchange judged at once: a
		// requirement broken ends the wait (an hour) with exit 1; none, and
		// the answer is waited for.
		{"junk judged a requirement broken", Target{Stdio: fake("spec=" + textOnly), StartTimeout: time.Hour, FirstContact: func(context.Context) (string, string) {
			return "jsonrpc.stdout-only", "initialize and 3 pings were answered with text"
		}}, want{fail: "first answer", code: 1, finding: "breaks jsonrpc.stdout-only: initialize and 3 pings", fix: "mcpv check"}},
		{"junk judged no defect", Target{Stdio: fake("junk"), FirstContact: func(context.Context) (string, string) { return "", "" }},
			want{warned: []string{"stdout before the answer"}, ok: []string{"first answer", "first exchange"}}},
		// The verdict on lines that are no message alone waits while they
		// may make the answer: the answer written over several lines is
		// taken, and the first exchange names what it breaks.
		{"an answer over several lines", Target{Stdio: fake("spec=" + pretty), StartTimeout: time.Hour, FirstContact: func(context.Context) (string, string) {
			return "jsonrpc.framing", "a message is written over several lines"
		}}, want{fail: "first exchange", code: 1, finding: "jsonrpc.framing", ok: []string{"first answer"}, warned: []string{"stdout before the answer"}}},
		{"the first exchange breaks a requirement", Target{Stdio: fake("plain"), FirstContact: func(context.Context) (string, string) {
			return "jsonrpc.framing", "a message is written over several lines"
		}}, want{fail: "first exchange", code: 1, finding: "jsonrpc.framing", fix: "mcpv check"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.want.check(t, walkOf(t, tc.tg))
		})
	}
}

// The stderr a server writes before it fails is quoted in the walk.
func TestStdioQuotesStderr(t *testing.T) {
	testkit.SkipLong(t, "a start that times out after 3 s")
	t.Parallel()
	// Long enough for a busy machine's fake to have said its line.
	r := walkOf(t, Target{Stdio: &mcp.CommandOptions{Path: os.Args[0], Env: append(os.Environ(), mcptest.EnvVar+"=slow-start=60000")}, StartTimeout: 3 * time.Second})
	for _, s := range r.Steps {
		if s.Name == "stderr" && !strings.Contains(s.Finding, "fake: starting up") {
			t.Errorf("stderr: %q", s.Finding)
		}
	}
}

// A requirement the first exchange breaks, judged while a value begun
// on stdout is still held ({ and then nothing, or lines of nesting that
// none ends), is the walk's verdict when its wait ends, not "no answer,
// but lines that are no message": the value may yet make the answer, so
// the wait goes on to its bound, but what the diagnosis found (which
// requirement, what was sent) is not lost with it.
func TestStdioVerdictHeldPastAValueBegun(t *testing.T) {
	testkit.SkipLong(t, "a wait that ends at its 3 s bound")
	t.Parallel()
	server := filepath.Join(t.TempDir(), "server")
	testkit.WriteScript(t, server, []byte("#!/bin/sh\nprintf '{\\n'\nexec sleep 600\n"), 0o755)
	r := walkOf(t, Target{Stdio: &mcp.CommandOptions{Path: server}, StartTimeout: 3 * time.Second, FirstContact: func(context.Context) (string, string) {
		return "jsonrpc.messages", "a message that is not JSON-RPC: unexpected end of JSON input"
	}})
	want{fail: "first answer", code: 1, finding: "breaks jsonrpc.messages", fix: "mcpv check"}.check(t, r)
}

// What a hostile endpoint sends (terminal escapes, a secret echoed, a
// body of megabytes, a server card of megabytes) reaches the walk's
// report clipped, with controls escaped and secrets masked.
func TestHostileEndpoint(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t-Token-Value"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/server-card") || strings.HasPrefix(r.URL.Path, "/.well-known/") {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"name":"` + strings.Repeat("x", 4<<20) + `"}`))
			return
		}
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(500)
		w.Write([]byte("\x1b[2J\x1b]0;pwned\x07 token=" + secret + " " + strings.Repeat("y", 4<<20)))
	}))
	t.Cleanup(srv.Close)
	r := walkOf(t, Target{URL: srv.URL + "/mcp"})
	f := r.File(time.Now())
	known := redact.NewScrubber(nil)
	known.Add(secret)
	f.Mask(known.String)
	var all strings.Builder
	for _, s := range f.Steps {
		for _, fl := range s.Failures {
			all.WriteString(fl.Message + strings.Join(fl.Details, " "))
		}
		all.WriteString(strings.Join(s.Notes, " ") + s.Reason)
	}
	out := all.String()
	if strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, secret) || len(out) > 64<<10 {
		t.Errorf("the report holds a control, the secret or too much (%d bytes): %.300q", len(out), out)
	}
	if !strings.Contains(out, "the server failed") {
		t.Errorf("no failure said: %.300q", out)
	}
}

// Code is the walk's exit code: 0 when every step passed, else the
// failed step's.
func (r *Report) code() int {
	if f := r.Failed(); f != nil {
		return f.Code
	}
	return 0
}

// String names a status in a test's messages.
func (s Status) String() string { return [...]string{"ok", "warn", "fail", "skipped"}[s] }

// Lines held as the pieces of a message are let go once they make a whole
// value that is no response, or what no more lines make JSON; a response
// written over lines is returned with the count of its lines.
func TestPiecesLetGoOfWhatIsNoAnswer(t *testing.T) {
	t.Parallel()
	var p pieces
	feed := func(text string) (*mcp.Message, int, bool) {
		var m *mcp.Message
		var n int
		var under bool
		for _, l := range strings.Split(text, "\n") {
			m, n, under = p.add([]byte(l))
		}
		return m, n, under
	}
	if _, _, under := feed("{\n  \"jsonrpc\": \"2.0\","); !under {
		t.Error("a value begun is not under way")
	}
	if m, _, under := feed("  \"method\": \"notifications/message\"\n}"); m != nil || under {
		t.Errorf("a notification over lines: %v, under way %v", m, under)
	}
	if m, _, under := feed("{ this is no JSON"); m != nil || under {
		t.Errorf("text after a brace: %v, under way %v", m, under)
	}
	if _, _, under := feed("{\n  \"jsonrpc\": \"2.0\",\n  oops\n{"); !under {
		t.Error("a line that begins a value after lines that make no JSON is not held")
	}
	m, n, under := feed("  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {}\n}")
	if m == nil || n != 5 || under || !m.IsResponse() {
		t.Errorf("a response over 5 lines: %v over %d, under way %v", m, n, under)
	}
}
