package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/subscription"
	"github.com/mcpv/mcpv/mcp"
)

// Guards limit what the clients of a served server see and may use: each
// guard has allow and deny patterns for tools, resources (and templates)
// and prompts, and ReadOnly. Something is offered when every guard allows
// it. What they hide is left out of every list, and a request for it is
// refused, so a client cannot reach by name what it cannot list.
type Guards []config.Guard

func (gs Guards) toolAllowed(name string) bool {
	return gs.every(func(g config.Guard) bool { return nameAllowed(name, g.AllowTools, g.DenyTools) })
}

// AllowsResource reports whether the guards offer the resource uri.
func (gs Guards) AllowsResource(uri string) bool {
	return gs.every(func(g config.Guard) bool { return uriAllowed(uri, g.AllowResources, g.DenyResources) })
}

func (gs Guards) promptAllowed(name string) bool {
	return gs.every(func(g config.Guard) bool { return nameAllowed(name, g.AllowPrompts, g.DenyPrompts) })
}

// nameAllowed matches a tool's or a prompt's name. An allow pattern
// matches the name exactly; a deny pattern also in another case or with
// look-alike letters (canon.Fold), as a lenient server may read it. A
// name a server may read as another (canon.Name) is refused where
// patterns apply.
func nameAllowed(name string, allow, deny []string) bool {
	if len(allow) == 0 && len(deny) == 0 {
		return true
	}
	if canon.Name(name) != nil {
		return false
	}
	folded := canon.Fold(name)
	return allowed(deny, allow, func(p string) bool { return glob(p, name) || glob(canon.Fold(p), folded) }, func(p string) bool { return glob(p, name) })
}

// uriAllowed matches a resource's URI, or a template's, in its normal
// form (canon.URI) against the patterns in theirs; a deny pattern
// matches in any case, as a case-insensitive file system reads a path.
// A loopback address is matched as localhost and as the address it is
// (canon.Literal), so that http://127.0.0.*/ still names 127.0.0.5.
// A URI that cannot be normalised without a guess is refused where
// patterns apply.
func uriAllowed(uri string, allow, deny []string) bool {
	if len(allow) == 0 && len(deny) == 0 {
		return true
	}
	n, err := canon.URI(uri)
	if err != nil {
		return false
	}
	forms := []string{n, canon.Literal(uri)}
	return allowed(deny, allow, func(p string) bool {
		p = strings.ToLower(canon.Pattern(p))
		return slices.ContainsFunc(forms, func(f string) bool { return glob(p, strings.ToLower(f)) })
	}, func(p string) bool {
		return slices.ContainsFunc(forms, func(f string) bool { return glob(canon.Pattern(p), f) })
	})
}

func (gs Guards) readOnly() bool {
	return slices.ContainsFunc(gs, func(g config.Guard) bool { return g.ReadOnly })
}

func (gs Guards) every(ok func(config.Guard) bool) bool {
	return !slices.ContainsFunc(gs, func(g config.Guard) bool { return !ok(g) })
}

// allowed: no deny pattern that denies, and no allow pattern or one that
// allows.
func allowed(deny, allow []string, denies, allows func(pattern string) bool) bool {
	if slices.ContainsFunc(deny, denies) {
		return false
	}
	return len(allow) == 0 || slices.ContainsFunc(allow, allows)
}

