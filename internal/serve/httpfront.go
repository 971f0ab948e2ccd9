package serve

// Who may reach the endpoint, and how a browser is told. Every request
// is checked in the same order, whatever its path (ServeHTTP):
//
//   - its Origin, when it has one, is admitted: a loopback origin, one
//     Origins names, or with anyHost the origin of the name it was reached
//     by (a page served beside the endpoint by one proxy); 403 otherwise,
//     a MUST of the transport
//     (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning).
//     A browser's request with no Origin made for a page of another site
//     (Sec-Fetch-Site: cross-site) is refused too, so that no page can
//     open a stream, or with Isolate start a server, where no token is
//     asked;
//   - its Host names this machine (unless anyHost): DNS rebinding;
//   - /healthz is answered then, with no token and no CORS header;
//   - a CORS preflight of an admitted page is answered before the token,
//     which a preflight never carries;
//   - then the bearer token.

import (
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/origin"
)

// The paths served: the endpoint (DefaultPath unless Path says
// otherwise), the health check, and with SSE the legacy transport's
// (LegacyPaths).
const (
	DefaultPath = "/mcp"
	HealthPath  = "/healthz"
)

// LegacyPaths are the paths of the legacy transport served in the
// endpoint's directory, so that a proxy that routes its prefix routes
// them too: its stream (/sse beside /mcp) and where its clients POST
// (/message).
func LegacyPaths(endpoint string) (stream, message string) {
	dir := endpoint[:strings.LastIndex(endpoint, "/")+1]
	return dir + "sse", dir + "message"
}

// cors is what a page of an admitted origin may do.
var cors = origin.CORS{
	Methods: []string{http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodOptions},
	Headers: []string{"Authorization", "Content-Type", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version",
		"Last-Event-ID", "Mcp-Method", "Mcp-Name"},
	Prefixes: []string{"Mcp-Param-"},
	Expose:   []string{"Mcp-Session-Id", "Mcp-Protocol-Version", "WWW-Authenticate", "Retry-After"},
	MaxAge:   600,
}

// route is what a path is.
type route int

const (
	notServed route = iota
	endpoint
	health
	sseStream
	sseMessage
	serverCard  // the server's card (card.go)
	cardCatalog // a catalog listing it (card.go)
)

// Serves reports whether the handler serves path.
func (h *HTTPHandler) Serves(path string) bool { return h.route(path) != notServed }

func (h *HTTPHandler) route(path string) route {
	stream, message := h.legacyPaths()
	switch {
	case path == h.path():
		return endpoint
	case path == HealthPath:
		return health
	case h.SSE && path == stream:
		return sseStream
	case h.SSE && path == message:
		return sseMessage
	}
	return h.cardRoute(path)
}

// legacyPaths are the legacy transport's paths beside this endpoint.
func (h *HTTPHandler) legacyPaths() (stream, message string) {
	if h.SSEPaths != nil {
		return h.SSEPaths[0], h.SSEPaths[1]
	}
	return LegacyPaths(h.path())
}

func (h *HTTPHandler) path() string { return cmp.Or(h.Path, DefaultPath) }

// methods are those each route answers, for Allow.
var methods = map[route]string{
	endpoint:    "GET, POST, DELETE, OPTIONS",
	health:      "GET, HEAD",
	sseStream:   "GET, OPTIONS",
	sseMessage:  "POST, OPTIONS",
	serverCard:  "GET, HEAD, OPTIONS",
	cardCatalog: "GET, HEAD, OPTIONS",
}

