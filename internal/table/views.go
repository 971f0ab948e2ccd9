package table

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/apps"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// The tables of what a server lists, a row per item, from the results as
// the server sent them (valid JSON; a member of another type than the
// schema's shows as empty). A tool's and a prompt's arguments are listed in
// the order they are declared, the required ones marked with *; a title,
// where there is one, comes before the description.

// Tools is the table of a tools/list result, or of one tool's definition.
// When a tool carries an MCP App, or is the model's or an app's alone, an
// app column says so: the app's ui:// resource, "app only", "model only".
func Tools(result []byte) *Table {
	tools := items(result, "tools")
	marks := make([]string, len(tools))
	marked := false
	for i, tool := range tools {
		marks[i] = appMark(tool)
		marked = marked || marks[i] != ""
	}
	cols := []Column{{Title: "name"}, {Title: "arguments (* required)", Cut: true}, {Title: "description", Cut: true}}
	if marked {
		cols = slices.Insert(cols, 1, Column{Title: "app", Cut: true})
	}
	t := New(cols...)
	for i, tool := range tools {
		schema := rawjson.Member(tool, "inputSchema")
		required := map[string]bool{}
		rawjson.ForEachElement(rawjson.Member(schema, "required"), func(_ int, el []byte) {
			required[text(el)] = true
		})
		var args []string
		rawjson.ForEachValidMember(object(rawjson.Member(schema, "properties")), func(name string, _ []byte) error {
			if required[name] {
				name += "*"
			}
			args = append(args, name)
			return nil
		})
		row := []string{field(tool, "name"), strings.Join(args, ", "), described(tool)}
		if marked {
			row = slices.Insert(row, 1, marks[i])
		}
		t.Add(row...)
	}
	return t
}

// appMark is what the app column says of a tool.
func appMark(tool []byte) string {
	a, ok := apps.OfTool(tool)
	var who string
	switch {
	case !a.Visible(apps.Model) && a.Visible(apps.App):
		who = "app only"
	case a.Visible(apps.Model) && !a.Visible(apps.App):
		who = "model only"
	case !a.Visible(apps.Model):
		who = "no one"
	}
	switch {
	case ok && who != "":
		return a.ResourceURI + " (" + who + ")"
	case ok:
		return a.ResourceURI
	}
	return who
}

// Prompts is the table of a prompts/list result.
func Prompts(result []byte) *Table {
	t := New(Column{Title: "name"}, Column{Title: "arguments (* required)", Cut: true}, Column{Title: "description", Cut: true})
	for _, prompt := range items(result, "prompts") {
		var args []string
		rawjson.ForEachElement(rawjson.Member(prompt, "arguments"), func(_ int, arg []byte) {
			name := field(arg, "name")
			if string(rawjson.Member(object(arg), "required")) == "true" {
				name += "*"
			}
			args = append(args, name)
		})
		t.Add(field(prompt, "name"), strings.Join(args, ", "), described(prompt))
	}
	return t
}

// Resources is the table of a resources/list result.
func Resources(result []byte) *Table {
	t := New(Column{Title: "name"}, Column{Title: "uri"}, Column{Title: "mime type", Cut: true}, Column{Title: "description", Cut: true})
	for _, r := range items(result, "resources") {
		t.Add(field(r, "name"), field(r, "uri"), field(r, "mimeType"), described(r))
	}
	return t
}

// ResourceTemplates is the table of a resources/templates/list result.
func ResourceTemplates(result []byte) *Table {
	t := New(Column{Title: "name"}, Column{Title: "uri template"}, Column{Title: "mime type", Cut: true}, Column{Title: "description", Cut: true})
	for _, r := range items(result, "resourceTemplates") {
		t.Add(field(r, "name"), field(r, "uriTemplate"), field(r, "mimeType"), described(r))
	}
	return t
}

