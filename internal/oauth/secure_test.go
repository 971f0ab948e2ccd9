package oauth

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestSecureURL(t *testing.T) {
	for _, tt := range []struct {
		url           string
		resourceHTTPS bool
		want          bool
	}{
		{"https://as.example/token", true, true},
		{"https://as.example/token", false, true},
		{"http://as.example/token", false, false},
		{"http://127.0.0.1:8080/token", false, true},
		{"http://127.9.9.9/token", false, true},
		{"http://[::1]:8080/token", false, true},
		{"http://localhost:8080/token", false, true},
		{"http://auth.localhost/token", false, true},
		{"http://localhost.example.com/token", false, false},
		{"http://127.0.0.1:8080/token", true, false}, // no downgrade from an https resource
		{"ftp://as.example/token", false, false},
		{"https:///token", false, false},
	} {
		if got := secureURL(tt.url, tt.resourceHTTPS); got != tt.want {
			t.Errorf("secureURL(%q, https resource %v) = %v, want %v", tt.url, tt.resourceHTTPS, got, tt.want)
		}
	}
}

func TestCheckSecure(t *testing.T) {
	good := func() *ServerMetadata {
		return &ServerMetadata{Issuer: "https://as.example", AuthorizationEndpoint: "https://as.example/a",
			TokenEndpoint: "https://as.example/t", RegistrationEndpoint: "https://as.example/r"}
	}
	if err := checkSecure(good(), true); err != nil {
		t.Errorf("all https: %v", err)
	}
	for _, tt := range []struct {
		name   string
		mutate func(*ServerMetadata)
		https  bool
		errHas string
	}{
		{"http issuer", func(md *ServerMetadata) { md.Issuer = "http://as.example" }, false, "authorization server http://as.example is not https"},
		{"http token endpoint", func(md *ServerMetadata) { md.TokenEndpoint = "http://as.example/t" }, false, "token endpoint of https://as.example"},
		{"https issuer, loopback http endpoint", func(md *ServerMetadata) { md.RegistrationEndpoint = "http://127.0.0.1/r" }, false, "registration endpoint"},
		{"loopback issuer for an https resource", func(md *ServerMetadata) {
			md.Issuer, md.AuthorizationEndpoint, md.TokenEndpoint, md.RegistrationEndpoint = "http://127.0.0.1", "http://127.0.0.1/a", "http://127.0.0.1/t", ""
		}, true, "authorization server http://127.0.0.1 is not https"},
	} {
		md := good()
		tt.mutate(md)
		err := checkSecure(md, tt.https)
		var oe *Error
		if !errors.As(err, &oe) || oe.Step != StepMetadata || !strings.Contains(err.Error(), tt.errHas) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.errHas)
		}
	}
	loopback := &ServerMetadata{Issuer: "http://127.0.0.1:9", AuthorizationEndpoint: "http://127.0.0.1:9/a", TokenEndpoint: "http://localhost:9/t"}
	if err := checkSecure(loopback, false); err != nil {
		t.Errorf("a loopback server for a loopback resource: %v", err)
	}
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// An MCP server over plain http to another host gets no OAuth at all: no
// stored token is sent, and a 401 is not answered with a flow.
func TestNoOAuthOverPlainHTTP(t *testing.T) {
	var auths []string
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		auths = append(auths, r.Header.Get("Authorization"))
		h := http.Header{"Www-Authenticate": {`Bearer resource_metadata="http://mcp.example.com/.well-known/oauth-protected-resource"`}}
		return &http.Response{StatusCode: 401, Header: h, Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
	})
	opened := false
	m, err := NewManager(Options{ServerURL: "http://mcp.example.com/mcp", Store: &Store{Dir: t.TempDir()}, Mode: ModeAuto,
		Open: func(string) error { opened = true; return nil }}, base)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(context.Background(), "POST", "http://mcp.example.com/mcp", strings.NewReader("{}"))
	_, err = m.RoundTrip(req)
	var oe *Error
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "the server http://mcp.example.com/mcp is not https") {
		t.Fatalf("err = %v", err)
	}
	if opened || len(auths) != 1 || auths[0] != "" {
		t.Errorf("browser opened %v; requests carried %q", opened, auths)
	}
}

// An https server's resource_metadata may not point at plain http, not even
// on a loopback host: nothing is fetched from it.
func TestResourceMetadataNotDowngraded(t *testing.T) {
	fetched := false
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		fetched = true
		return nil, errors.New("no network in this test")
	})}
	ch := &Challenge{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "http://127.0.0.1:8080/.well-known/oauth-protected-resource"}}
	_, err := DiscoverResource(context.Background(), hc, "https://mcp.example.com/mcp", ch)
	if err == nil || !strings.Contains(err.Error(), "resource_metadata http://127.0.0.1:8080/") || fetched {
		t.Errorf("err = %v, fetched %v", err, fetched)
	}
}

// A 2025-03-26 document's issuer is unverified: cross-app access, which
// would have an identity provider issue a grant for that issuer and hand it
// to this document's token endpoint, is refused before the provider is asked.
func TestCrossAppRefusedForAnUnverifiedIssuer(t *testing.T) {
	asked := false
	idp := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		asked = true
		return nil, errors.New("no network in this test")
	})
	m, err := NewManager(Options{ServerURL: "https://mcp.example.com/mcp", Store: &Store{Dir: t.TempDir()}, HTTP: &http.Client{Transport: idp},
		Grant: GrantCrossApp, ClientID: "c", ClientSecret: "s", IdentityProvider: &IdentityProvider{TokenEndpoint: "https://idp.example/token", ClientID: "i", IDToken: "id"}}, idp)
	if err != nil {
		t.Fatal(err)
	}
	md := &ServerMetadata{Issuer: "https://real-as.example", TokenEndpoint: "https://mcp.example.com/token", IssuerUnverified: true}
	_, err = m.crossApp(context.Background(), md, &Client{ID: "c", Secret: "s"}, "https://mcp.example.com/mcp", "")
	if err == nil || !strings.Contains(err.Error(), "issuer is verified") || asked {
		t.Errorf("err = %v; identity provider asked: %v", err, asked)
	}
}
