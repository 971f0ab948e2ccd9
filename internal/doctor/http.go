package doctor

// The walk over HTTP: the URL, a proxy, name resolution, TCP, TLS, the
// endpoint's answer to the first request, the authorization it asks for,
// the .well-known documents, the era.

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// plainClient serves a caller that gives none, over connections of its own
// (TestNoRequestThroughTheSharedPool says why).
var plainClient = &lazy.Value[*http.Client]{New: func() *http.Client { return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()} }}

// maxBody bounds what is read of an answer the walk looks at.
const maxBody = 1 << 20

// answer is the endpoint's answer to the first request.
type answer struct {
	method  string // what was asked: initialize or server/discover
	status  int
	header  http.Header
	body    string // clipped
	message *mcp.Message
}

func (w *walk) http(ctx context.Context) {
	var u *url.URL
	if !w.step("URL", func(s *Step) {
		var err error
		u, err = url.Parse(w.t.URL)
		switch {
		case err != nil:
			s.fail(codeTransport, "not a URL: "+err.Error(), "give the server's MCP endpoint, such as http://127.0.0.1:3000/mcp")
		case u.Scheme != "http" && u.Scheme != "https":
			s.fail(codeTransport, fmt.Sprintf("scheme %q: an MCP server over HTTP is reached with http or https", u.Scheme), "give an http:// or https:// URL; a stdio server is started with -- COMMAND")
		case u.Host == "":
			s.fail(codeTransport, "the URL names no host", "give the server's address, such as http://127.0.0.1:3000/mcp")
		default:
			s.Finding = u.Scheme + "://" + u.Host + u.EscapedPath()
		}
	}) {
		w.rest("proxy", "name resolution", "TCP connect", "TLS", "endpoint")
		return
	}
	host, dialHost, dialPort := u.Hostname(), u.Hostname(), portOf(u)
	var proxy *url.URL
	w.step("proxy", func(s *Step) {
		proxy = w.proxyFor(u)
		if proxy == nil {
			s.Finding = "none: mcpv connects to the server directly"
			return
		}
		s.warn("requests go through the proxy "+proxy.Redacted()+" (HTTP_PROXY, HTTPS_PROXY)", "if the proxy is in the way, let this host past it with NO_PROXY="+host)
		dialHost, dialPort = proxy.Hostname(), portOf(proxy)
	})
	var addrs []string
	w.step("name resolution", func(s *Step) {
		if ip := net.ParseIP(dialHost); ip != nil {
			addrs = []string{dialHost}
			s.Finding = dialHost + " is an address: nothing to resolve"
			return
		}
		rctx, cancel := context.WithTimeout(ctx, w.t.Timeout)
		defer cancel()
		var err error
		addrs, err = w.t.Resolve(rctx, dialHost)
		switch {
		case err != nil && rctx.Err() != nil:
			s.fail(codeTimeout, fmt.Sprintf("%s: no answer from the name service within %s", dialHost, w.t.Timeout), "is this machine's DNS reachable? (a VPN, /etc/resolv.conf)")
		case err != nil || len(addrs) == 0:
			s.fail(codeTransport, fmt.Sprintf("%s cannot be resolved: %v", dialHost, err), "check the host name's spelling, and that it is in DNS or /etc/hosts")
		default:
			s.Finding = dialHost + " is " + strings.Join(addrs, ", ")
		}
	})
	var conn net.Conn
	w.step("TCP connect", func(s *Step) {
		conn, s.Finding = w.dial(ctx, s, addrs, dialPort)
	})
	if conn != nil {
		defer conn.Close()
	}
	switch {
	case u.Scheme != "https":
		w.skip("TLS", "http: no TLS")
	case proxy != nil:
		w.skip("TLS", "through the proxy's tunnel: the endpoint's answer shows it")
	default:
		w.step("TLS", func(s *Step) { w.tls(ctx, s, conn, host) })
	}
	var a *answer
	w.step("endpoint", func(s *Step) { a = w.endpoint(ctx, s) })
	w.wellKnown(ctx, u, a)
	if a != nil && a.status == http.StatusUnauthorized {
		w.step("authorization", func(s *Step) { w.authorization(s, a) })
	}
	w.step("era", func(s *Step) {
		if a == nil || a.message == nil {
			s.fail(codeTransport, "the endpoint's answer holds no JSON-RPC response", "the server must answer the request with its response")
			return
		}
		w.negotiated(s, a.method, *a.message)
	})
}

