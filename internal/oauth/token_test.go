package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/testkit"
)

// tokenCall is what a fake token endpoint received.
type tokenCall struct {
	header http.Header
	form   url.Values
}

// fakeTokenEndpoint answers every request with status and body (JSON unless
// it says otherwise) and records what it got on the returned channel.
func fakeTokenEndpoint(t *testing.T, status int, body string) (*ServerMetadata, chan tokenCall) {
	t.Helper()
	calls := make(chan tokenCall, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/token" {
			t.Errorf("%s %s, want POST /token", r.Method, r.URL.Path)
		}
		raw, _ := io.ReadAll(r.Body)
		form, err := url.ParseQuery(string(raw))
		if err != nil {
			t.Errorf("the body is not a form: %v", err)
		}
		calls <- tokenCall{header: r.Header.Clone(), form: form}
		if strings.HasPrefix(body, "{") {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return &ServerMetadata{Issuer: srv.URL + "/tenant1", TokenEndpoint: srv.URL + "/token"}, calls
}

const okGrant = `{"access_token":"at-1","token_type":"Bearer","expires_in":3600}`

func TestTokenRequests(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	const (
		code     = "the-code"
		verifier = "the-verifier"
		redirect = "http://127.0.0.1:4242/callback"
		resource = "https://mcp.example/mcp"
	)
	var (
		public = &Client{ID: "pub"}
		none   = &Client{ID: "pub", AuthMethod: AuthNone}
		// RFC 6749 §2.3.1: form-urlencoded before base64.
		basic = &Client{ID: "my client:1", Secret: "p@ss w:rd/+%é", AuthMethod: AuthClientSecretBasic}
		post  = &Client{ID: "my client:1", Secret: "p@ss w:rd/+%é", AuthMethod: AuthClientSecretPost}
		jwt   = &Client{ID: "conformance-test-client", AuthMethod: AuthPrivateKeyJWT, Key: key}
	)
	basicHeader := "Basic " + base64.StdEncoding.EncodeToString([]byte("my+client%3A1:p%40ss+w%3Ard%2F%2B%25%C3%A9"))
	exchange := func(c *Client, resource string) func(context.Context, *ServerMetadata) (*Token, error) {
		return func(ctx context.Context, md *ServerMetadata) (*Token, error) {
			return ExchangeCode(ctx, nil, md, c, code, verifier, redirect, resource)
		}
	}
	refresh := func(c *Client, resource, scope string) func(context.Context, *ServerMetadata) (*Token, error) {
		return func(ctx context.Context, md *ServerMetadata) (*Token, error) {
			return Refresh(ctx, testkit.HTTP(t), md, c, "rt-0", resource, scope)
		}
	}
	credentials := func(c *Client, resource, scope string) func(context.Context, *ServerMetadata) (*Token, error) {
		return func(ctx context.Context, md *ServerMetadata) (*Token, error) {
			return ClientCredentials(ctx, testkit.HTTP(t), md, c, resource, scope)
		}
	}
	codeForm := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {redirect}, "resource": {resource}}
	with := func(base url.Values, kv ...string) url.Values {
		out := url.Values{}
		maps.Copy(out, base)
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(out, kv[i])
			} else {
				out.Set(kv[i], kv[i+1])
			}
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		call       func(context.Context, *ServerMetadata) (*Token, error)
		wantForm   url.Values // client_assertion is checked apart
		wantAuth   string
		jwt        bool
		unverified bool // a 2025-03-26 document's issuer: the assertion is for the token endpoint
	}{
		{name: "code, public client", call: exchange(public, resource), wantForm: with(codeForm, "client_id", "pub")},
		{name: "code, none", call: exchange(none, resource), wantForm: with(codeForm, "client_id", "pub")},
		{name: "code, no resource", call: exchange(none, ""), wantForm: with(codeForm, "client_id", "pub", "resource", "")},
		{name: "code, client_secret_basic", call: exchange(basic, resource), wantForm: codeForm, wantAuth: basicHeader},
		{name: "code, client_secret_post", call: exchange(post, resource),
			wantForm: with(codeForm, "client_id", "my client:1", "client_secret", "p@ss w:rd/+%é")},
		{name: "code, private_key_jwt", call: exchange(jwt, resource), jwt: true,
			wantForm: with(codeForm, "client_id", jwt.ID, "client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")},
		{name: "refresh, scope", call: refresh(none, resource, "a b"),
			wantForm: url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"rt-0"}, "resource": {resource}, "scope": {"a b"}, "client_id": {"pub"}}},
		{name: "refresh, no scope or resource", call: refresh(none, "", ""),
			wantForm: url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"rt-0"}, "client_id": {"pub"}}},
		{name: "client credentials, client_secret_basic", call: credentials(basic, resource, "mcp:basic"), wantAuth: basicHeader,
			wantForm: url.Values{"grant_type": {"client_credentials"}, "resource": {resource}, "scope": {"mcp:basic"}}},
		{name: "client credentials, private_key_jwt", call: credentials(jwt, resource, ""), jwt: true,
			wantForm: url.Values{"grant_type": {"client_credentials"}, "resource": {resource}, "client_id": {jwt.ID},
				"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}}},
		{name: "private_key_jwt, unverified issuer", call: credentials(jwt, resource, ""), jwt: true, unverified: true,
			wantForm: url.Values{"grant_type": {"client_credentials"}, "resource": {resource}, "client_id": {jwt.ID},
				"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, calls := fakeTokenEndpoint(t, 200, okGrant)
			aud := md.Issuer
			if tc.unverified {
				md.Issuer, md.IssuerUnverified = "https://real-as.example", true
				aud = md.TokenEndpoint
			}
			if _, err := tc.call(t.Context(), md); err != nil {
				t.Fatal(err)
			}
			got := <-calls
			if tc.jwt {
				before := time.Now().Unix()
				_, claims := verifyES256(t, got.form.Get("client_assertion"), &key.PublicKey)
				if claims.Iss != jwt.ID || claims.Sub != jwt.ID || claims.Aud != aud {
					t.Errorf("claims %+v: want iss = sub = %q, aud = %q", claims, jwt.ID, aud)
				}
				if claims.Iat > before || claims.Iat < before-60 || claims.Exp != claims.Iat+300 {
					t.Errorf("iat %d, exp %d: want about now and now + 5 min", claims.Iat, claims.Exp)
				}
				got.form.Del("client_assertion")
			}
			if diff := cmp.Diff(tc.wantForm, got.form); diff != "" {
				t.Errorf("form (-want +got):\n%s", diff)
			}
			if a := got.header.Get("Authorization"); a != tc.wantAuth {
				t.Errorf("Authorization %q, want %q", a, tc.wantAuth)
			}
			if tc.wantAuth != "" {
				// What a server does with it (RFC 6749 §2.3.1).
				r := &http.Request{Header: got.header}
				id, secret, _ := r.BasicAuth()
				id, _ = url.QueryUnescape(id)
				secret, _ = url.QueryUnescape(secret)
				if id != basic.ID || secret != basic.Secret {
					t.Errorf("the server reads %q:%q", id, secret)
				}
			}
			if ct, acc := got.header.Get("Content-Type"), got.header.Get("Accept"); ct != "application/x-www-form-urlencoded" || acc != "application/json" {
				t.Errorf("Content-Type %q, Accept %q", ct, acc)
			}
		})
	}
}

