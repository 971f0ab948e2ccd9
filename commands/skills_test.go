package commands

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// reads lists the resources/read requests the server received, in order.
func reads(srv *mcptest.HTTPServer) []string {
	var uris []string
	for _, q := range srv.Requests() {
		if q.RPCMethod == "resources/read" {
			var body struct {
				Params struct {
					URI string `json:"uri"`
				} `json:"params"`
			}
			json.Unmarshal(q.Body, &body)
			uris = append(uris, strings.TrimPrefix(body.Params.URI, "skill://pdf-processing/"))
		}
	}
	return uris
}

func TestSkills(t *testing.T) {
	t.Parallel()
	var tamper atomic.Bool
	srv := mcptest.SkillsServer(t, true, &tamper)
	run := func(a ...string) result { return mcpv(t, "", append([]string{"-u", srv.URL}, a...)...) }

	r := run("skills", "list", "-c", "-q", "[.skills[].uri]")
	if r.code != 0 || r.stdout != `["skill://pdf-processing/SKILL.md","skill://acme/billing/refunds/SKILL.md","skill://acme/support/refunds/SKILL.md"]`+"\n" {
		t.Errorf("list: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := reads(srv); len(got) != 0 {
		t.Errorf("list read %v; nothing is read ahead of need", got)
	}
	for _, name := range []string{"pdf-processing", "skill://pdf-processing/SKILL.md"} {
		r = run("skills", "get", name, "-r", "-q", ".frontmatter.description")
		if r.code != 0 || r.stdout != "Extract, fill, and assemble PDF documents\n" {
			t.Errorf("get %s: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}
	r = run("skills", "get", "refunds")
	if r.code != 3 || !strings.Contains(r.stderr, `2 skills are called "refunds": name one by its URI ("skill://acme/billing/refunds/SKILL.md", "skill://acme/support/refunds/SKILL.md")`) {
		t.Errorf("ambiguous get: exit %d, stderr %q", r.code, r.stderr)
	}
	r = run("skills", "get", "acme/support/refunds", "-r", "-q", ".uri")
	if r.code != 0 || r.stdout != "skill://acme/support/refunds/SKILL.md\n" {
		t.Errorf("get by path: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = run("skills", "get", "pdf-procesing")
	if r.code != 3 || !strings.Contains(r.stderr, `lists no skill "pdf-procesing"; did you mean "pdf-processing"?`) {
		t.Errorf("unknown get: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := reads(srv); len(got) != 0 {
		t.Errorf("get read %v", got)
	}

	r = run("skills", "read", "pdf-processing", "--text")
	if r.code != 0 || r.stdout != mcptest.SkillMD {
		t.Errorf("read: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = run("skills", "read", "pdf-processing", "references/FORMS.md", "--text")
	if r.code != 0 || r.stdout != mcptest.FormsMD {
		t.Errorf("read FORMS.md: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got, want := strings.Join(reads(srv), " "), "SKILL.md SKILL.md references/FORMS.md"; got != want {
		t.Errorf("reads %q, want %q: SKILL.md is loaded before a file of the skill", got, want)
	}
	for file, msg := range map[string]string{
		"../other/SKILL.md":    `"../other/SKILL.md" is not a plain path inside the skill's directory`,
		"scripts/unlisted.py":  "the skill lists no file scripts/unlisted.py",
		"/references/FORMS.md": `"/references/FORMS.md" is not a plain path`,
	} {
		r = run("skills", "read", "pdf-processing", file)
		if r.code != 4 || !strings.Contains(r.stderr, msg) {
			t.Errorf("read %s: exit %d, stderr %q, want %q", file, r.code, r.stderr, msg)
		}
	}

	dir := t.TempDir()
	r = run("skills", "pull", "pdf-processing", dir, "-c", "-q", "[.files[].path]")
	want := fmt.Sprintf(`[%q,%q]`, filepath.Join(dir, "pdf-processing", "SKILL.md"), filepath.Join(dir, "pdf-processing", "references", "FORMS.md"))
	if r.code != 0 || r.stdout != want+"\n" {
		t.Errorf("pull: exit %d, stdout %q, want %q, stderr %q", r.code, r.stdout, want, r.stderr)
	}
	for rel, content := range map[string]string{"SKILL.md": mcptest.SkillMD, "references/FORMS.md": mcptest.FormsMD} {
		if b, err := os.ReadFile(filepath.Join(dir, "pdf-processing", rel)); err != nil || string(b) != content {
			t.Errorf("%s: %q, %v", rel, b, err)
		}
	}
	r = run("skills", "pull", "pdf-processing", dir)
	if r.code != 3 || !strings.Contains(r.stderr, "exists; pass --force to replace it") {
		t.Errorf("pull again: exit %d, stderr %q", r.code, r.stderr)
	}
	r = run("skills", "pull", "acme/billing/refunds", dir)
	if r.code != 3 || !strings.Contains(r.stderr, "publishes dynamic content") {
		t.Errorf("pull dynamic: exit %d, stderr %q", r.code, r.stderr)
	}

	// A tampered file is not used: nothing printed, nothing written, and
	// the directory that was there is left as it was.
	tamper.Store(true)
	r = run("skills", "read", "pdf-processing", "references/FORMS.md", "--text")
	if r.code != 4 || r.stdout != "" || !strings.Contains(r.stderr, "references/FORMS.md: content digest sha256:") {
		t.Errorf("tampered read: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = run("skills", "pull", "pdf-processing", dir, "--force")
	if r.code != 4 || r.stdout != "" || !strings.Contains(r.stderr, "does not match the skill's entry") {
		t.Errorf("tampered pull: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "pdf-processing", "references", "FORMS.md")); err != nil || string(b) != mcptest.FormsMD {
		t.Errorf("FORMS.md after a refused pull: %q, %v", b, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries in %s after a refused pull, want the one skill directory", len(entries), dir)
	}
}

func TestSkillsNeedTheExtension(t *testing.T) {
	t.Parallel()
	srv := mcptest.SkillsServer(t, false, new(atomic.Bool))
	r := mcpv(t, "", "-u", srv.URL, "skills", "list")
	if r.code != 3 || !strings.Contains(r.stderr, `server does not declare the "extensions.io.modelcontextprotocol/skills" capability needed for skills/list`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, q := range srv.Requests() {
		if strings.HasPrefix(q.RPCMethod, "skills/") {
			t.Errorf("sent %s to a server without the extension", q.RPCMethod)
		}
	}
}

// A skill whose files' paths hold control characters (escapes, a newline)
// is refused before anything is read or written, the path shown escaped.
func TestSkillsPullRefusesControlCharactersInPaths(t *testing.T) {
	t.Parallel()
	evil := "skill://evil/ref\x1b]0;pwned\x07\nerences.md"
	md := "---\nname: evil\ndescription: d\n---\n"
	uri, _ := json.Marshal(evil)
	entry := fmt.Sprintf(`{"uri":"skill://evil/SKILL.md","frontmatter":{"name":"evil","description":"d"},`+
		`"resources":[{"uri":"skill://evil/SKILL.md","digest":%q,"size":%d},{"uri":%s,"digest":%q,"size":1}]}`, mcptest.Digest(md), len(md), uri, mcptest.Digest("x"))
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"resources":{},"extensions":{"io.modelcontextprotocol/skills":{}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"f","version":"1"}}}`))
		case "skills/list":
			x.Reply(x.Result(`{"resultType":"complete","ttlMs":0,"cacheScope":"public","skills":[` + entry + `]}`))
		case "resources/read":
			var body struct {
				Params struct {
					URI string `json:"uri"`
				} `json:"params"`
			}
			json.Unmarshal(x.Body, &body)
			text, _ := json.Marshal(map[string]string{"skill://evil/SKILL.md": md, evil: "x"}[body.Params.URI])
			u, _ := json.Marshal(body.Params.URI)
			x.Reply(x.Result(fmt.Sprintf(`{"resultType":"complete","contents":[{"uri":%s,"text":%s}]}`, u, text)))
		default:
			return false
		}
		return true
	}})
	dir := t.TempDir()
	r := mcpv(t, "", "-u", srv.URL, "skills", "pull", "evil", dir)
	if r.code != 4 || !strings.Contains(r.stderr, `"ref\x1b]0;pwned\a\nerences.md"`) || strings.ContainsAny(r.stderr, "\x1b\x07") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%d entries written to %s", len(entries), dir)
	}
	if got := reads(srv); len(got) != 0 {
		t.Errorf("read %q before refusing (stderr %q)", got, r.stderr)
	}
}

// A skills list whose every page names a new cursor and nothing else is
// endless, and its walk stops, as every list's does.
func TestSkillsListEnds(t *testing.T) {
	t.Parallel()
	var pages atomic.Int64
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"extensions":{"io.modelcontextprotocol/skills":{}}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"f","version":"1"}}}`))
		case "skills/list":
			next := ""
			if n := pages.Add(1); n < 1500 { // ends after all, so that a walk with no cap fails the test rather than hangs
				next = fmt.Sprintf(`,"nextCursor":"c%d"`, n)
			}
			x.Reply(x.Result(`{"resultType":"complete","ttlMs":0,"cacheScope":"public","skills":[]` + next + `}`))
		default:
			return false
		}
		return true
	}})
	r := mcpv(t, "", "-u", srv.URL, "skills", "list")
	want := "mcpv: skills/list: pages 1 to 1000 bring nothing new, though each has a new nextCursor, so the list never ends (--max-pages N takes N pages, keeping nextCursor)\n"
	if r.code != 4 || r.stderr != want {
		t.Errorf("exit %d, stderr %q; want exit 4, %q", r.code, r.stderr, want)
	}
	if n := pages.Load(); n != 1000 {
		t.Errorf("the server was asked for %d pages, want 1000", n)
	}
}
