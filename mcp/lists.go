package mcp

import (
	"encoding/json"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// The protocol's four lists of what a server offers, named once: every
// part of mcpv that handles a list by its kind (a guard, a pin, a
// gateway's routes, kept lists, the checks, the fakes) reads this table.

// A List is one of the lists of what a server offers
// (https://modelcontextprotocol.io/specification/2025-11-25/server).
type List struct {
	// Method asks for a page of it: "tools/list".
	Method string
	// Key is the member of its result that holds the items: "tools".
	Key string
	// Field is the member that names an item: "name", "uri" or
	// "uriTemplate".
	Field string
	// Item is what one item is called: "tool", "prompt", "resource" or
	// "resource template".
	Item string
	// Capability is the server capability that declares it: "tools",
	// "prompts" or "resources" (the templates are the resources').
	Capability string
	// Changed is the notification that says it changed (the templates
	// change with the resources).
	Changed string
	// Listen is the member of a subscriptions/listen's notifications that
	// asks for its changes: "toolsListChanged".
	Listen string
	// ByURI says its items are named by a URI (a guard matches them with
	// its resource patterns, a gateway routes them by who lists them),
	// not by a name (a guard's tool or prompt patterns, a gateway's
	// prefixes).
	ByURI bool
}

// The four lists.
var (
	Tools             = List{"tools/list", "tools", "name", "tool", "tools", "notifications/tools/list_changed", "toolsListChanged", false}
	Prompts           = List{"prompts/list", "prompts", "name", "prompt", "prompts", "notifications/prompts/list_changed", "promptsListChanged", false}
	Resources         = List{"resources/list", "resources", "uri", "resource", "resources", "notifications/resources/list_changed", "resourcesListChanged", true}
	ResourceTemplates = List{"resources/templates/list", "resourceTemplates", "uriTemplate", "resource template", "resources", "notifications/resources/list_changed", "resourcesListChanged", true}
)

// Lists are the four, in the order a server's surface is written (a pin
// file, a recording, a gateway's lists).
var Lists = []List{Tools, Prompts, Resources, ResourceTemplates}

// ListOf is the list a method asks for; ok is false for any other
// method.
func ListOf(method string) (List, bool) {
	for _, l := range Lists {
		if l.Method == method {
			return l, true
		}
	}
	return List{}, false
}

// ID is what names an item of the list (its name, URI or URI template),
// read exactly as a client reads it: ok is false for an item that holds
// it twice, or in another case as well, or not as a string.
func (l List) ID(item json.RawMessage) (string, bool) { return rawjson.ExactString(item, l.Field) }

// Cacheable reports whether the 2026-07-28 era marks a method's results
// with how long they may be kept (ttlMs and cacheScope): server/discover,
// the lists and resources/read
// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching).
func Cacheable(method string) bool {
	return isList(method) || method == "server/discover" || method == "resources/read"
}

// isList reports whether a method asks for a page of a list.
func isList(method string) bool {
	_, ok := ListOf(method)
	return ok
}

// Changes are the list_changed notifications, one for each capability
// (the templates change with the resources).
var Changes = []string{Tools.Changed, Prompts.Changed, Resources.Changed}

// ChangedLists are the lists a notification says changed: the
// resources' change is their templates' too; none for any other
// notification.
func ChangedLists(method string) []List {
	var out []List
	for _, l := range Lists {
		if l.Changed == method {
			out = append(out, l)
		}
	}
	return out
}

// ListChanged is the server's list a notification says has changed:
// "tools", "prompts" or "resources" for their list_changed notifications
// (its capability: the resource templates are the resources' list), ok
// false for any other method.
func ListChanged(method string) (list string, ok bool) {
	if changed := ChangedLists(method); changed != nil {
		return changed[0].Capability, true
	}
	return "", false
}