// portOf is u's port, or its scheme's when it names none.
func portOf(u *url.URL) string {
	return cmp.Or(u.Port(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
}

// rest records the steps not reached after an early failure.
func (w *walk) rest(names ...string) {
	for _, n := range names {
		w.step(n, func(*Step) {})
	}
}

// proxyFor is the proxy a request to u goes through, or nil.
func (w *walk) proxyFor(u *url.URL) *url.URL {
	proxy := http.ProxyFromEnvironment
	if w.t.Plain != nil {
		if tr, ok := w.t.Plain.Transport.(*http.Transport); ok {
			proxy = tr.Proxy
		}
	}
	if proxy == nil {
		return nil
	}
	p, err := proxy(&http.Request{URL: u, Header: http.Header{}})
	if err != nil {
		return nil
	}
	return p
}

// dial connects to one of addrs, saying what it found.
func (w *walk) dial(ctx context.Context, s *Step, addrs []string, port string) (net.Conn, string) {
	d := net.Dialer{Timeout: w.t.Timeout}
	var last error
	for _, a := range addrs[:min(len(addrs), 4)] {
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(a, port))
		if err == nil {
			return c, "connected to " + c.RemoteAddr().String()
		}
		last = err
	}
	where := net.JoinHostPort(addrs[0], port)
	var ne net.Error
	switch {
	case errors.Is(last, syscall.ECONNREFUSED):
		s.fail(codeTransport, "nothing listens on "+where+" (connection refused)",
			"start the server, or give the port it listens on; a server listening on 127.0.0.1 alone is not reached at another address")
	case errors.As(last, &ne) && ne.Timeout():
		s.fail(codeTransport, fmt.Sprintf("no answer from %s within %s", where, w.t.Timeout), "a firewall drops the packets, or the address is not the server's")
	default:
		s.fail(codeTransport, fmt.Sprintf("%s: %v", where, last), "is the server up, and is the address right?")
	}
	return nil, s.Finding
}

// tls shakes hands on conn and checks the certificate: trusted, for the
// host, not expired (a warning when it expires within two weeks).
func (w *walk) tls(ctx context.Context, s *Step, conn net.Conn, host string) {
	cfg := &tls.Config{}
	if w.t.Plain != nil {
		if tr, ok := w.t.Plain.Transport.(*http.Transport); ok && tr.TLSClientConfig != nil {
			cfg = tr.TLSClientConfig.Clone()
		}
	}
	cfg.ServerName = host
	hctx, cancel := context.WithTimeout(ctx, w.t.Timeout)
	defer cancel()
	tc := tls.Client(conn, cfg)
	err := tc.HandshakeContext(hctx)
	var certs []*x509.Certificate
	var cve *tls.CertificateVerificationError
	if err == nil {
		certs = tc.ConnectionState().PeerCertificates
	} else if errors.As(err, &cve) {
		certs = cve.UnverifiedCertificates
	}
	about := ""
	if len(certs) > 0 {
		c := certs[0]
		about = fmt.Sprintf("a certificate for %s, issued by %s, valid until %s", certNames(c), c.Issuer.CommonName, c.NotAfter.UTC().Format("2006-01-02"))
	}
	var invalid x509.CertificateInvalidError
	switch {
	case err == nil:
		s.Finding = about
		if left := time.Until(certs[0].NotAfter); left < 14*24*time.Hour {
			s.warn(about+fmt.Sprintf(": it expires in %s", left.Round(time.Hour)), "renew the certificate before it expires")
		}
	case errors.As(err, new(x509.UnknownAuthorityError)):
		s.fail(codeTransport, about+", which no authority this machine trusts signed",
			"if the server's certificate is signed by a CA of your own, give it with --cacert (or SSL_CERT_FILE)")
	case errors.As(err, new(x509.HostnameError)):
		s.fail(codeTransport, fmt.Sprintf("%s, not for %s", about, host), "reach the server by a name its certificate has, or give it a certificate for "+host)
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		s.fail(codeTransport, about+": it has expired", "renew the server's certificate (or check this machine's clock)")
	case hctx.Err() != nil:
		s.fail(codeTransport, fmt.Sprintf("no TLS handshake within %s", w.t.Timeout), "is the port the server's https port? (an http server does not answer a TLS handshake)")
	default:
		s.fail(codeTransport, "the TLS handshake failed: "+err.Error(), "is the port the server's https port, and does it speak TLS?")
	}
}

// certNames are the names a certificate is for.
func certNames(c *x509.Certificate) string {
	names := c.DNSNames
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		return c.Subject.CommonName
	}
	if len(names) > 3 {
		names = append(names[:3:3], "...")
	}
	return strings.Join(names, ", ")
}

