package mcp

// Extensions (https://modelcontextprotocol.io/extensions/overview,
// SEP-2133): optional additions to the protocol, each named by an
// identifier ("io.modelcontextprotocol/ui") and negotiated through an
// "extensions" member of both sides' capabilities, a map from identifier
// to the extension's settings object. The client declares the extensions
// it speaks as each era carries its capabilities: in the initialize
// request's capabilities (the initialize era), or in the clientCapabilities
// _meta of every request (the 2026-07-28 era); the server declares its own
// in initialize's answer or server/discover's. An extension is in use
// only when both sides declare it ("a client only uses an extension if
// both client and server declare support", the client matrix).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// UIExtension is MCP Apps (https://github.com/modelcontextprotocol/ext-apps,
// SEP-1865): a tool names a ui:// resource of HTML that a host renders in a
// sandboxed frame and talks to over a JSON-RPC bridge.
const UIExtension = "io.modelcontextprotocol/ui"

// AppMIMEType is the media type of an MCP App's HTML, the only one the
// extension defines.
const AppMIMEType = "text/html;profile=mcp-app"

// Extension is an extension mcpv speaks.
type Extension struct {
	ID string
	// Short is the name a user may give it by (--no-extension ui).
	Short string
	// Settings is the settings object mcpv declares for it.
	Settings json.RawMessage
	// InitializeEra: the extension is declared in the initialize era too.
	// Tasks are not: that era has tasks in its core capabilities, which
	// the tasks extension replaces in the 2026-07-28 era.
	InitializeEra bool
}

// Extensions are the extensions mcpv speaks, in the order it declares them.
var Extensions = []Extension{
	{ID: SkillsExtension, Short: "skills", Settings: json.RawMessage(`{}`), InitializeEra: true},
	{ID: TasksExtension, Short: "tasks", Settings: json.RawMessage(`{}`)},
	{ID: UIExtension, Short: "ui", Settings: json.RawMessage(`{"mimeTypes":["` + AppMIMEType + `"]}`), InitializeEra: true},
}

// ExtensionID is the identifier of an extension mcpv speaks, given by its
// identifier or its short name; ok is false for any other.
func ExtensionID(name string) (id string, ok bool) {
	for _, e := range Extensions {
		if name == e.ID || strings.EqualFold(name, e.Short) {
			return e.ID, true
		}
	}
	return "", false
}

// ExtensionNames lists the extensions mcpv speaks, for a message: "tasks
// (io.modelcontextprotocol/tasks), ...".
func ExtensionNames() string {
	var names []string
	for _, e := range Extensions {
		names = append(names, e.Short+" ("+e.ID+")")
	}
	return strings.Join(names, ", ")
}

// offered reports whether the client declares extension id in the given
// era: one mcpv speaks in that era, not turned off, and not a session
// whose capabilities are another client's (Relayed), where the initialize
// era declares none of mcpv's own and the modern era only those it always
// has (tasks and skills, which serve answers itself).
func (o ClientOptions) offered(id string, modern bool) bool {
	if slices.Contains(o.NoExtensions, id) {
		return false
	}
	i := slices.IndexFunc(Extensions, func(e Extension) bool { return e.ID == id })
	switch {
	case i < 0:
		return false
	case o.Relayed:
		return modern && id != UIExtension
	case modern:
		return true
	}
	return Extensions[i].InitializeEra
}

// withExtensionsFor adds to caps the extensions the client declares in
// the era (see offered): an "extensions" member after caps' own, which
// keep their order; an extension caps names already keeps its settings.
func withExtensionsFor(caps json.RawMessage, opts ClientOptions, modern bool) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(caps, &m) != nil || m == nil {
		caps, m = json.RawMessage(`{}`), map[string]json.RawMessage{}
	}
	var ext map[string]json.RawMessage
	rawjson.DecodeLoose(m["extensions"], &ext) // caps are mcpv's own, built by its answerer: never malformed
	var add []byte
	for _, e := range Extensions {
		if _, set := ext[e.ID]; !set && opts.offered(e.ID, modern) {
			lazy.Put(&ext, e.ID, e.Settings)
			add = append(append(append(append(add, ','), mustJSON(e.ID)...), ':'), e.Settings...)
		}
	}
	switch {
	case add == nil:
		return caps
	case m["extensions"] != nil:
		m["extensions"] = mustJSON(ext)
		return mustJSON(m)
	}
	body := bytes.TrimSpace(caps)
	body = bytes.TrimSpace(body[:len(body)-1]) // up to the closing brace
	out := append([]byte(nil), body...)
	if len(m) > 0 {
		out = append(out, ',')
	}
	out = append(append(out, `"extensions":{`...), add[1:]...)
	return append(out, "}}"...)
}