func TestTokenResponse(t *testing.T) {
	for _, tc := range []struct {
		name      string
		status    int
		body      string
		want      *Token // ExpiresAt apart
		expiresIn time.Duration
		wantErr   *Error // Err apart
		errHas    string
	}{
		{name: "full", status: 200, body: `{"access_token":"at","token_type":"bearer","expires_in":3600,"refresh_token":"rt","scope":"a b","extra":1}`,
			want: &Token{AccessToken: "at", TokenType: "Bearer", RefreshToken: "rt", Scope: "a b"}, expiresIn: time.Hour},
		{name: "no token_type, scope or expires_in", status: 200, body: `{"access_token":"at"}`,
			want: &Token{AccessToken: "at", TokenType: "Bearer", Scope: "asked"}},
		{name: "expires_in as a string", status: 200, body: `{"access_token":"at","expires_in":"60"}`,
			want: &Token{AccessToken: "at", TokenType: "Bearer", Scope: "asked"}, expiresIn: time.Minute},
		{name: "expires_in fractional", status: 200, body: `{"access_token":"at","expires_in":1.5}`,
			want: &Token{AccessToken: "at", TokenType: "Bearer", Scope: "asked"}, expiresIn: 1500 * time.Millisecond},
		{name: "expires_in zero", status: 200, body: `{"access_token":"at","expires_in":0}`,
			want: &Token{AccessToken: "at", TokenType: "Bearer", Scope: "asked"}},
		{name: "expires_in absurd", status: 200, body: `{"access_token":"at","expires_in":1e300}`,
			want: &Token{AccessToken: "at", TokenType: "Bearer", Scope: "asked"}},
		{name: "expires_in a rounding past the longest duration", status: 200, body: `{"access_token":"at","expires_in":9223372036.854775807}`,
			want: &Token{AccessToken: "at", TokenType: "Bearer", Scope: "asked"}},
		{name: "expires_in not a number", status: 200, body: `{"access_token":"at","expires_in":true}`,
			want: &Token{AccessToken: "at", TokenType: "Bearer", Scope: "asked"}},
		{name: "201", status: 201, body: `{"access_token":"at"}`,
			want: &Token{AccessToken: "at", TokenType: "Bearer", Scope: "asked"}},
		{name: "error 400", status: 400, body: `{"error":"invalid_grant","error_description":"the code has expired"}`,
			wantErr: &Error{Step: StepToken, Code: "invalid_grant", Description: "the code has expired"}},
		{name: "error 401", status: 401, body: `{"error":"invalid_client"}`,
			wantErr: &Error{Step: StepToken, Code: "invalid_client"}},
		{name: "error with 200", status: 200, body: `{"error":"bad_verification_code","error_description":"line\nbreak"}`,
			wantErr: &Error{Step: StepToken, Code: "bad_verification_code", Description: "line break"}},
		{name: "500 page", status: 500, body: `<h1>oops</h1>`, wantErr: &Error{Step: StepToken}, errHas: "answered 500 Internal Server Error"},
		{name: "400 JSON without error", status: 400, body: `{"message":"no"}`, wantErr: &Error{Step: StepToken}, errHas: "answered 400 Bad Request"},
		{name: "not JSON", status: 200, body: `<html>`, wantErr: &Error{Step: StepToken}, errHas: "not a JSON token response"},
		{name: "JSON array", status: 200, body: `[]`, wantErr: &Error{Step: StepToken}, errHas: "not a JSON token response"},
		{name: "no access_token", status: 200, body: `{"token_type":"Bearer"}`, wantErr: &Error{Step: StepToken}, errHas: "has no access_token"},
		{name: "not Bearer", status: 200, body: `{"access_token":"at","token_type":"mac"}`, wantErr: &Error{Step: StepToken}, errHas: "token type mac is not Bearer"},
		{name: "too large", status: 200, body: `{"access_token":"` + strings.Repeat("a", 1<<20) + `"}`, wantErr: &Error{Step: StepToken}, errHas: "larger than 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, _ := fakeTokenEndpoint(t, tc.status, tc.body)
			before := time.Now()
			tok, err := ClientCredentials(t.Context(), nil, md, &Client{ID: "c"}, "", "asked")
			after := time.Now()
			if tc.wantErr != nil {
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
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			exp := tok.ExpiresAt
			tok.ExpiresAt = time.Time{}
			if diff := cmp.Diff(tc.want, tok); diff != "" {
				t.Errorf("token (-want +got):\n%s", diff)
			}
			switch {
			case tc.expiresIn == 0 && !exp.IsZero():
				t.Errorf("ExpiresAt = %v, want none", exp)
			case tc.expiresIn != 0 && (exp.Before(before.Add(tc.expiresIn)) || exp.After(after.Add(tc.expiresIn))):
				t.Errorf("ExpiresAt = %v, want between %v and %v", exp, before.Add(tc.expiresIn), after.Add(tc.expiresIn))
			}
		})
	}
}