// glob matches s against a pattern where * stands for any run of
// characters ('/' included: URIs are matched whole) and ? for one.
func glob(pattern, s string) bool {
	p, str := []rune(pattern), []rune(s)
	star, mark := -1, 0
	i, j := 0, 0
	for j < len(str) {
		switch {
		case i < len(p) && p[i] == '*':
			star, mark = i, j
			i++
		case i < len(p) && (p[i] == '?' || p[i] == str[j]):
			i++
			j++
		case star >= 0:
			i = star + 1
			mark++
			j = mark
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}

// filter removes from a page of a list what the guard hides, its names
// read with prefix before them; any other result comes back as it is.
func (g Guards) filter(method, prefix string, res json.RawMessage) json.RawMessage {
	l, ok := mcp.ListOf(method)
	if !ok || len(g) == 0 {
		return res
	}
	return mcp.FilterPage(res, l.Key, func(item json.RawMessage) bool {
		// The item's key read exactly as a client reads it; an item that
		// holds it twice, or under another case, is hidden.
		id, ok := l.ID(item)
		if ok && !l.ByURI {
			id = prefix + id
		}
		return ok && g.allowsItem(l, id, item)
	})
}

// AllowsTool reports whether the guards offer the tool called name, whose
// definition is def: every guard allows its name, and a read-only guard
// its readOnlyHint. mcpv app holds the tools an app calls to the same
// guard as serve holds its clients'.
func (gs Guards) AllowsTool(name string, def json.RawMessage) bool {
	return gs.allowsItem(mcp.Tools, name, def)
}

// allowsItem reports whether the guards offer the item of list l called
// id (a name or a URI), defined as def: a read-only guard reads a tool's
// annotations there.
func (g Guards) allowsItem(l mcp.List, id string, def json.RawMessage) bool {
	switch {
	case l.ByURI:
		return g.AllowsResource(id)
	case l == mcp.Tools:
		return g.toolAllowed(id) && (!g.readOnly() || ToolReadOnly(def))
	}
	return g.promptAllowed(id)
}

// check refuses a request for what the guard hides. readOnly looks a
// tool's annotations up when ReadOnly asks for them.
func (g Guards) check(ctx context.Context, method string, params json.RawMessage, readOnly func(ctx context.Context, name string) bool) *mcp.RPCError {
	if len(g) == 0 || !guarded(method) {
		return nil // nothing to check: the params go on unread
	}
	p, rerr := ReadTarget(params)
	if rerr != nil {
		return rerr
	}
	switch method {
	case "tools/call":
		if !g.toolAllowed(p.Name) || g.readOnly() && !readOnly(ctx, p.Name) {
			return refused("tool", p.Name)
		}
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		if !g.AllowsResource(p.URI) {
			return refusedURI(p.URI)
		}
	case "prompts/get":
		if !g.promptAllowed(p.Name) {
			return refused("prompt", p.Name)
		}
	case "completion/complete":
		if p.RefType == "ref/prompt" && !g.promptAllowed(p.RefName) {
			return refused("prompt", p.RefName)
		}
		if p.RefType == "ref/resource" && !g.AllowsResource(p.RefURI) {
			return refusedURI(p.RefURI)
		}
	}
	return nil
}

// Target is what a request names: its params' name, uri and ref.
type Target struct{ Name, URI, RefType, RefName, RefURI string }

// ReadTarget reads what a request names, each member exactly as the
// server will read it: a JSON decoder matches keys in any case and keeps
// the last, so params with "name" and "Name" would be checked by one and
// run by the other. Params that hold a key twice, or under another case,
// are refused.
func ReadTarget(params json.RawMessage) (Target, *mcp.RPCError) {
	var p Target
	var ok [5]bool
	p.Name, ok[0] = rawjson.ExactString(params, "name")
	p.URI, ok[1] = rawjson.ExactString(params, "uri")
	ref, refOK := rawjson.Exact(params, "ref")
	p.RefType, ok[2] = rawjson.ExactString(ref, "type")
	p.RefName, ok[3] = rawjson.ExactString(ref, "name")
	p.RefURI, ok[4] = rawjson.ExactString(ref, "uri")
	if !refOK || ok != [5]bool{true, true, true, true, true} {
		return p, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "params hold a key twice, or in another case, or of the wrong type: refused"}
	}
	return p, nil
}

// guarded reports whether check looks into a request of method.
func guarded(method string) bool {
	return slices.Contains([]string{"tools/call", "resources/read", "resources/subscribe", "resources/unsubscribe", "prompts/get", "completion/complete"}, method)
}

// listenParams are a subscriptions/listen's params with the resources
// the guard hides taken out of its resourceSubscriptions, as
// resources/subscribe would be refused them. Params that hold a key
// twice, or in another case, are refused, as check refuses them.
func (g Guards) listenParams(params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	if len(g) == 0 {
		return params, nil
	}
	uris, rerr := ListenURIs(params)
	if rerr != nil {
		return nil, rerr
	}
	return WithListenURIs(params, slices.DeleteFunc(slices.Clone(uris), func(uri string) bool { return !g.AllowsResource(uri) })), nil
}

// ListenURIs are a subscriptions/listen's resourceSubscriptions, refused
// as ReadTarget refuses.
func ListenURIs(params json.RawMessage) ([]string, *mcp.RPCError) {
	n, ok := rawjson.Exact(params, "notifications")
	subs, subsOK := rawjson.Exact(n, "resourceSubscriptions")
	var uris []string
	if !ok || !subsOK || subs != nil && json.Unmarshal(subs, &uris) != nil {
		return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "params hold a key twice, or in another case, or of the wrong type: refused"}
	}
	return uris, nil
}

// ListenFilterOf is a subscriptions/listen's notifications, refused as
// ListenURIs refuses.
func ListenFilterOf(params json.RawMessage) (mcp.ListenFilter, *mcp.RPCError) {
	var p struct {
		Notifications mcp.ListenFilter `json:"notifications"`
	}
	_, rerr := ListenURIs(params)
	if rerr == nil && json.Unmarshal(params, &p) != nil {
		rerr = &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "params are no object: refused"}
	}
	return p.Notifications, rerr
}

// WithListenURIs are a listen's params (which ListenURIs took) with kept,
// those of its resourceSubscriptions that are kept, in their place; the
// params as they are when every one is.
func WithListenURIs(params json.RawMessage, kept []string) json.RawMessage {
	if uris, _ := ListenURIs(params); len(kept) == len(uris) {
		return params
	}
	notes, _ := rawjson.Exact(params, "notifications")
	return rawjson.With(params, "notifications", rawjson.With(notes, "resourceSubscriptions", mustJSON(kept)))
}

// hidesNotification reports whether a notification is about something the
// guard hides (a resource's update).
func (g Guards) hidesNotification(method string, params json.RawMessage) bool {
	return method == "notifications/resources/updated" && len(g) > 0 && !g.AllowsResource(subscription.URI(params))
}

// refused is the error a client gets for what the guard hides: the same
// code as for what does not exist
// (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling).
func refused(kind, name string) *mcp.RPCError {
	msg := fmt.Sprintf("%s %q is not available here: this server is guarded", kind, name)
	if err := canon.Name(name); err != nil {
		msg += ", and " + err.Error()
	}
	return &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: msg}
}

// refusedURI is refused for a resource, saying why when its URI is
// ambiguous.
func refusedURI(uri string) *mcp.RPCError {
	e := refused("resource", uri)
	if _, err := canon.URI(uri); err != nil {
		e.Message = fmt.Sprintf("resource %q is not available here: this server is guarded, and %v", uri, err)
	}
	return e
}

// ToolReadOnly reports whether a tool's definition says readOnlyHint
// (its annotations.readOnlyHint).
func ToolReadOnly(raw json.RawMessage) bool {
	var t struct {
		Annotations struct {
			ReadOnly bool `json:"readOnlyHint"`
		} `json:"annotations"`
	}
	return json.Unmarshal(raw, &t) == nil && t.Annotations.ReadOnly
}
