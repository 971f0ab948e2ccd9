package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const regSecret = "s3cr3t-do-not-print"

func TestRegister(t *testing.T) {
	asked := RegistrationRequest{
		ClientName:              "mcpv",
		RedirectURIs:            []string{"http://127.0.0.1:5555/callback"},
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		TokenEndpointAuthMethod: AuthNone,
		ApplicationType:         "native",
	}
	tests := []struct {
		name    string
		status  int
		body    string
		want    *Client
		wantErr *Error // Err is not compared
		errText string // a substring of the message
	}{
		{
			name:   "201 with a secret",
			status: http.StatusCreated,
			body: `{"client_id":"c1","client_secret":"` + regSecret + `","token_endpoint_auth_method":"client_secret_basic",` +
				`"redirect_uris":["http://127.0.0.1:5555/callback"],"client_id_issued_at":1}`,
			want: &Client{ID: "c1", Secret: regSecret, AuthMethod: AuthClientSecretBasic, RedirectURIs: []string{"http://127.0.0.1:5555/callback"}},
		},
		{
			name:   "200 without method or redirect URIs takes what was asked",
			status: http.StatusOK,
			body:   `{"client_id":"c2"}`,
			want:   &Client{ID: "c2", AuthMethod: AuthNone, RedirectURIs: []string{"http://127.0.0.1:5555/callback"}},
		},
		{
			name:    "error JSON",
			status:  http.StatusBadRequest,
			body:    `{"error":"invalid_redirect_uri","error_description":"loopback\nonly"}`,
			wantErr: &Error{Step: StepRegistration, Code: "invalid_redirect_uri", Description: "loopback only"},
			errText: "oauth registration: invalid_redirect_uri (loopback only)",
		},
		{
			name:    "other status",
			status:  http.StatusInternalServerError,
			body:    `{"client_id":"c","client_secret":"` + regSecret + `"}`,
			wantErr: &Error{Step: StepRegistration},
			errText: "/register answered 500 Internal Server Error",
		},
		{
			name:    "no client_id",
			status:  http.StatusCreated,
			body:    `{"client_secret":"` + regSecret + `"}`,
			wantErr: &Error{Step: StepRegistration},
			errText: "/register has no client_id",
		},
		{
			name:    "not JSON",
			status:  http.StatusCreated,
			body:    `client_id=c&client_secret=` + regSecret,
			wantErr: &Error{Step: StepRegistration},
			errText: "is not a client information json object",
		},
		{
			name:    "wrong types do not quote the body",
			status:  http.StatusCreated,
			body:    `{"client_id":"c","client_secret":["` + regSecret + `"]}`,
			wantErr: &Error{Step: StepRegistration},
			errText: "is not a client information json object",
		},
		{
			name:    "secret method without a secret",
			status:  http.StatusCreated,
			body:    `{"client_id":"c","token_endpoint_auth_method":"client_secret_post"}`,
			wantErr: &Error{Step: StepRegistration},
			errText: "assigned token endpoint auth method client_secret_post but no client_secret",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotReq map[string]any
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost || r.URL.Path != "/register" || r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("%s %s with Content-Type %q", r.Method, r.URL, r.Header.Get("Content-Type"))
				}
				b, _ := io.ReadAll(r.Body)
				if err := json.Unmarshal(b, &gotReq); err != nil {
					t.Errorf("request body %s: %v", b, err)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			md := &ServerMetadata{Issuer: srv.URL, RegistrationEndpoint: srv.URL + "/register"}

			got, err := Register(context.Background(), srv.Client(), md, asked)

			wantReq := map[string]any{
				"client_name":                "mcpv",
				"redirect_uris":              []any{"http://127.0.0.1:5555/callback"},
				"grant_types":                []any{"authorization_code", "refresh_token"},
				"response_types":             []any{"code"},
				"token_endpoint_auth_method": "none",
				"application_type":           "native",
			}
			if diff := cmp.Diff(wantReq, gotReq); diff != "" {
				t.Errorf("request mismatch (-want +got):\n%s", diff)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatal(err)
				}
				// Key is compared apart: cmp would call (*ecdsa.PrivateKey).Equal on nil.
				if got.Key != nil {
					t.Errorf("Key = %v, want nil", got.Key)
				}
				if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Client{}, "Key")); diff != "" {
					t.Errorf("client mismatch (-want +got):\n%s", diff)
				}
				return
			}
			var oe *Error
			if !errors.As(err, &oe) {
				t.Fatalf("error = %v, want an *oauth.Error", err)
			}
			if oe.Step != tt.wantErr.Step || oe.Code != tt.wantErr.Code || oe.Description != tt.wantErr.Description {
				t.Errorf("error = %#v, want %#v", oe, tt.wantErr)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.errText) || strings.Contains(msg, regSecret) || strings.ContainsAny(msg, "\r\n") {
				t.Errorf("error %q: want one line containing %q and no secret", msg, tt.errText)
			}
		})
	}
}

func TestRegisterWithoutEndpoint(t *testing.T) {
	for _, md := range []*ServerMetadata{nil, {Issuer: "http://as.example"}} {
		_, err := Register(context.Background(), nil, md, RegistrationRequest{ClientName: "mcpv"})
		wantOAuthError(t, err, StepRegistration, "offers no dynamic client registration; register mcpv there")
	}
}

func TestChooseAuthMethod(t *testing.T) {
	all := []string{AuthClientSecretPost, AuthNone, AuthClientSecretBasic}
	tests := []struct {
		name       string
		listed     []string
		haveSecret bool
		want       string
	}{
		{"public, list absent", nil, false, AuthNone},
		{"public, none listed", all, false, AuthNone},
		{"public, basic only", []string{AuthClientSecretBasic}, false, AuthClientSecretBasic},
		{"public, post only", []string{AuthClientSecretPost}, false, AuthClientSecretPost},
		{"secret, list absent", nil, true, AuthClientSecretBasic},
		{"secret, all", all, true, AuthClientSecretBasic},
		{"secret, post and none", []string{AuthNone, AuthClientSecretPost}, true, AuthClientSecretPost},
		{"secret, none only", []string{AuthNone}, true, AuthNone},
		{"unsupported only", []string{AuthPrivateKeyJWT, "tls_client_auth"}, false, ""},
		{"unsupported only, secret", []string{AuthPrivateKeyJWT}, true, ""},
		{"unsupported first", []string{AuthPrivateKeyJWT, AuthClientSecretPost}, true, AuthClientSecretPost},
	}
	for _, tt := range tests {
		md := &ServerMetadata{TokenEndpointAuthMethodsSupported: tt.listed}
		if got := ChooseAuthMethod(md, tt.haveSecret); got != tt.want {
			t.Errorf("%s: ChooseAuthMethod(%q, %v) = %q, want %q", tt.name, tt.listed, tt.haveSecret, got, tt.want)
		}
	}
	if got := ChooseAuthMethod(nil, false); got != AuthNone {
		t.Errorf("ChooseAuthMethod(nil, false) = %q, want none", got)
	}
}