// firstRequest is what the walk sends first, and its method: initialize,
// unless the era is held to 2026-07-28 (server/discover).
func (w *walk) firstRequest(modern bool) (string, []byte) {
	method, params := "initialize", map[string]any{"protocolVersion": mcp.LatestVersion, "capabilities": map[string]any{}, "clientInfo": w.t.ClientInfo}
	if modern {
		method, params = "server/discover", map[string]any{"_meta": map[string]any{
			mcp.MetaProtocolVersion: mcp.ModernVersion, mcp.MetaClientCapabilities: map[string]any{}, mcp.MetaClientInfo: w.t.ClientInfo}}
	}
	raw, _ := json.Marshal(params)
	body, _ := mcp.EncodeRequest(json.RawMessage(`1`), method, raw)
	return method, body
}

// post sends a first request to the endpoint, following no redirect.
func (w *walk) post(ctx context.Context, modern bool) (*answer, error) {
	a, err := w.postWith(ctx, modern, w.t.Client)
	if err != nil && Authorizing(err) && w.t.Plain != nil {
		// The credentials' layer refused to go on without a login: the
		// server's own answer, without credentials, shows what it asks.
		return w.postWith(ctx, modern, w.t.Plain)
	}
	return a, err
}

// Authorizing reports whether err is the authorization layer's: it
// needs a login, or its flow failed.
func Authorizing(err error) bool {
	return errors.As(err, new(*oauth.Error)) || errors.As(err, new(*oauth.PermissionError)) || errors.As(err, new(*mcp.AuthError))
}

// postWith is post through the client hc (nil: the default transport).
func (w *walk) postWith(ctx context.Context, modern bool, hc *http.Client) (*answer, error) {
	method, body := w.firstRequest(modern)
	rctx, cancel := context.WithTimeout(ctx, w.t.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, w.t.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	maps.Copy(req.Header, w.t.Header.Clone())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if modern {
		req.Header.Set("MCP-Protocol-Version", mcp.ModernVersion)
		mcp.StandardHeaders(req.Header, body)
	}
	client := *cmp.Or(hc, plainClient.Get())
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		if rctx.Err() != nil {
			return nil, rctx.Err()
		}
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err // not the URL, which may carry a secret
		}
		return nil, err
	}
	defer resp.Body.Close()
	a := &answer{method: method, status: resp.StatusCode, header: resp.Header}
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct == "text/event-stream" {
		mcp.FollowEvents(rctx, io.NopCloser(io.LimitReader(resp.Body, 16<<20)), maxBody, 0, nil, func() bool { return true }, func(ev mcp.Event) bool {
			if ms, err := mcp.DecodeMessages(ev.Data); err == nil {
				for _, m := range ms {
					if m.IsResponse() {
						a.message, a.body = &m, string(ev.Data)
						return false
					}
				}
			}
			return true
		})
	} else {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		a.body = string(data)
		if ms, err := mcp.DecodeMessages(data); err == nil && len(ms) == 1 && ms[0].IsResponse() {
			a.message = &ms[0]
		}
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && method == "initialize" {
		w.endSession(sid)
	}
	return a, nil
}

