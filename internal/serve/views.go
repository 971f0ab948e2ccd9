package serve

// Views: what one client of an HTTP endpoint may see, by the bearer
// token it sends (Clients): the servers it sees (a gateway's, by name),
// and a guard over the names as a gateway's endpoint gives them. What a
// view hides is invisible, not merely refused: left out of every list,
// a request for it answered as for a name no server gives, a server's
// own path not found, and its session ids unknown to another token.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// View is what a client of an endpoint may see.
type View struct {
	// Name says who the view is for, on the log.
	Name string
	// Servers are the servers it sees, by name; nil sees every one.
	Servers []string
	// Guard hides what it does not allow, over the names at the
	// endpoint.
	Guard config.Guard
}

// Sees reports whether the view lets its client see the server called
// name; a nil view sees everything.
func (v *View) Sees(name string) bool {
	return v == nil || v.Servers == nil || slices.Contains(v.Servers, name)
}

// Hides reports whether the view's guard hides anything.
func (v *View) Hides() bool { return v.guard("") != nil }

// Check refuses a request for what the view hides, the names as the
// endpoint gives them (readOnly looks a tool's annotations up).
func (v *View) Check(ctx context.Context, method string, params json.RawMessage, readOnly func(context.Context, string) bool) *mcp.RPCError {
	return v.guard("").check(ctx, method, params, readOnly)
}

// Filter leaves out of a page of a list what the view hides.
func (v *View) Filter(method string, res json.RawMessage) json.RawMessage {
	return v.guard("").filter(method, res)
}

// ListenParams are a subscriptions/listen's params without the resources
// the view hides (see Guards.listenParams).
func (v *View) ListenParams(params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	if vg := v.guard(""); vg != nil {
		return vg.g.listenParams(params)
	}
	return params, nil
}

// guard is the view's guard, over names with prefix before them (a
// member's own path serves its names without it).
func (v *View) guard(prefix string) *viewGuard {
	if v == nil || isZeroGuard(v.Guard) {
		return nil
	}
	return &viewGuard{g: Guards{v.Guard}, prefix: prefix}
}

func isZeroGuard(g config.Guard) bool {
	return len(g.AllowTools)+len(g.DenyTools)+len(g.AllowResources)+len(g.DenyResources)+len(g.AllowPrompts)+len(g.DenyPrompts) == 0 && !g.ReadOnly
}

// viewGuard is a view's guard applied to names that lack prefix.
type viewGuard struct {
	g      Guards
	prefix string
}

// filter leaves out of a page of a list what the view hides.
func (v *viewGuard) filter(method string, res json.RawMessage) json.RawMessage {
	if v == nil {
		return res
	}
	return v.g.filter(method, v.prefix, res)
}

// check refuses a request for what the view hides (readOnly looks a
// tool's annotations up, by the name its server gives it).
func (v *viewGuard) check(ctx context.Context, method string, params json.RawMessage, readOnly func(context.Context, string) bool) *mcp.RPCError {
	if v == nil || !guarded(method) {
		return nil
	}
	if v.prefix != "" {
		p, rerr := ReadTarget(params)
		if rerr != nil {
			return rerr
		}
		switch {
		case method == "tools/call" || method == "prompts/get":
			params = rawjson.With(params, "name", mustJSON(v.prefix+p.Name))
		case method == "completion/complete" && p.RefType == "ref/prompt":
			params = rawjson.With(params, "ref", rawjson.With(rawjson.Member(params, "ref"), "name", mustJSON(v.prefix+p.RefName)))
		}
		inner := readOnly
		readOnly = func(ctx context.Context, name string) bool { return inner(ctx, name[len(v.prefix):]) }
	}
	return v.g.check(ctx, method, params, readOnly)
}

// Clients are who may use a gateway's (or a server's) HTTP endpoint: a
// bearer token each, with the view it gets.
type Clients struct {
	byDigest map[[sha256.Size]byte]*View
}

// NewClients are the clients of tokens, each with its view (nil: every
// server and item), a copy of its own: a session is bound to the view of
// the token that opened it.
func NewClients(tokens map[string]*View) (*Clients, error) {
	cs := &Clients{byDigest: map[[sha256.Size]byte]*View{}}
	for t, v := range tokens {
		if t == "" {
			return nil, errors.New("a bearer token cannot be empty")
		}
		own := &View{} // nil: every server
		if v != nil {
			*own = *v
		}
		cs.byDigest[sha256.Sum256([]byte(t))] = own
	}
	return cs, nil
}

// who is the view of a request's bearer token; ok is false without a
// token the clients know. The token is compared by its digest, in
// constant time, whoever sent what.
func (cs *Clients) who(r *http.Request) (v *View, ok bool) {
	token, ok := bearerToken(r)
	if !ok {
		return nil, false
	}
	v, ok = cs.byDigest[sha256.Sum256([]byte(token))]
	return v, ok
}

// bearerToken is the token of a request's Authorization: Bearer TOKEN;
// ok is false for another scheme, or none. The scheme's name is matched
// in any case, as schemes are (RFC 9110 §11.1: "bearer" is "Bearer").
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimLeft(token, " ")
	return token, strings.EqualFold(scheme, "Bearer") && token != ""
}

// SetClients makes the handler take the bearer tokens of clients, each
// with its view, in place of the one token it was made with.
func (h *HTTPHandler) SetClients(cs *Clients) { h.clients = cs }

// whoKey marks an HTTP request's context with the view of its client.
type whoKey struct{}

// whoOf is the view of the client of an HTTP request, once its token is
// known (nil: everything).
func whoOf(r *http.Request) *View {
	v, _ := r.Context().Value(whoKey{}).(*View)
	return v
}
