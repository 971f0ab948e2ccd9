package oauth

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/output"
)

// fakeAuthorizationEndpoint redirects every authorization request to its
// redirect_uri with the parameters answer makes of the request's, and hands
// the request's query to the test.
func fakeAuthorizationEndpoint(t *testing.T, answer func(q url.Values) url.Values) (*ServerMetadata, chan url.Values) {
	t.Helper()
	queries := make(chan url.Values, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		queries <- q
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+answer(q).Encode(), http.StatusFound)
	}))
	t.Cleanup(srv.Close)
	return &ServerMetadata{Issuer: srv.URL, AuthorizationEndpoint: srv.URL + "/authorize?tenant=t1"}, queries
}

// browserPage is what the test's browser was shown last.
type browserPage struct {
	status int
	body   string
}

// playBrowser is an Open that does what the user's browser would: it
// follows the authorization URL and its redirect to mcpv's listener.
func playBrowser(t *testing.T, page *browserPage) func(string) error {
	return func(u string) error {
		resp, err := testkit.HTTP(t).Get(u)
		if err != nil {
			t.Errorf("browser: %v", err)
			return nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		page.status, page.body = resp.StatusCode, string(b)
		return nil
	}
}

// TestListen: the default redirect listens on an ephemeral port of the
// IPv4 loopback address, which RFC 8252 §7.3 and §8.3 prefer to
// "localhost"; any port is allowed for a loopback redirect URI.
func TestListen(t *testing.T) {
	ln, uri, err := ListenRedirect(Redirect{})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[1-9][0-9]*/callback$`).MatchString(uri) || !strings.Contains(uri, ln.Addr().String()) {
		t.Errorf("redirect URI %q for a listener on %s", uri, ln.Addr())
	}
}

func TestAuthorize(t *testing.T) {
	sameState := func(extra ...string) func(url.Values) url.Values {
		return func(q url.Values) url.Values {
			out := url.Values{"state": {q.Get("state")}}
			for i := 0; i < len(extra); i += 2 {
				out.Set(extra[i], extra[i+1])
			}
			return out
		}
	}
	for _, tc := range []struct {
		name            string
		scope, resource string
		answer          func(url.Values) url.Values // "ISSUER" in a value stands for the issuer
		openErr         error
		wantCode        string
		wantErr         *Error // Err apart
		errHas          string
		wantStatus      int
		pageHas         string
	}{
		{name: "success", scope: "mcp:read mcp:write", resource: "https://mcp.example/mcp", answer: sameState("code", "c-1"),
			wantCode: "c-1", wantStatus: 200, pageHas: "mcpv is authorized; you can close this tab"},
		{name: "no scope or resource", answer: sameState("code", "c-2"), wantCode: "c-2", wantStatus: 200},
		{name: "Open fails", answer: sameState("code", "c-3"), openErr: errors.New("no display"), wantCode: "c-3", wantStatus: 200},
		{name: "issuer as expected", answer: sameState("code", "c-4", "iss", "ISSUER"), wantCode: "c-4", wantStatus: 200},
		{name: "another issuer, error or not", answer: sameState("iss", "https://evil.example", "error", "access_denied", "error_description", "go to evil.example"),
			wantErr: &Error{Step: StepAuthorization}, errHas: `comes from issuer https://evil.example, not `, wantStatus: 400, pageHas: "possible mix-up attack"},
		{name: "issuer twice", answer: func(q url.Values) url.Values {
			return url.Values{"state": {q.Get("state")}, "code": {"c-5"}, "iss": {"ISSUER", "ISSUER"}}
		}, wantErr: &Error{Step: StepAuthorization}, errHas: "possible mix-up attack", wantStatus: 400},
		{name: "access denied", answer: sameState("error", "access_denied", "error_description", "the user said <no>"),
			wantErr:    &Error{Step: StepAuthorization, Code: "access_denied", Description: "the user said <no>"},
			wantStatus: 400, pageHas: "access_denied (the user said &lt;no&gt;)"},
		{name: "no code", answer: sameState(), wantErr: &Error{Step: StepAuthorization}, errHas: "carries no code", wantStatus: 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var md *ServerMetadata
			md, queries := fakeAuthorizationEndpoint(t, func(q url.Values) url.Values {
				a := tc.answer(q)
				for k, vs := range a {
					for i, v := range vs {
						if v == "ISSUER" {
							a[k][i] = md.Issuer
						}
					}
				}
				return a
			})
			ln, redirect, err := ListenRedirect(Redirect{})
			if err != nil {
				t.Fatal(err)
			}
			var page browserPage
			browse := playBrowser(t, &page)
			var diag strings.Builder
			code, verifier, err := Authorize(t.Context(), AuthorizeRequest{
				Metadata: md, Client: &Client{ID: "client-1"}, Scope: tc.scope, Resource: tc.resource,
				Listener: ln, RedirectURI: redirect, Log: output.NewLogger(&diag),
				Open: func(u string) error { browse(u); return tc.openErr },
			})

			q := <-queries
			if tc.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				if code != tc.wantCode {
					t.Errorf("code %q, want %q", code, tc.wantCode)
				}
				if got := q.Get("code_challenge"); got != S256(verifier) {
					t.Errorf("code_challenge %q is not S256 of the verifier", got)
				}
				if strings.Contains(diag.String(), verifier) {
					t.Errorf("the verifier was printed: %q", diag.String())
				}
			} else {
				var oe *Error
				if !errors.As(err, &oe) {
					t.Fatalf("err = %v (%T), want an *Error", err, err)
				}
				if diff := cmp.Diff(tc.wantErr, oe, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if !strings.Contains(err.Error(), tc.errHas) {
					t.Errorf("err = %q, want it to contain %q", err, tc.errHas)
				}
				if code != "" || verifier != "" {
					t.Errorf("code %q and verifier %q came back with an error", code, verifier)
				}
			}

			want := url.Values{"tenant": {"t1"}, "response_type": {"code"}, "client_id": {"client-1"}, "redirect_uri": {redirect},
				"code_challenge_method": {"S256"}, "state": q["state"], "code_challenge": q["code_challenge"]}
			if tc.scope != "" {
				want.Set("scope", tc.scope)
			}
			if tc.resource != "" {
				want.Set("resource", tc.resource)
			}
			if diff := cmp.Diff(want, q); diff != "" {
				t.Errorf("authorization request (-want +got):\n%s", diff)
			}
			if len(q.Get("state")) < 22 || len(q.Get("code_challenge")) != 43 {
				t.Errorf("state %q, code_challenge %q", q.Get("state"), q.Get("code_challenge"))
			}

			lines := strings.Split(strings.TrimSuffix(diag.String(), "\n"), "\n")
			authURL := md.AuthorizationEndpoint[:strings.Index(md.AuthorizationEndpoint, "?")] + "?"
			if !strings.HasPrefix(lines[0], "mcpv: to authorize, open this URL in a browser: "+authURL) {
				t.Errorf("diagnostics %q", diag.String())
			}
			if tc.openErr != nil && (len(lines) != 2 || lines[1] != "mcpv: warning: could not open a browser: no display") {
				t.Errorf("diagnostics %q, want the failure to open a browser", diag.String())
			}
			if page.status != tc.wantStatus || !strings.Contains(page.body, tc.pageHas) {
				t.Errorf("the browser got %d %q, want %d with %q", page.status, page.body, tc.wantStatus, tc.pageHas)
			}
			if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
				c.Close()
				t.Error("the listener is still open")
			}
		})
	}
}

