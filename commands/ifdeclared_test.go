package commands

import (
	"os"
	"path/filepath"
	"testing"
)

// A list of a capability the server does not declare is exit 3; with
// --if-declared, MCPV_IF_DECLARED or the entry's if_declared it is the
// empty list in the list's shape, exit 0, said on stderr, so that a loop
// over servers under set -e goes on. A declared list is untouched.
func TestListIfDeclared(t *testing.T) {
	t.Parallel()
	spec := filepath.Join(t.TempDir(), "tools.json")
	os.WriteFile(spec, []byte(`{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}`), 0o600)
	plain := fake("spec=" + spec)
	const note = "mcpv: server does not declare the \"prompts\" capability needed for prompts/list; its list is empty (--if-declared)\n"
	r := mcpv(t, "", args([]string{"list-prompts"}, plain)...)
	r.expect(t, 3, "", "", "server does not declare the \"prompts\" capability")

	r = mcpv(t, "", args([]string{"list-prompts", "--if-declared", "-c"}, plain)...)
	r.expect(t, 0, `{"prompts":[]}`+"\n", "", note)
	r = mcpv(t, "", args([]string{"list-resource-templates", "--if-declared", "-r", "-q", ".resourceTemplates | length"}, plain)...)
	r.expect(t, 0, "0\n", "", "its list is empty (--if-declared)")

	w := newWorld(t)
	w.setenv("MCPV_IF_DECLARED", "true")
	r = w.mcpv(t, "", args([]string{"list-prompts", "-c"}, plain)...)
	r.expect(t, 0, `{"prompts":[]}`+"\n", "", note)

	cfg := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(cfg, []byte(`{"mcpServers":{"p":{"command":"`+os.Args[0]+`","env":{"MCPV_FAKE":"spec=`+spec+`"},"if_declared":true}}}`), 0o600)
	r = mcpv(t, "", "--config", cfg, "-s", "p", "list-prompts", "-c")
	r.expect(t, 0, `{"prompts":[]}`+"\n", "", note)
	os.WriteFile(cfg, []byte(`{"mcpServers":{"p":{"command":"x","if_declared":"yes"}}}`), 0o600)
	r = mcpv(t, "", "--config", cfg, "-s", "p", "list-prompts")
	r.expect(t, 2, "", "", `server "p": if_declared must be true or false, not a string`)

	r = mcpv(t, "", args([]string{"list-tools", "--if-declared", "-r", "-q", ".tools | length > 0"}, plain)...)
	r.expect(t, 0, "true\n", "", "")
}
