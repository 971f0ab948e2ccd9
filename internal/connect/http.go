package connect

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/mcp"
)

// httpClient is the client every HTTP request goes through: the system's
// roots plus cacert, the proxy from the environment, no timeout of its own
// (streams live long; requests have their own), and userAgent on every
// request that has none of its own (-H "User-Agent: ..." wins). An
// authorization layer can wrap its Transport.
func httpClient(cacert, userAgent string) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	conf, err := TLSConfig(cacert)
	if err != nil {
		return nil, err
	}
	tr.TLSClientConfig = conf
	return &http.Client{Transport: agentTransport{tr, userAgent}, CheckRedirect: mcp.SameOrigin}, nil
}

// TLSConfig trusts the system's roots plus those of cacert, a PEM file
// (--cacert); nil, the default, when cacert is "".
func TLSConfig(cacert string) (*tls.Config, error) {
	if cacert == "" {
		return nil, nil
	}
	pem, err := safefile.Read(cacert)
	if err != nil {
		return nil, errkind.Usagef("--cacert: %v", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errkind.Usagef("--cacert %s: no PEM certificate found", cacert)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// agentTransport names mcpv in each request's User-Agent. The MCP
// transport's requests carry it already (mcp.HTTPOptions.UserAgent), and
// pass through unchanged; the others (authorization, server cards) are
// copied to add it.
type agentTransport struct {
	base  http.RoundTripper
	agent string
}

func (t agentTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.agent == "" || req.Header.Get("User-Agent") != "" {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context()) // a RoundTripper must not change the caller's request
	r.Header.Set("User-Agent", t.agent)
	return t.base.RoundTrip(r)
}

// userAgent is the User-Agent of every request of the run: the one given
// with -H, which the user means for the authorization server too, else
// "mcpv/VERSION" from the client info given to the session.
func userAgent(s *Settings, h Hooks) string {
	if ua := s.Header.Get("User-Agent"); ua != "" {
		return ua
	}
	if h.Client.Name == "" {
		return ""
	}
	return h.Client.Name + "/" + h.Client.Version
}

// LoginHTTPClient is the HTTP client of a login handed off to a process
// of its own: the authorization server's token endpoint, trusted as the
// command that handed it off trusted it (--cacert), each request bounded
// as it bounded its own (--timeout).
func LoginHTTPClient(cacert, userAgent string, timeout time.Duration) (*http.Client, error) {
	hc, err := httpClient(cacert, userAgent)
	if hc != nil {
		hc.Timeout = timeout
	}
	return hc, err
}
