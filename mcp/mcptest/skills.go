package mcptest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

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
