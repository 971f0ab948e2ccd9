package mcptest

// The fixture servers of two extensions. MCP Apps
// (io.modelcontextprotocol/ui): a spec (spec.go) whose tool carries an
// app, valid or broken one way each, or none; the app's HTML is written
// against the extension's wire protocol, with no SDK. Skills: an HTTP
// server that publishes them (SkillsServer).

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// AppPage is an MCP App as a server would send one (apppage.html, a
// format of one verb): it initializes, waits for its tool's input and
// result, shows the result, then tries what a hostile app would (the host's DOM and storage, the host's API, a tool
// it may not call, one that changes things) and reports what it could
// reach by calling a tool back (record); it then reports its size, sends a
// message and asks to be torn down. With STAY (%v) true it stays after
// initializing instead; with STAY "crowd" it stays and crowds the host:
// it sends AppCrowd calls of record at once, and logs (notifications/
// message) the error the last is answered with.
//
//go:embed apppage.html
var AppPage string

// AppCrowd is how many requests the crowd variant's app sends at once:
// one more than a host page keeps in flight (apphost's
// DefaultMaxInFlight, which mcptest cannot import).
const AppCrowd = 17

// AppVariants are the fixtures AppSpec knows.
var AppVariants = []string{"valid", "stay", "crowd", "wrong-mime", "open-csp", "no-doctype", "no-resource", "none", "undeclared", "text-less"}

// AppSpec is the spec of a fixture server whose tool show carries an app
// (ui://fixture/show.html, of AppPage), broken as variant says:
//
//	valid        as the extension requires
//	stay         valid, and the app stays until it is ended
//	crowd        valid, but tools/call is never answered (show's, and
//	             the AppCrowd the app sends at once), and the app stays
//	wrong-mime   the content's mimeType is text/html
//	open-csp     its policy admits every origin (connectDomains ["*"])
//	no-doctype   its HTML is no HTML5 document
//	no-resource  the resource cannot be read
//	none         show carries no app
//	undeclared   valid, but the server does not declare the extension
//	text-less    valid, but show's result has no text for hosts without apps
//
// Beside show: record, which the app alone may call and which says
// readOnlyHint; secret_admin, the model's alone; write_note, which
// changes things.
func AppSpec(variant string) string {
	page := fmt.Sprintf(AppPage, variant == "stay")
	if variant == "crowd" {
		page = strings.Replace(fmt.Sprintf(AppPage, `"crowd"`), "<script>\n", fmt.Sprintf("<script>\nconst CROWD = %d;\n", AppCrowd), 1)
	}
	mime := "text/html;profile=mcp-app"
	csp := map[string]any{"connectDomains": []string{"https://api.test"}}
	show := map[string]any{"name": "show", "description": "Shows the weather.", "_meta": map[string]any{"ui": map[string]any{"resourceUri": "ui://fixture/show.html"}},
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}
	caps := map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/ui": map[string]any{}}}
	result := map[string]any{"content": []any{map[string]any{"type": "text", "text": "sunny"}}, "structuredContent": map[string]any{"sky": "sunny"}}
	switch variant {
	case "wrong-mime":
		mime = "text/html"
	case "open-csp":
		csp = map[string]any{"connectDomains": []string{"*"}}
	case "no-doctype":
		page = strings.Replace(page, "<!DOCTYPE html>", "", 1)
	case "none":
		delete(show, "_meta")
	case "undeclared":
		delete(caps, "extensions")
	case "text-less":
		result = map[string]any{"content": []any{}, "structuredContent": map[string]any{"sky": "sunny"}}
	}
	reads := map[string]any{"ui://fixture/show.html": map[string]any{"contents": []any{map[string]any{
		"uri": "ui://fixture/show.html", "mimeType": mime, "text": page,
		"_meta": map[string]any{"ui": map[string]any{"csp": csp, "prefersBorder": true}}}}}}
	resources := []any{map[string]any{"uri": "ui://fixture/show.html", "name": "show", "mimeType": "text/html;profile=mcp-app"}}
	if variant == "no-resource" {
		reads, resources = nil, nil
	}
	spec := map[string]any{
		"capabilities": caps,
		"tools": []any{show,
			map[string]any{"name": "record", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true},
				"_meta": map[string]any{"ui": map[string]any{"visibility": []string{"app"}}}},
			map[string]any{"name": "secret_admin", "inputSchema": map[string]any{"type": "object"}, "_meta": map[string]any{"ui": map[string]any{"visibility": []string{"model"}}}},
			map[string]any{"name": "write_note", "inputSchema": map[string]any{"type": "object"}},
		},
		"resources":   resources,
		"readResults": reads,
		"callResults": map[string]any{"show": result},
	}
	switch variant {
	case "no-resource":
		spec["errors"] = map[string]any{"resources/read": map[string]any{"code": -32002, "message": "Resource not found"}}
	case "crowd":
		spec["mute"] = []string{"tools/call"}
	}
	b, _ := json.Marshal(spec) // maps and strings alone: it cannot fail
	return string(b)
}

// The files of the pdf-processing skill a SkillsServer publishes.
const (
	SkillMD = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2.1\n---\n\nSkill body.\n"
	FormsMD = "Supporting content.\n"
)

// Digest is the skills extension's digest of s: sha256: and its hex.
func Digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// SkillsServer is a modern HTTP server with the skills extension: the
// pdf-processing skill (two files), and two skills called refunds. While
// tamper is set, FORMS.md is served with other bytes than its entry says.
func SkillsServer(t testing.TB, extension bool, tamper *atomic.Bool) *HTTPServer {
	pdf := fmt.Sprintf(`{"uri":"skill://pdf-processing/SKILL.md","frontmatter":{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","metadata":{"version":2.1}},`+
		`"resources":[{"uri":"skill://pdf-processing/SKILL.md","digest":%q,"size":%d},{"uri":"skill://pdf-processing/references/FORMS.md","digest":%q,"size":%d}]}`,
		Digest(SkillMD), len(SkillMD), Digest(FormsMD), len(FormsMD))
	refunds := func(prefix string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"uri":"skill://%s/refunds/SKILL.md","frontmatter":{"name":"refunds","description":"d"},"resources":"dynamic"}`, prefix))
	}
	read := func(uri, text string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"contents":[{"uri":%q,"mimeType":"text/markdown","text":%s}]}`, uri, mustString(text)))
	}
	spec := &Spec{Era: "modern", ServerInfo: json.RawMessage(`{"name":"f","version":"1"}`), Capabilities: json.RawMessage(`{"resources":{}}`),
		Skills: []json.RawMessage{json.RawMessage(pdf), refunds("acme/billing"), refunds("acme/support")}, PageSize: 2,
		ReadResults: map[string]json.RawMessage{"skill://pdf-processing/SKILL.md": read("skill://pdf-processing/SKILL.md", SkillMD),
			"skill://pdf-processing/references/FORMS.md": read("skill://pdf-processing/references/FORMS.md", FormsMD)}}
	if extension {
		spec.Capabilities = json.RawMessage(`{"resources":{},"extensions":{"io.modelcontextprotocol/skills":{}}}`)
	}
	return NewHTTPServer(t, HTTPOptions{Spec: spec, Post: func(x *Exchange) bool {
		uri, _ := stringMember(member(x.Body, "params"), "uri")
		if x.RPCMethod != "resources/read" || !strings.HasSuffix(uri, "FORMS.md") || !tamper.Load() {
			return false
		}
		x.Reply(x.Result(`{"resultType":"complete","contents":[{"uri":` + mustString(uri) + `,"mimeType":"text/markdown","text":"Supporting content!\n"}]}`))
		return true
	}})
}
