package serve

// What the HTTP endpoint publishes of the server it serves, for clients
// that look before they connect (Server Cards, SEP-2127): its card at the
// endpoint's URL + /server-card, and a catalog listing it at the
// well-known locations, made from the server's initialize result and
// where serve is reached, masked of every secret. They are answered
// without the bearer token, to the pages the endpoint admits (not to
// every origin, as the extension's CORS would have it: a card of a server
// on this machine is not for every web page).

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/servercard"
)

// Identity is what the served server says of itself (its initialize
// result) while the shared session is open; nil before, and with
// Isolate. Self, when set, is said in its place (a gateway says nothing
// of its servers to a page that has no token).
func (s *Server) Identity() json.RawMessage {
	if s.Self != nil {
		return s.Self
	}
	s.mu.Lock()
	u := s.shared
	s.mu.Unlock()
	if u == nil {
		return nil
	}
	return u.conn.State().InitializeResult.Raw()
}

// cardRoute is what a path of the endpoint's cards is, if it is one.
func (h *HTTPHandler) cardRoute(path string) route {
	switch {
	case h.NoCard:
	case path == h.path()+servercard.CardSuffix:
		return serverCard
	case slices.Contains(servercard.WellKnown, path):
		return cardCatalog
	}
	return notServed
}

var hostHeader = &lazy.Regexp{Pattern: `^[A-Za-z0-9.\-]+(:[0-9]+)?$|^\[[0-9A-Fa-f:.]+\](:[0-9]+)?$`}

// serveCard answers the card or the catalog.
func (h *HTTPHandler) serveCard(w http.ResponseWriter, r *http.Request, rt route) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		httpError(w, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	id := h.srv.Identity()
	if id == nil {
		w.Header().Set("Retry-After", "5")
		httpError(w, http.StatusServiceUnavailable, "the server's card is known once its session is open (with --isolate, none is shared)")
		return
	}
	if !hostHeader.Get().MatchString(r.Host) {
		httpError(w, http.StatusBadRequest, "a Host header that is no host name")
		return
	}
	scheme := "http"
	if r.TLS != nil || h.anyHost && r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	base := scheme + "://" + r.Host
	endpoint := base + h.path()
	sse := ""
	if h.SSE {
		sse, _ = LegacyPaths(h.path())
		sse = base + sse
	}
	ident, err := servercard.IdentityOf(id)
	if err != nil {
		httpError(w, http.StatusBadGateway, "the server's serverInfo does not decode: no card to make of it")
		return
	}
	for _, f := range ident.Strings() {
		*f = string(h.srv.Secrets.Mask([]byte(*f))) // before the card is made of them, so that it stays valid
	}
	body, typ := servercard.BuildCard(ident, endpoint, sse, servedVersions()), servercard.CardType
	if rt == cardCatalog {
		body, typ = servercard.BuildCatalog(r.Host, map[string]string{servercard.CardName(ident.Name): endpoint + servercard.CardSuffix}), servercard.CatalogType
	}
	body = h.srv.Secrets.Mask(body) // the host name, whatever a client sent
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	w.Header().Set("ETag", etag)
	// Five minutes rather than the extension's example of an hour: the
	// server behind serve may be restarted, or replaced, meanwhile.
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("Vary", "Host")
	if inm := r.Header.Get("If-None-Match"); inm != "" && slices.Contains(strings.Split(strings.ReplaceAll(inm, " ", ""), ","), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", typ)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}
