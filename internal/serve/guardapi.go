package serve

import (
	"encoding/json"

	"github.com/mcpv/mcpv/mcp"
)

// AllowsTool reports whether the guards offer the tool called name, whose
// definition is def: every guard allows its name, and a read-only guard
// its readOnlyHint. mcpv app holds the tools an app calls to the same
// guard as serve holds its clients'.
func (gs Guards) AllowsTool(name string, def json.RawMessage) bool {
	return gs.allowsItem(mcp.Tools, name, def)
}

// AllowsResource reports whether the guards offer the resource uri.
func (gs Guards) AllowsResource(uri string) bool { return gs.resourceAllowed(uri) }

// ToolReadOnly reports whether a tool's definition says readOnlyHint.
func ToolReadOnly(def json.RawMessage) bool { return toolReadOnly(def) }