// endSession ends the session the first request opened, best-effort.
func (w *walk) endSession(sid string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, w.t.URL, nil)
	if err != nil {
		return
	}
	maps.Copy(req.Header, w.t.Header.Clone())
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := cmp.Or(w.t.Client, plainClient.Get()).Do(req); err == nil {
		resp.Body.Close()
	}
}

// endpoint posts the first request and judges the answer's HTTP side.
func (w *walk) endpoint(ctx context.Context, s *Step) *answer {
	modern := w.t.Era == "modern"
	a, err := w.post(ctx, modern)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			s.fail(codeTimeout, fmt.Sprintf("no answer to POST %s within %s", map[bool]string{true: "server/discover", false: "initialize"}[modern], w.t.Timeout),
				"a server that is slow to answer its first request needs more time (--connect-timeout)")
			return nil
		}
		s.fail(codeTransport, "POST: "+err.Error(), "is the server up, and is the URL right?")
		return nil
	}
	ct, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	finding := fmt.Sprintf("POST %s: HTTP %d", a.method, a.status)
	if ct != "" {
		finding += ", " + ct
	}
	if via := a.header.Get("Via"); via != "" {
		finding += " (through " + via + ")"
	}
	switch {
	case a.status >= 300 && a.status < 400:
		loc := a.header.Get("Location")
		s.fail(codeTransport, finding+": a redirect to "+loc, "give the URL it redirects to (--url "+loc+"): a client does not follow a redirect of a POST")
	case a.status == http.StatusUnauthorized:
		s.Finding = finding + ": the server asks for authorization"
	case a.status == http.StatusForbidden:
		s.fail(codeAuth, finding+": refused", "the credentials sent are not enough, or something in front of the server (a proxy, a firewall rule, an Origin check) refuses the request")
	case a.status == http.StatusNotFound || a.status == http.StatusMethodNotAllowed:
		if !modern && w.t.Era != "legacy" {
			if b, err := w.post(ctx, true); err == nil && b.message != nil && b.message.Error == nil {
				s.Finding = finding + "; server/discover is answered: a server of the 2026-07-28 era alone"
				return b
			}
		}
		s.fail(codeTransport, finding+": no MCP endpoint here", "check the path (servers usually serve /mcp); a server of the HTTP+SSE transport of 2024-11-05 serves GET /sse, which mcpv reaches at that URL")
	case a.status >= 500:
		s.fail(codeTransport, finding+": the server failed: "+safetext.Runes(strings.TrimSpace(a.body), 200), "the server's own log says why")
	case a.status >= 400:
		if a.message != nil && a.message.Error != nil {
			s.Finding = finding + ": " + errLine(a.message.Error)
			return a
		}
		s.fail(codeTransport, finding+": "+safetext.Runes(strings.TrimSpace(a.body), 200), "the server refuses mcpv's first request: its log says why")
	case ct == "text/html":
		s.fail(codeTransport, finding+": a web page, not an MCP endpoint", "the path is a web site's, or a proxy's or a sign-in page answers in front of the server: give the MCP endpoint")
	case ct != "application/json" && ct != "text/event-stream":
		s.fail(codeRequirement, finding+": an answer to a request must be application/json or text/event-stream", "the server must answer with JSON or an event stream (mcpv check: http.answer-type)")
	default:
		s.Finding = finding
	}
	return a
}

