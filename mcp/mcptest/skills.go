package mcptest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpv/mcpv/internal/rawjson"
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
	refunds := func(prefix string) string {
		return fmt.Sprintf(`{"uri":"skill://%s/refunds/SKILL.md","frontmatter":{"name":"refunds","description":"d"},"resources":"dynamic"}`, prefix)
	}
	caps := `{"resources":{}}`
	if extension {
		caps = `{"resources":{},"extensions":{"io.modelcontextprotocol/skills":{}}}`
	}
	return NewHTTPServer(t, HTTPOptions{Stateless: true, Post: func(x *Exchange) bool {
		var p struct {
			URI    string `json:"uri"`
			Cursor string `json:"cursor"`
		}
		var body struct {
			Params json.RawMessage `json:"params"`
		}
		rawjson.DecodeLoose(x.Body, &body)
		rawjson.DecodeLoose(body.Params, &p)
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":` + caps + `,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"f","version":"1"}}}`))
		case "skills/list":
			if p.Cursor == "" {
				x.Reply(x.Result(`{"resultType":"complete","ttlMs":0,"cacheScope":"public","skills":[` + pdf + `,` + refunds("acme/billing") + `],"nextCursor":"2"}`))
			} else {
				x.Reply(x.Result(`{"resultType":"complete","ttlMs":0,"cacheScope":"public","skills":[` + refunds("acme/support") + `]}`))
			}
		case "skills/get":
			if p.URI != "skill://pdf-processing/SKILL.md" {
				x.Reply(x.Error(-32602, "no such skill"))
			} else {
				x.Reply(x.Result(`{"resultType":"complete","ttlMs":0,"cacheScope":"public","skill":` + pdf + `}`))
			}
		case "resources/read":
			text := map[string]string{"skill://pdf-processing/SKILL.md": SkillMD, "skill://pdf-processing/references/FORMS.md": FormsMD}[p.URI]
			if tamper.Load() && strings.HasSuffix(p.URI, "FORMS.md") {
				text = "Supporting content!\n"
			}
			x.Reply(x.Result(fmt.Sprintf(`{"resultType":"complete","contents":[{"uri":%q,"mimeType":"text/markdown","text":%s}]}`,
				p.URI, mustString(text))))
		default:
			return false
		}
		return true
	}})
}
