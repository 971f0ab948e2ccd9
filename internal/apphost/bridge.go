package apphost

// What mcpv does with the app's requests that reach it, the host's half of
// the bridge past the page: a tool call only for a tool the server lists
// whose visibility includes "app" (the extension's MUST), that the guard
// allows, and, for one that does not say readOnlyHint, that the user
// agrees to; a resource read the guard allows; messages, context updates
// and logs recorded; links opened only when the user said so. Everything
// the app does is a line of the record, refusals too.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/mcpv/mcpv/internal/apps"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// Bridge answers the requests of one app.
type Bridge struct {
	// Tools are the server's tools by name, as listed.
	Tools map[string]json.RawMessage
	// Relay sends a request to the server through the session.
	Relay func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// AllowTool and AllowResource are the guard; nil allows.
	AllowTool     func(name string, def json.RawMessage) bool
	AllowResource func(uri string) bool
	// ReadOnly says whether a tool's definition says readOnlyHint.
	ReadOnly func(def json.RawMessage) bool
	// Yes lets the app call tools that do not say readOnlyHint without
	// asking; otherwise Confirm asks the user (nil: no one to ask, and
	// such a call is refused).
	Yes     bool
	Confirm func(ctx context.Context, question string) (bool, error)
	// OpenLink opens a link the app asks to open; nil refuses links.
	OpenLink func(url string) error
	// Record is told each line of the record.
	Record func(line map[string]any)
}

// codeRefused is the error an app gets for what the host refuses
// (the extension's implementation-defined -32000).
const codeRefused = -32000

func refusedError(format string, args ...any) *mcp.RPCError {
	return &mcp.RPCError{Code: codeRefused, Message: fmt.Sprintf(format, args...)}
}

// Event records a notification of the app (or what the page did).
func (b *Bridge) Event(method string, params json.RawMessage) {
	line := map[string]any{"event": method}
	if len(params) > 0 {
		line["params"] = params
	}
	b.Record(line)
}

// Request answers a request of the app.
func (b *Bridge) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	res, rerr := b.answer(ctx, method, params)
	line := map[string]any{"event": method, "params": params}
	if params == nil {
		delete(line, "params")
	}
	if rerr != nil {
		line["error"] = rerr.Message
	} else if method != "tools/list" {
		line["result"] = res
	}
	b.Record(line)
	return res, rerr
}

func (b *Bridge) answer(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	switch method {
	case "tools/call":
		return b.callTool(ctx, params)
	case "tools/list":
		var out []json.RawMessage
		for name, def := range b.Tools {
			if apps.AppCallable(def) && (b.AllowTool == nil || b.AllowTool(name, def)) {
				out = append(out, def)
			}
		}
		if out == nil {
			out = []json.RawMessage{}
		}
		return rawjson.MustMarshal(map[string]any{"tools": out}), nil
	case "resources/read":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(params, &p) != nil || p.URI == "" {
			return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "resources/read wants a uri"}
		}
		if b.AllowResource != nil && !b.AllowResource(p.URI) {
			return nil, refusedError("resource %q is not available to the app: the guard does not allow it", p.URI)
		}
		return b.relay(ctx, method, rawjson.MustMarshal(map[string]string{"uri": p.URI}))
	case "ui/message", "ui/update-model-context":
		return json.RawMessage(`{}`), nil
	case "ui/open-link":
		var p struct {
			URL string `json:"url"`
		}
		err := json.Unmarshal(params, &p)
		u, perr := url.Parse(p.URL)
		switch {
		case err != nil || perr != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
			return nil, refusedError("Invalid URL: only http and https links are opened")
		case b.OpenLink == nil:
			return nil, refusedError("Link opening denied: the user did not allow it (mcpv app --allow-links)")
		}
		if err := b.OpenLink(u.String()); err != nil {
			return nil, refusedError("the link could not be opened: %v", err)
		}
		return json.RawMessage(`{}`), nil
	}
	return nil, &mcp.RPCError{Code: mcp.CodeMethodNotFound, Message: "method not found: " + method}
}

func (b *Bridge) callTool(ctx context.Context, params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil || p.Name == "" {
		return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "tools/call wants a name"}
	}
	def, listed := b.Tools[p.Name]
	switch {
	case !listed:
		return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("the server lists no tool %q", p.Name)}
	case !apps.AppCallable(def):
		// "Host MUST reject tools/call requests from apps for tools that
		// don't include "app" in visibility."
		return nil, refusedError("tool %q is not callable by apps: its visibility does not include \"app\"", p.Name)
	case b.AllowTool != nil && !b.AllowTool(p.Name, def):
		return nil, refusedError("tool %q is not available to the app: the guard does not allow it", p.Name)
	}
	args := p.Arguments
	if args == nil || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	if !b.Yes && !b.ReadOnly(def) {
		if b.Confirm == nil {
			return nil, refusedError("tool %q changes things (it does not say readOnlyHint), and no one can be asked to agree (mcpv app --yes lets the app call it)", p.Name)
		}
		ok, err := b.Confirm(ctx, fmt.Sprintf("The app asks to call %s with %s. Allow? [y/N] ", p.Name, safetext.Runes(string(args), 200)))
		if err != nil || !ok {
			return nil, refusedError("the user did not let the app call tool %q", p.Name)
		}
	}
	return b.relay(ctx, "tools/call", rawjson.MustMarshal(map[string]any{"name": p.Name, "arguments": args}))
}

// relay sends a request to the server; its JSON-RPC error goes to the app
// as it is, any other failure as an internal error.
func (b *Bridge) relay(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	res, err := b.Relay(ctx, method, params)
	var ce *mcp.CallError
	switch {
	case errors.As(err, &ce):
		return nil, ce.Err
	case err != nil:
		return nil, &mcp.RPCError{Code: mcp.CodeInternalError, Message: err.Error()}
	}
	return res, nil
}