// authorization explains the 401: its challenge and where it points.
func (w *walk) authorization(s *Step, a *answer) {
	challenges := oauth.ParseChallenges(a.header.Values("WWW-Authenticate"))
	ch, bearer := oauth.AuthChallenge(a.header)
	fix := "log in with mcpv auth login (and the same --url), or send a token with -H 'Authorization: Bearer TOKEN'"
	if w.t.Header.Get("Authorization") != "" {
		fix = "the token sent was refused: it may have expired, or be for another server; log in again (mcpv auth login)"
	}
	switch {
	case len(challenges) == 0:
		s.fail(codeAuth, "HTTP 401 without a WWW-Authenticate challenge: a client cannot tell how to authorize", fix)
	case !bearer:
		s.fail(codeAuth, fmt.Sprintf("HTTP 401 asking for %s, not a Bearer token", challenges[0].Scheme), "the server wants credentials MCP does not define; send them with -H")
	default:
		finding := "HTTP 401: the server asks for a " + ch.Scheme + " token"
		if md := ch.Params["resource_metadata"]; md != "" {
			finding += " (its metadata at " + md + ")"
		}
		if sc := ch.Params["scope"]; sc != "" {
			finding += ", scope " + sc
		}
		s.fail(codeAuth, finding, fix)
	}
}

// wellKnown looks for the documents a client may fetch before it
// connects: protected resource metadata, the authorization server's
// metadata, a server card. None is required unless the server asks for
// authorization: then the first two are.
func (w *walk) wellKnown(ctx context.Context, u *url.URL, a *answer) {
	asked := a != nil && a.status == http.StatusUnauthorized
	plain := cmp.Or(w.t.Plain, plainClient.Get())
	var md *oauth.ResourceMetadata
	w.step("resource metadata", func(s *Step) {
		var ch *oauth.Challenge
		if a != nil {
			if c, ok := oauth.AuthChallenge(a.header); ok {
				ch = &c
			}
		}
		rctx, cancel := context.WithTimeout(ctx, w.t.Timeout)
		defer cancel()
		var err error
		md, err = oauth.DiscoverResource(rctx, plain, w.t.URL, ch)
		switch {
		case err != nil && asked:
			s.fail(codeAuth, "the protected resource metadata (RFC 9728): "+err.Error(), "the server must publish it for a client to find its authorization server")
		case err != nil:
			s.Finding = "none found (" + safetext.Runes(strings.TrimSpace(err.Error()), 120) + "); the server asks for no authorization"
		case md == nil && asked:
			s.fail(codeAuth, "the server asks for authorization but publishes no protected resource metadata (RFC 9728)", "publish it at /.well-known/oauth-protected-resource, or name it in WWW-Authenticate's resource_metadata")
		case md == nil:
			s.Finding = "none: the server asks for no authorization"
		default:
			s.Finding = md.URL + " names authorization servers " + strings.Join(md.AuthorizationServers, ", ")
		}
	})
	var as *oauth.ServerMetadata
	w.step("authorization server", func(s *Step) {
		if md == nil || len(md.AuthorizationServers) == 0 {
			s.Status, s.Finding = Skipped, "no protected resource metadata names one"
			return
		}
		rctx, cancel := context.WithTimeout(ctx, w.t.Timeout)
		defer cancel()
		var err error
		as, err = oauth.DiscoverServer(rctx, plain, md.AuthorizationServers[0])
		if err != nil {
			s.fail(codeAuth, md.AuthorizationServers[0]+": "+err.Error(), "the authorization server must publish its metadata (RFC 8414 or OpenID Connect Discovery), with S256 among its code_challenge_methods_supported")
		} else {
			s.Finding = fmt.Sprintf("%s: authorize at %s, tokens at %s, PKCE S256", as.Issuer, as.AuthorizationEndpoint, as.TokenEndpoint)
		}
	})
	if asked {
		w.authorizationWalk(a, md, as)
	}
	w.step("server card", func(s *Step) {
		card := strings.TrimSuffix(w.t.URL, "/") + "/server-card"
		catalog := u.Scheme + "://" + u.Host + "/.well-known/ai-catalog.json"
		for _, where := range []string{card, catalog} {
			if name, ok := w.document(ctx, plain, where); ok {
				s.Finding = "offered at " + where + name
				return
			}
		}
		s.Finding = "none offered (a server card is optional)"
	})
}

