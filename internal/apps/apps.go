// Package apps is MCP Apps (the io.modelcontextprotocol/ui extension,
// https://github.com/modelcontextprotocol/ext-apps, specification
// 2026-01-26) as a host sees an app before it renders it: the tool that
// names a ui:// resource in its _meta, the resource read and checked as the
// extension requires (its media type, its HTML, its size, the content
// security policy and permissions it declares), and what a host does with
// it (the sandbox, the policy it builds, the tools the app may call). The
// host page that renders one is internal/apphost's.
//
// Everything here is the server's to write, so all of it is hostile input:
// a problem is data in the report, never a panic, and nothing the server
// wrote reaches a policy the host builds without being checked first.
package apps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// Spec is the revision of the extension mcpv follows, as ui/initialize's
// protocolVersion names it. The requirements quoted come from
// https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx.
const Spec = "2026-01-26"

// The visibilities of an app's tool: to the model, to the app.
const (
	Model = "model"
	App   = "app"
)

// Level is how much a problem weighs: an error breaks a MUST of the
// extension (the app is invalid), a warning a SHOULD, a note is what a
// host tells its user.
type Level string

const (
	Error   Level = "error"
	Warning Level = "warning"
	Note    Level = "note"
)

// Problem is one thing wrong with an app, or worth saying of it.
type Problem struct {
	Level   Level  `json:"level"`
	Rule    string `json:"rule"`    // stable: apps.mime-type, apps.csp...
	Message string `json:"message"` // a line, safe for a terminal
}

func problem(level Level, rule, format string, args ...any) Problem {
	return Problem{Level: level, Rule: rule, Message: safetext.Line(fmt.Sprintf(format, args...))}
}

// Invalid reports whether any problem is an error.
func Invalid(ps []Problem) bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Level == Error })
}

// ToolApp is what a tool's _meta says of its app.
type ToolApp struct {
	Tool        string
	ResourceURI string
	// Visibility is as declared, or the default, model and app.
	Visibility []string
	Problems   []Problem
}

// OfTool reads a tool definition (as tools/list sent it) for its app:
// _meta.ui.resourceUri, or the deprecated flat _meta["ui/resourceUri"].
// ok is false for a tool that names no app. Visibility is read either way,
// as it says whether an app may call the tool.
func OfTool(tool json.RawMessage) (a ToolApp, ok bool) {
	var t struct {
		Name string `json:"name"`
		Meta struct {
			UI   json.RawMessage `json:"ui"`
			Flat json.RawMessage `json:"ui/resourceUri"`
		} `json:"_meta"`
	}
	if json.Unmarshal(tool, &t) != nil {
		a.Problems = append(a.Problems, problem(Error, "apps.tool-meta", "the tool's name or _meta is not of its type (a string, an object)"))
	}
	a.Tool = t.Name
	a.Visibility = []string{Model, App}
	var ui struct {
		ResourceURI json.RawMessage `json:"resourceUri"`
		Visibility  json.RawMessage `json:"visibility"`
	}
	if t.Meta.UI != nil && string(t.Meta.UI) != "null" {
		if err := json.Unmarshal(t.Meta.UI, &ui); err != nil {
			a.Problems = append(a.Problems, problem(Error, "apps.tool-meta", "the tool's _meta.ui is not an object"))
		}
	}
	if ui.Visibility != nil {
		a.Visibility, a.Problems = visibility(ui.Visibility, a.Problems)
	}
	uri, has := stringMember(ui.ResourceURI, "_meta.ui.resourceUri", &a.Problems)
	flat, hasFlat := stringMember(t.Meta.Flat, `_meta["ui/resourceUri"]`, &a.Problems)
	switch {
	case has && hasFlat && uri != flat:
		a.Problems = append(a.Problems, problem(Error, "apps.tool-meta", "_meta.ui.resourceUri (%q) and the deprecated _meta[\"ui/resourceUri\"] (%q) name different resources", uri, flat))
	case !has && hasFlat:
		uri, has = flat, true
		a.Problems = append(a.Problems, problem(Warning, "apps.deprecated-key", `the app is named by the deprecated _meta["ui/resourceUri"]; use _meta.ui.resourceUri`))
	}
	if !has {
		return a, false
	}
	a.ResourceURI = uri
	if !strings.HasPrefix(uri, "ui://") {
		a.Problems = append(a.Problems, problem(Error, "apps.resource-uri", "the app's resource %q does not use the ui:// scheme", uri))
	}
	return a, true
}

// stringMember reads a string member named what; a member of another type
// is a problem.
func stringMember(raw json.RawMessage, what string, ps *[]Problem) (string, bool) {
	if raw == nil || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		*ps = append(*ps, problem(Error, "apps.tool-meta", "%s is not a string", what))
		return "", false
	}
	return s, true
}

// visibility reads _meta.ui.visibility: an array of "model" and "app".
func visibility(raw json.RawMessage, ps []Problem) ([]string, []Problem) {
	var v []string
	if json.Unmarshal(raw, &v) != nil {
		return []string{Model, App}, append(ps, problem(Error, "apps.visibility", "_meta.ui.visibility is not an array of strings"))
	}
	out := []string{}
	for _, s := range v {
		if s != Model && s != App {
			ps = append(ps, problem(Error, "apps.visibility", "_meta.ui.visibility holds %q; only \"model\" and \"app\" are defined", s))
			continue
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		ps = append(ps, problem(Warning, "apps.visibility", "_meta.ui.visibility is empty: neither the model nor the app may call the tool"))
	}
	return out, ps
}

// Visible reports whether the tool is visible to who (Model or App).
func (a ToolApp) Visible(who string) bool { return slices.Contains(a.Visibility, who) }

// AppCallable reports whether an app may call the tool (tools/call from
// the app): its visibility includes "app", the default. A host MUST
// reject a call from an app of a tool whose visibility does not.
func AppCallable(tool json.RawMessage) bool {
	a, _ := OfTool(tool)
	return a.Visible(App)
}

// Extension is the extension's identifier.
const Extension = mcp.UIExtension