func TestRefreshKeepsOrRotates(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"access_token":"at-2","token_type":"Bearer"}`, "rt-old"},
		{`{"access_token":"at-2","token_type":"Bearer","refresh_token":"rt-new"}`, "rt-new"},
		{`{"access_token":"at-2","token_type":"Bearer","expires_in":0}`, "rt-old"},
	} {
		md, _ := fakeTokenEndpoint(t, 200, tc.body)
		tok, err := Refresh(t.Context(), nil, md, &Client{ID: "c"}, "rt-old", "", "")
		if err != nil {
			t.Fatal(err)
		}
		if tok.RefreshToken != tc.want || tok.AccessToken != "at-2" {
			t.Errorf("%s: refresh token %q, want %q", tc.body, tok.RefreshToken, tc.want)
		}
		if atOnce := strings.Contains(tc.body, `"expires_in":0`); atOnce != tok.Expired(time.Now(), 0) {
			t.Errorf("%s: expired %v, want %v (the refresh token it used is still held)", tc.body, !atOnce, atOnce)
		}
	}
}

// A token answer's expires_in that is not a positive number (0, -100, a
// word) is not a token that never expires: with a refresh token (the
// answer's, or the one a refresh used) it is over at once, so its next use
// refreshes it, and the login stays usable; without one its lifetime is
// unknown, as without expires_in, and the server's 401 ends it: a new
// login. One past the longest duration is unknown too, however large
// (1e400 is past float64's range, but a number). An honest expires_in is
// kept.
func TestExpiresInNotPositive(t *testing.T) {
	for _, tc := range []struct {
		name       string
		expiresIn  any // nil: the test server's 3600
		noRefresh  bool
		wantAtOnce bool
	}{
		{name: "honest"},
		{name: "negative", expiresIn: -100, wantAtOnce: true},
		{name: "zero", expiresIn: 0, wantAtOnce: true},
		{name: "a word", expiresIn: "soon", wantAtOnce: true},
		{name: "absent, with a refresh token", expiresIn: "absent"},
		{name: "negative, no refresh token", expiresIn: -100, noRefresh: true},
		{name: "1e300", expiresIn: 1e300},
		{name: "1e400", expiresIn: json.Number("1e400")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.TokenAnswer = func(a map[string]any) {
				switch {
				case tc.expiresIn == "absent":
					delete(a, "expires_in")
				case tc.expiresIn != nil:
					a["expires_in"] = tc.expiresIn
				}
				if tc.noRefresh {
					delete(a, "refresh_token")
				}
			}
			m := w.manager(t, t.TempDir(), ModeAuto, browser(t))
			rec, err := m.Login(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			exp := rec.Token.ExpiresAt
			switch {
			case tc.wantAtOnce && (exp.IsZero() || exp.After(time.Now())):
				t.Fatalf("ExpiresAt = %v, want it over at once", exp)
			case !tc.wantAtOnce && tc.expiresIn != nil && !exp.IsZero():
				t.Fatalf("ExpiresAt = %v, want it unknown", exp)
			case tc.expiresIn == nil && time.Until(exp) < 59*time.Minute:
				t.Fatalf("ExpiresAt = %v, want the server's hour", exp)
			}
			if status, _, err := call(t, m, w, "tools/list"); err != nil || status != 200 {
				t.Fatalf("%d %v", status, err)
			}
			refreshes := 0
			if tc.wantAtOnce {
				refreshes = 1
			}
			if n := w.count("token:refresh_token"); n != refreshes || w.count("authorize") != 1 {
				t.Errorf("%d refreshes and %d logins before the token was used, want %d and 1", n, w.count("authorize"), refreshes)
			}
			if tc.noRefresh { // unknown is not for ever: the server's 401 asks for a new login
				w.Revoke()
				if status, _, err := call(t, m, w, "tools/list"); err != nil || status != 200 || w.count("authorize") != 2 {
					t.Errorf("after a 401: %d %v, %d logins, want 2", status, err, w.count("authorize"))
				}
			}
		})
	}
}

// No error quotes what was sent or received, even when the server echoes it.
func TestTokenErrorsHideSecrets(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"CODE-SECRET", "VERIFIER-SECRET", "CLIENT-SECRET", "REFRESH-SECRET", "ACCESS-SECRET"}
	echo := func(status int, contentType, format string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			raw, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", contentType)
			w.WriteHeader(status)
			fmt.Fprintf(w, format, strings.ReplaceAll(string(raw)+r.Header.Get("Authorization"), `"`, ""))
		}
	}
	servers := map[string]http.HandlerFunc{
		"500 echo":          echo(500, "text/plain", "%s ACCESS-SECRET"),
		"200 html echo":     echo(200, "text/html", "<p>%s ACCESS-SECRET"),
		"no access_token":   echo(200, "application/json", `{"refresh_token":"%s","id_token":"ACCESS-SECRET"}`),
		"not Bearer":        echo(200, "application/json", `{"access_token":"ACCESS-SECRET","token_type":"DPoP","x":"%s"}`),
		"bad JSON":          echo(200, "application/json", `{"access_token":"ACCESS-SECRET %s`),
		"400 without error": echo(400, "application/json", `{"detail":"%s ACCESS-SECRET"}`),
	}
	clients := []*Client{
		{ID: "c", AuthMethod: AuthClientSecretBasic, Secret: "CLIENT-SECRET"},
		{ID: "c", AuthMethod: AuthClientSecretPost, Secret: "CLIENT-SECRET"},
		{ID: "c", AuthMethod: AuthPrivateKeyJWT, Key: key},
	}
	check := func(name string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", name)
			return
		}
		for _, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q leaks %s", name, err, s)
			}
		}
	}
	for name, h := range servers {
		srv := httptest.NewServer(h)
		md := &ServerMetadata{Issuer: srv.URL, TokenEndpoint: srv.URL + "/token"}
		for _, c := range clients {
			_, err := ExchangeCode(t.Context(), nil, md, c, "CODE-SECRET", "VERIFIER-SECRET", "http://127.0.0.1:1/callback", "")
			check(name+", code, "+c.AuthMethod, err)
			_, err = Refresh(t.Context(), nil, md, c, "REFRESH-SECRET", "", "")
			check(name+", refresh, "+c.AuthMethod, err)
		}
		srv.Close()
		// And when nobody answers.
		_, err := ExchangeCode(t.Context(), nil, md, clients[1], "CODE-SECRET", "VERIFIER-SECRET", "http://127.0.0.1:1/callback", "")
		check(name+", closed", err)
	}
}