func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt := h.route(r.URL.Path)
	if rt == notServed {
		http.NotFound(w, r)
		return
	}
	page := r.Header.Get("Origin")
	if !h.Origins.Admits(page) && !(h.anyHost && origin.SameHost(page, r.Host)) ||
		page == "" && r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		w.Header().Set("Connection", "close")
		httpError(w, http.StatusForbidden, "origin not allowed")
		return
	}
	if !h.anyHost && !origin.LoopbackHost(r.Host) {
		w.Header().Set("Connection", "close")
		httpError(w, http.StatusForbidden, "host not allowed")
		return
	}
	if rt == health {
		h.health(w, r)
		return
	}
	if origin.IsPreflight(r) {
		cors.Preflight(w, r)
		return
	}
	if page != "" {
		cors.Actual(w.Header(), page)
	}
	if r.Method == http.MethodOptions {
		w.Header().Set("Allow", methods[rt])
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if rt == serverCard || rt == cardCatalog { // for clients yet to connect: no token
		h.serveCard(w, r, rt)
		return
	}
	who, ok := h.authorize(r)
	if !ok {
		// Said in the challenge too, which a client shows: this is no
		// OAuth server. The connection is closed: one that got a 401
		// holds nothing of serve's.
		w.Header().Set("Connection", "close")
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpv serve", error_description="send the bearer token mcpv serve printed on stderr, or was given (--http-token, MCPV_HTTP_TOKEN), as Authorization: Bearer TOKEN"`)
		httpError(w, http.StatusUnauthorized, "a bearer token is required: the one mcpv serve printed on stderr, or was given (--http-token, MCPV_HTTP_TOKEN), as Authorization: Bearer TOKEN")
		return
	}
	if h.Admit != nil && !h.Admit(who) {
		http.NotFound(w, r) // a server the token does not see is not there
		return
	}
	if who != nil {
		r = r.WithContext(context.WithValue(r.Context(), whoKey{}, who))
	}
	switch {
	case rt == endpoint && r.Method == http.MethodPost:
		h.post(w, r)
	case rt == endpoint && r.Method == http.MethodGet:
		h.get(w, r)
	case rt == endpoint && r.Method == http.MethodDelete:
		if s := h.session(w, r); s != nil {
			h.end(r.Header.Get("Mcp-Session-Id"))
			w.WriteHeader(http.StatusOK)
		}
	case rt == sseStream && r.Method == http.MethodGet:
		h.sse(w, r)
	case rt == sseMessage && r.Method == http.MethodPost:
		h.message(w, r)
	case rt == sseStream:
		// No JSON-RPC error: a client that POSTs its initialize here to
		// try Streamable HTTP first then GETs the stream, as the
		// transport's backwards compatibility asks.
		w.Header().Set("Allow", methods[rt])
		http.Error(w, "method not allowed: GET this URL for the event stream", http.StatusMethodNotAllowed)
	default:
		w.Header().Set("Allow", methods[rt])
		httpError(w, http.StatusMethodNotAllowed, "method not allowed")
	}
}

// authorize is the view of the request's client, if its bearer token is
// one the endpoint takes (with no token asked for, everyone's: nil).
func (h *HTTPHandler) authorize(r *http.Request) (*View, bool) {
	if h.clients != nil {
		return h.clients.who(r)
	}
	if h.token == "" {
		return nil, true
	}
	got, ok := bearerToken(r)
	return nil, ok && subtle.ConstantTimeCompare([]byte(got), []byte(h.token)) == 1
}

// health answers a probe: 200 while the server is up, 503 once it has
// gone (or serve is ending), and nothing about the server. It sends
// nothing upstream, so no number of probes makes the server work.
func (h *HTTPHandler) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", methods[health])
		httpError(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	h.mu.Lock()
	closed, draining := h.closed, h.draining
	h.mu.Unlock()
	status, body := http.StatusOK, any(map[string]string{"status": "ok"})
	switch {
	case draining && !closed:
		// A balancer sends it no more: the replica is stopping.
		status, body = http.StatusServiceUnavailable, map[string]string{"status": "draining"}
	case h.Health != nil:
		who, known := h.authorize(r)
		status, body = h.Health(who, known, closed)
	case closed || lazy.Closed(h.srv.Done()): // never done with Isolate
		status, body = http.StatusServiceUnavailable, map[string]string{"status": "unavailable"}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method == http.MethodGet {
		b, _ := json.Marshal(body)
		w.Write(append(b, '\n'))
	}
}

// CheckPath says whether path may be the endpoint's (--path): an
// absolute path, in the characters a path holds as they are (no
// percent-encoding, which would be read decoded), without empty, . or
// .. segments, and none of the other paths served.
func CheckPath(path string, sse bool) error {
	if !strings.HasPrefix(path, "/") {
		return errors.New("it must start with /")
	}
	for _, c := range path {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune("/-._~!$&'()*+,;=:@", c)) {
			return errors.New("it may hold letters, digits and -._~!$&'()*+,;=:@/ alone")
		}
	}
	if path != "/" {
		for _, seg := range strings.Split(strings.TrimSuffix(path[1:], "/"), "/") {
			if seg == "" || seg == "." || seg == ".." {
				return errors.New("it may not have empty, . or .. segments")
			}
		}
	}
	if stream, message := LegacyPaths(path); path == HealthPath || sse && (path == stream || path == message) {
		return errors.New(path + " is served already")
	}
	return nil
}