// Info is the table of an initialize result (or the modern era's
// discovery): a row for the protocol version, the server, its capabilities
// (each with the features it declares) and its instructions.
func Info(result []byte) *Table {
	t := New(Column{}, Column{Cut: true})
	result = object(result)
	version := field(result, "protocolVersion")
	var supported []string
	rawjson.ForEachElement(rawjson.Member(result, "supportedVersions"), func(_ int, el []byte) {
		supported = append(supported, text(el))
	})
	if len(supported) > 0 {
		version += " (supported: " + strings.Join(supported, ", ") + ")"
	}
	t.Add("protocol", version)
	info := object(rawjson.Member(result, "serverInfo"))
	server := strings.TrimSpace(field(info, "name") + " " + field(info, "version"))
	if title := field(info, "title"); title != "" {
		server += " (" + title + ")"
	}
	t.Add("server", server)
	if site := field(info, "websiteUrl"); site != "" {
		t.Add("website", site)
	}
	var caps []string
	rawjson.ForEachValidMember(object(rawjson.Member(result, "capabilities")), func(name string, value []byte) error {
		if features := declared(value); len(features) > 0 {
			name += " (" + strings.Join(features, ", ") + ")"
		}
		caps = append(caps, name)
		return nil
	})
	t.Add("capabilities", strings.Join(caps, ", "))
	if ext := extensions(result); ext != "" {
		t.Add("extensions", ext)
	}
	if instructions := field(result, "instructions"); instructions != "" {
		t.Add("instructions", instructions)
	}
	return t
}

// extensions says of each extension the server (capabilities) or mcpv
// (clientCapabilities, which mcpv info adds) declares whether both do,
// in the server's order, then mcpv's.
func extensions(result []byte) string {
	ids := func(caps []byte) []string { return declared(rawjson.Member(object(caps), "extensions")) }
	server, client := ids(rawjson.Member(result, "capabilities")), ids(rawjson.Member(result, "clientCapabilities"))
	var parts []string
	for _, id := range server {
		if slices.Contains(client, id) {
			parts = append(parts, id+" (in use)")
		} else {
			parts = append(parts, id+" (server only)")
		}
	}
	for _, id := range client {
		if !slices.Contains(server, id) {
			parts = append(parts, id+" (mcpv only)")
		}
	}
	return strings.Join(parts, ", ")
}

// declared are the names of an object's members that are neither false
// nor null: the features a capability declares, the extensions declared.
func declared(obj []byte) []string {
	var out []string
	rawjson.ForEachValidMember(object(obj), func(name string, v []byte) error {
		if string(v) != "null" && string(v) != "false" {
			out = append(out, name)
		}
		return nil
	})
	return out
}

// items are the elements of the array under key in a list result; a
// result that is itself one item (list-tools NAME) is a list of one.
func items(result []byte, key string) [][]byte {
	result = object(result)
	list := rawjson.Member(result, key)
	if list == nil && rawjson.Member(result, "name") != nil {
		return [][]byte{result}
	}
	var out [][]byte
	rawjson.ForEachElement(list, func(_ int, el []byte) { out = append(out, object(el)) })
	return out
}

// described is an item's title and description, the title first.
func described(item []byte) string {
	title := cmp.Or(field(item, "title"), field(object(rawjson.Member(item, "annotations")), "title"))
	desc := field(item, "description")
	switch {
	case title == "":
		return desc
	case desc == "" || desc == title:
		return title
	}
	return title + ": " + desc
}

// field is the string member key of an object, "" when it is missing or
// not a string.
func field(obj []byte, key string) string { return text(rawjson.Member(obj, key)) }

// text is a JSON string's value, "" for anything else.
func text(raw []byte) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	s, _ := rawjson.String(raw) // "" when it is no string
	return s
}

// object is raw when it is a JSON object, else nil, so that a member of
// another type than the schema's reads as missing.
func object(raw []byte) []byte {
	if !rawjson.IsObject(raw) {
		return nil
	}
	return raw
}