// authorizationWalk goes on from the authorization server's metadata to
// what a client needs of it: a way to register (dynamic registration, a
// client ID metadata document, or a client registered by hand), and the
// scopes the server asks for among those it grants.
func (w *walk) authorizationWalk(a *answer, md *oauth.ResourceMetadata, as *oauth.ServerMetadata) {
	w.step("registration", func(s *Step) {
		switch {
		case as == nil:
			s.Status, s.Finding = Skipped, "no authorization server metadata"
		case as.ClientIDMetadataDocumentSupported:
			s.Finding = "client ID metadata documents: mcpv names itself by its document's URL"
		case as.RegistrationEndpoint != "":
			s.Finding = "dynamic client registration at " + as.RegistrationEndpoint
		default:
			s.warn("the authorization server offers neither dynamic registration nor client ID metadata documents",
				"register mcpv with the authorization server by hand and give its client id: mcpv auth login --client-id ID")
		}
	})
	w.step("scopes", func(s *Step) {
		var asked []string
		if ch, ok := oauth.AuthChallenge(a.header); ok && ch.Params["scope"] != "" {
			asked = strings.Fields(ch.Params["scope"])
			s.Finding = "the 401 asks for " + ch.Params["scope"]
		} else if md != nil && len(md.ScopesSupported) > 0 {
			asked = md.ScopesSupported
			s.Finding = "the resource metadata lists " + strings.Join(md.ScopesSupported, " ")
		} else {
			s.Finding = "none asked for: the authorization server's defaults"
		}
		if as == nil || len(as.ScopesSupported) == 0 {
			return
		}
		for _, sc := range asked {
			if !slices.Contains(as.ScopesSupported, sc) {
				s.warn(fmt.Sprintf("the scope %q is asked for, but the authorization server lists only %s", sc, strings.Join(as.ScopesSupported, " ")),
					"the server and its authorization server disagree on scopes: a login may be refused (invalid_scope)")
				return
			}
		}
	})
}

// document fetches a JSON document, and says its name, if it has one.
func (w *walk) document(ctx context.Context, hc *http.Client, where string) (string, bool) {
	rctx, cancel := context.WithTimeout(ctx, w.t.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, where, nil)
	if err != nil {
		return "", false
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	var doc mcp.Implementation
	if resp.StatusCode != http.StatusOK || json.Unmarshal(data, &doc) != nil {
		return "", false
	}
	if doc.Name != "" {
		return fmt.Sprintf(" (%s %s)", doc.Name, doc.Version), true
	}
	return "", true
}

// negotiated judges the answer to the first request: the version it
// speaks, or why none is in common.
func (w *walk) negotiated(s *Step, method string, m mcp.Message) {
	if m.Error != nil {
		s.fail(codeTransport, method+" was refused: "+errLine(m.Error), "the server speaks no era mcpv offers it, or refuses mcpv: its log says why")
		return
	}
	if method == "server/discover" {
		var d struct {
			Supported []string `json:"supportedVersions"`
		}
		if err := json.Unmarshal(m.Result, &d); err != nil {
			s.fail(codeRequirement, "server/discover's result does not decode: "+err.Error(), "the result is an object whose supportedVersions is an array of strings")
			return
		}
		if slices.ContainsFunc(d.Supported, mcp.IsModern) {
			s.Finding = "server/discover: the 2026-07-28 era (" + strings.Join(d.Supported, ", ") + ")"
			return
		}
		s.fail(codeRequirement, fmt.Sprintf("server/discover lists no version mcpv speaks: %q", d.Supported), "")
		return
	}
	var r struct {
		Version string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil {
		s.fail(codeTransport, "initialize's result does not decode: "+err.Error(), "the result is an object whose protocolVersion is a string")
		return
	}
	if slices.Contains(mcp.SupportedVersions, r.Version) {
		s.Finding = "initialize: protocol " + r.Version
		return
	}
	s.fail(codeTransport, fmt.Sprintf("initialize answered protocol %q, which mcpv does not speak", r.Version), "no version in common: the server needs a newer or older client, or --protocol-version")
}

func errLine(e *mcp.RPCError) string {
	return fmt.Sprintf("error %d: %s", e.Code, safetext.Runes(strings.TrimSpace(e.Message), 200))
}