// Anyone local can reach the loopback port: only an answer with the
// request's state decides, so forged answers, error responses included,
// neither end the wait nor reach the user.
func TestAuthorizeIgnoresAnswersWithoutOurState(t *testing.T) {
	md, _ := fakeAuthorizationEndpoint(t, func(q url.Values) url.Values { return url.Values{"state": {q.Get("state")}, "code": {"real"}} })
	ln, redirect, err := ListenRedirect(Redirect{})
	if err != nil {
		t.Fatal(err)
	}
	var diag strings.Builder
	get := func(query string) (int, string) {
		resp, err := testkit.HTTP(t).Get(redirect + "?" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	var page browserPage
	browse := playBrowser(t, &page)
	code, _, err := Authorize(t.Context(), AuthorizeRequest{
		Metadata: md, Client: &Client{ID: "c"}, Listener: ln, RedirectURI: redirect, Log: output.NewLogger(&diag),
		Open: func(u string) error {
			for _, forged := range []string{"error=access_denied&error_description=call+attacker", "error=server_error&state=wrong", "code=stolen&state=wrong", "code=stolen"} {
				if status, body := get(forged); status != 400 || strings.Contains(body, "attacker") || !strings.Contains(body, "goes on waiting") {
					t.Errorf("forged answer %q: %d %q", forged, status, body)
				}
			}
			return browse(u)
		},
	})
	if err != nil || code != "real" || page.status != 200 {
		t.Fatalf("Authorize = %q, %v; the browser got %d", code, err, page.status)
	}
	if strings.Contains(diag.String(), "attacker") {
		t.Errorf("a forged answer reached the user: %q", diag.String())
	}
}

// A server whose metadata says its responses carry iss (RFC 9207) must
// send one.
func TestAuthorizeRequiresIssWhenAdvertised(t *testing.T) {
	md, _ := fakeAuthorizationEndpoint(t, func(q url.Values) url.Values { return url.Values{"state": {q.Get("state")}, "code": {"c"}} })
	md.AuthorizationResponseIssParameterSupported = true
	ln, redirect, err := ListenRedirect(Redirect{})
	if err != nil {
		t.Fatal(err)
	}
	var page browserPage
	_, _, err = Authorize(t.Context(), AuthorizeRequest{Metadata: md, Client: &Client{ID: "c"}, Listener: ln, RedirectURI: redirect, Open: playBrowser(t, &page)})
	if err == nil || !strings.Contains(err.Error(), "has no iss") || page.status != 400 {
		t.Errorf("err = %v, page %d", err, page.status)
	}
}

// The deadline passes while Authorize waits for the browser: at once
// once it has shown the URL to open, however slow the machine.
func TestAuthorizeTimeout(t *testing.T) {
	md, _ := fakeAuthorizationEndpoint(t, func(url.Values) url.Values { return nil })
	ln, redirect, err := ListenRedirect(Redirect{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	var diag strings.Builder
	shown := &onWrite{w: &diag, then: func() { cancel(context.DeadlineExceeded) }}
	code, _, err := Authorize(ctx, AuthorizeRequest{Metadata: md, Client: &Client{ID: "c"}, Listener: ln, RedirectURI: redirect, Log: output.NewLogger(shown)})
	var oe *Error
	if !errors.As(err, &oe) || oe.Step != StepAuthorization || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), "no answer came from the browser") || code != "" {
		t.Errorf("code %q, err = %v; want an authorization error for the deadline", code, err)
	}
	if !strings.HasPrefix(diag.String(), "mcpv: to authorize, open this URL in a browser: http://") {
		t.Errorf("diagnostics %q", diag.String())
	}
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Error("the listener is still open")
	}
}

// onWrite writes to w, then calls then.
type onWrite struct {
	w    io.Writer
	then func()
}

func (o *onWrite) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	o.then()
	return n, err
}

