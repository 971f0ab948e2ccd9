package commands

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// The extensions are negotiated: info shows what each side declares; an
// extension turned off (--no-extension, or the config entry's
// extensions: {NAME: false}) is not declared, and what needs it is
// refused with exit 3 before anything is sent; a name mcpv does not
// speak is a mistake (exit 2), in a flag or in a file.
func TestExtensionsNegotiated(t *testing.T) {
	t.Parallel()
	srv := mcptest.SkillsServer(t, true, nil) // of the 2026-07-28 era: tasks are an extension there
	w := newCfgWorld(t)
	run := func(a ...string) result { return w.mcpv(t, "", append([]string{"-u", srv.URL}, a...)...) }

	r := run("info", "-c", "-q", "[(.capabilities.extensions | keys), (.clientCapabilities.extensions | keys)]")
	if r.code != 0 || !strings.Contains(r.stdout, `"io.modelcontextprotocol/skills"`) ||
		!strings.Contains(r.stdout, `["io.modelcontextprotocol/skills","io.modelcontextprotocol/tasks","io.modelcontextprotocol/ui"]]`) {
		t.Errorf("info: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = run("--no-extension", "skills", "info", "-c", "-q", ".clientCapabilities.extensions | keys")
	if r.code != 0 || r.stdout != `["io.modelcontextprotocol/tasks","io.modelcontextprotocol/ui"]`+"\n" {
		t.Errorf("info --no-extension skills: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = run("--no-extension", "io.modelcontextprotocol/skills", "skills", "list")
	if r.code != 3 || !strings.Contains(r.stderr, "the io.modelcontextprotocol/skills extension is turned off for this session, and skills/list needs it (--no-extension") {
		t.Errorf("skills list, turned off: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, q := range srv.Requests() {
		if q.RPCMethod == "skills/list" {
			t.Errorf("skills/list was sent though the extension was turned off")
		}
	}
	r = run("--no-extension", "apps", "info")
	if r.code != 2 || !strings.Contains(r.stderr, "--no-extension apps: mcpv speaks no such extension (it speaks skills (io.modelcontextprotocol/skills)") {
		t.Errorf("an unknown extension: exit %d, stderr %q", r.code, r.stderr)
	}

	conf := w.write(t, filepath.Join(w.root, "mine.json"), `{"mcpServers": {"skills": {"url": `+q(srv.URL)+`, "extensions": {"skills": false, "ui": true}}}}`)
	r = w.mcpv(t, "", "--config", conf, "skills", "list", "-s", "skills")
	if r.code != 3 || !strings.Contains(r.stderr, "turned off") {
		t.Errorf("skills list, turned off in the file: exit %d, stderr %q", r.code, r.stderr)
	}
	bad := w.write(t, filepath.Join(w.root, "bad.json"), `{"mcpServers": {"skills": {"url": `+q(srv.URL)+`, "extensions": {"apps": false}}}}`)
	r = w.mcpv(t, "", "--config", bad, "info", "-s", "skills")
	if r.code != 2 || !strings.Contains(r.stderr, `server "skills": extensions: mcpv speaks no extension "apps"`) {
		t.Errorf("an unknown extension in the file: exit %d, stderr %q", r.code, r.stderr)
	}
	worse := w.write(t, filepath.Join(w.root, "worse.json"), `{"mcpServers": {"skills": {"url": `+q(srv.URL)+`, "extensions": {"ui": "off"}}}}`)
	r = w.mcpv(t, "", "--config", worse, "info", "-s", "skills")
	if r.code != 2 || !strings.Contains(r.stderr, "extensions.ui must be a boolean") {
		t.Errorf("a string for a boolean: exit %d, stderr %q", r.code, r.stderr)
	}
}