// Requests that cannot be made fail before anything is sent.
func TestTokenRequestMisuse(t *testing.T) {
	md, calls := fakeTokenEndpoint(t, 200, okGrant)
	for _, tc := range []struct {
		name, errHas string
		md           *ServerMetadata
		c            *Client
	}{
		{"no metadata", "no token endpoint", nil, &Client{ID: "c"}},
		{"no token endpoint", "no token endpoint", &ServerMetadata{Issuer: "x"}, &Client{ID: "c"}},
		{"no client", "no client ID", md, nil},
		{"basic without secret", "client_secret_basic needs a client secret", md, &Client{ID: "c", AuthMethod: AuthClientSecretBasic}},
		{"post without secret", "client_secret_post needs a client secret", md, &Client{ID: "c", AuthMethod: AuthClientSecretPost}},
		{"jwt without key", "private_key_jwt needs a private key", md, &Client{ID: "c", AuthMethod: AuthPrivateKeyJWT}},
		{"unknown method", `unsupported token endpoint authentication method "tls client auth"`, md, &Client{ID: "c", AuthMethod: "tls client auth"}},
	} {
		_, err := ClientCredentials(t.Context(), nil, tc.md, tc.c, "", "")
		var oe *Error
		if !errors.As(err, &oe) || oe.Step != StepToken || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: err = %v, want a token step error containing %q", tc.name, err, tc.errHas)
		}
	}
	if _, err := Refresh(t.Context(), nil, md, &Client{ID: "c"}, "", "", ""); err == nil {
		t.Error("Refresh without a refresh token: no error")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := ClientCredentials(ctx, nil, md, &Client{ID: "c"}, "", ""); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
	if len(calls) != 0 {
		t.Errorf("%d requests were sent", len(calls))
	}
}