// ClientCapabilities are the capabilities the client declares: those of
// its initialize request, or those every request of the modern era carries.
func (c *Client) ClientCapabilities() json.RawMessage {
	if c.era().modern {
		if c.modernCaps != nil {
			return c.modernCaps
		}
		return withExtensionsFor(c.opts.Capabilities, c.opts, true)
	}
	_, caps := offer(c.opts)
	return caps
}

// Offers reports whether the client declares the extension id in its era.
func (c *Client) Offers(id string) bool { return c.opts.offered(id, c.era().modern) }

// Negotiated reports whether the extension id is in use: the client
// declares it and so does the server.
func (c *Client) Negotiated(id string) bool { return c.Offers(id) && c.HasExtension(id) }

// ServerExtensions are the server's extensions: its capabilities'
// "extensions" member as sent, or nil.
func (c *Client) ServerExtensions() json.RawMessage { return c.era().init.Capabilities["extensions"] }

// RequireExtension returns a *CapabilityError unless the extension id is
// negotiated: the client declares it (Off when it was turned off) and the
// server does. A client uses an extension's methods only then.
func (c *Client) RequireExtension(id, method string) error {
	switch {
	case !c.Offers(id):
		return &CapabilityError{Capability: "extensions." + id, Method: method, Off: true}
	case !c.HasExtension(id):
		return &CapabilityError{Capability: "extensions." + id, Method: method}
	}
	return nil
}

// ExtensionProblems are what is wrong with a side's "extensions" member
// as the overview defines it: a map from identifiers, each
// {vendor-prefix}/{name} with the prefix mandatory, to settings objects.
// Each problem is a line naming the identifier.
func ExtensionProblems(extensions json.RawMessage) []string {
	if extensions == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(extensions, &m); err != nil {
		return []string{fmt.Sprintf("extensions is not an object: %.80s", extensions)}
	}
	var problems []string
	for _, id := range slices.Sorted(maps.Keys(m)) {
		if !ValidExtensionID(id) {
			problems = append(problems, fmt.Sprintf("%q is not an extension identifier ({vendor-prefix}/{name}, the prefix labels separated by dots)", id))
		}
		if v := strings.TrimSpace(string(m[id])); !strings.HasPrefix(v, "{") {
			problems = append(problems, fmt.Sprintf("the settings of %q are not an object: %.60s", id, v))
		}
	}
	return problems
}

// ValidExtensionID reports whether id is an extension identifier: a
// prefix of dot-separated labels (each starting with a letter and ending
// with a letter or digit, hyphens inside), a slash, and a name that starts
// and ends with a letter or digit (hyphens, underscores and dots inside),
// as _meta keys are written, with the prefix mandatory.
func ValidExtensionID(id string) bool {
	prefix, name, ok := strings.Cut(id, "/")
	if !ok || prefix == "" || name == "" {
		return false
	}
	for _, label := range strings.Split(prefix, ".") {
		if label == "" || !isLetter(label[0]) || !isAlnum(label[len(label)-1]) || strings.Trim(label, alnum+"-") != "" {
			return false
		}
	}
	return isAlnum(name[0]) && isAlnum(name[len(name)-1]) && strings.Trim(name, alnum+"-_.") == ""
}

// alnum are the ASCII letters and digits: a name made of them and a few
// signs is what strings.Trim of them all leaves empty.
const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func isLetter(b byte) bool { return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' }
func isAlnum(b byte) bool  { return isLetter(b) || '0' <= b && b <= '9' }

// Info is what mcpv info shows: the server's initialize result (or the
// modern era's discovery, shaped as one) as sent, then the client's side,
// "clientCapabilities": what this session declares, its extensions with
// them, so that both sides of the negotiation read alike
// (.capabilities.extensions, .clientCapabilities.extensions).
func (c *Client) Info() json.RawMessage {
	res := bytes.TrimSpace(c.InitializeResult().Raw())
	if len(res) < 2 || res[len(res)-1] != '}' {
		return c.InitializeResult().Raw()
	}
	body := bytes.TrimSpace(res[:len(res)-1])
	out := append([]byte(nil), body...)
	if len(body) > 1 {
		out = append(out, ',')
	}
	var caps bytes.Buffer
	if json.Compact(&caps, c.ClientCapabilities()) != nil {
		caps.WriteString(`{}`)
	}
	return append(append(append(out, `"clientCapabilities":`...), caps.Bytes()...), '}')
}