func TestAuthorizeMisuse(t *testing.T) {
	ln, redirect, err := ListenRedirect(Redirect{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Authorize(t.Context(), AuthorizeRequest{Metadata: &ServerMetadata{}, Client: &Client{ID: "c"}, Listener: ln, RedirectURI: redirect})
	if err == nil || !strings.Contains(err.Error(), "no authorization endpoint") {
		t.Errorf("err = %v", err)
	}
	if _, err := ln.Accept(); err == nil {
		t.Error("the listener is still open")
	}
	if _, _, err := Authorize(t.Context(), AuthorizeRequest{}); err == nil {
		t.Error("no listener: no error")
	}
}

func TestCallbackHandler(t *testing.T) {
	h := &callbackHandler{path: "/callback", host: "127.0.0.1:5000", state: "st", result: make(chan callbackResult, 1)}
	serve := func(method, target, remote, host string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, nil)
		r.RemoteAddr, r.Host = remote, host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	const local, host = "127.0.0.1:40000", "127.0.0.1:5000"
	for _, tc := range []struct {
		name, method, target, remote, host string
		want                               int
	}{
		{"other path", "GET", "/favicon.ico", local, host, 404},
		{"POST", "POST", "/callback?code=x&state=st", local, host, 404},
		{"not from loopback", "GET", "/callback?code=x&state=st", "192.0.2.7:40000", host, 403},
		{"another host name", "GET", "/callback?code=x&state=st", local, "evil.example:5000", 403},
		{"another state", "GET", "/callback?code=z&state=other", local, host, 400},
		{"an error without state", "GET", "/callback?error=access_denied", local, host, 400},
		{"first answer", "GET", "/callback?code=x&state=st", local, host, 200},
		{"second answer", "GET", "/callback?code=y&state=st", "[::1]:40000", host, 409},
	} {
		if w := serve(tc.method, tc.target, tc.remote, tc.host); w.Code != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, w.Code, tc.want)
		}
	}
	if res := <-h.result; res.code != "x" || res.err != nil {
		t.Errorf("result %+v, want code x", res)
	}
	if len(h.result) != 0 {
		t.Error("a second result was sent")
	}
}
