package oauth

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCrossAppAccess(t *testing.T) {
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		want := map[string]string{
			"grant_type": grantTokenExchange, "requested_token_type": tokenTypeIDJAG, "subject_token": "id-token-secret",
			"subject_token_type": tokenTypeIDToken, "audience": "https://as.example", "resource": "https://mcp.example/mcp", "client_id": "idp-client",
		}
		for k, v := range want {
			if got := r.Form.Get(k); got != v {
				t.Errorf("token exchange %s = %q, want %q", k, got, v)
			}
		}
		fmt.Fprint(w, `{"access_token":"the-id-jag","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}`)
	}))
	defer idp.Close()
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		user, pass, ok := r.BasicAuth()
		if !ok || user != "mcp-client" || pass != "mcp-secret" || r.Form.Get("grant_type") != grantJWTBearer || r.Form.Get("assertion") != "the-id-jag" {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"invalid_grant","error_description":"bad jwt-bearer request"}`)
			return
		}
		fmt.Fprint(w, `{"access_token":"at-1","token_type":"Bearer","expires_in":60}`)
	}))
	defer as.Close()
	ctx := context.Background()
	jag, err := ExchangeIDToken(ctx, nil, IdentityProvider{TokenEndpoint: idp.URL, ClientID: "idp-client", IDToken: "id-token-secret"},
		"https://as.example", "https://mcp.example/mcp", "")
	if err != nil || jag != "the-id-jag" {
		t.Fatalf("exchange: %q, %v", jag, err)
	}
	md := &ServerMetadata{Issuer: "https://as.example", TokenEndpoint: as.URL}
	tok, err := JWTBearer(ctx, nil, md, &Client{ID: "mcp-client", Secret: "mcp-secret", AuthMethod: AuthClientSecretBasic}, jag, "https://mcp.example/mcp", "")
	if err != nil || tok.AccessToken != "at-1" || tok.ExpiresAt.IsZero() {
		t.Fatalf("jwt bearer: %+v, %v", tok, err)
	}
	_, err = JWTBearer(ctx, nil, md, &Client{ID: "mcp-client", Secret: "wrong", AuthMethod: AuthClientSecretBasic}, jag, "", "")
	if err == nil || !strings.Contains(err.Error(), "oauth token: invalid_grant (bad jwt-bearer request)") || strings.Contains(err.Error(), "the-id-jag") {
		t.Fatalf("refused: %v", err)
	}
}
