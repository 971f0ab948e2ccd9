package config

import (
	"path/filepath"
	"strings"
	"testing"
)

// mcpv's own files hold nothing but servers: a key it does not read at
// their top is a mistake with its place and the key meant. Once, a catalog
// with its servers written at the top was read as empty without a word.
func TestOwnFilesRefuseUnknownTopLevelKeys(t *testing.T) {
	cases := []struct {
		name, file, content, want string
	}{
		{"servers at the top", "servers.yaml", "notes:\n  command: notes-server\n",
			`:1:1: unknown key "notes" at the top of the file (servers go under "servers"; keys starting with x- are left alone)`},
		{"misspelt", "servers.yaml", "# mine\nsevrers:\n  notes: {command: x}\n",
			`:2:1: unknown key "sevrers" at the top of the file; did you mean "servers"?`},
		{"beside servers", "servers.yml", "servers:\n  a: {command: x}\nmcpservers: {}\n",
			`:3:1: unknown key "mcpservers" at the top of the file; did you mean "mcpServers"?`},
		{"JSON catalog", "servers.json", "{\"servers\": {},\n  \"servres\": {\"a\": {\"command\": \"x\"}}}",
			`:2:3: unknown key "servres" at the top of the file; did you mean "servers"?`},
		{"JSON catalog not an object", "servers.json", `[1]`, `:1:1: want an object with "servers", found an array`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			path := filepath.Join(w.home, ".config", "mcpv", c.file)
			put(t, path, c.content)
			_, _, err := Find(w.env("linux"), "notes")
			if err == nil || !strings.HasPrefix(err.Error(), path+":") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got  %v\nwant %s%s", err, path, c.want)
			}
		})
	}

	// A YAML file named by --config is in mcpv's format too.
	w := newWorld(t)
	put(t, filepath.Join(w.project, "mine.yaml"), "servers: {}\nnotes: {command: x}\n")
	env := w.env("linux")
	env.Flag = "mine.yaml"
	if _, _, err := Find(env, "notes"); err == nil || !strings.Contains(err.Error(), `mine.yaml:2:1: unknown key "notes"`) {
		t.Errorf("--config mine.yaml: got %v", err)
	}
}

// Keys starting with x- are a place for YAML anchors; other programs'
// files, and a JSON file given to --config (which may be theirs), are read
// for their servers whatever else they hold.
func TestTopLevelKeysLeftAlone(t *testing.T) {
	w := newWorld(t)
	put(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"),
		"x-env: &env {A: b}\nservers:\n  catalog: {command: c, env: *env}\n  <<: {}\n")
	put(t, filepath.Join(w.project, ".vscode", "mcp.json"), `{"inputs": [], "servers": {"vscode": {"command": "v"}}}`)
	put(t, filepath.Join(w.home, ".cursor", "mcp.json"), `{"notes": 1, "mcpServers": {"cursor": {"command": "u"}}}`)
	put(t, filepath.Join(w.project, "theirs.json"), `{"globalShortcut": "", "mcpServers": {"flag": {"command": "f"}}}`)
	env := w.env("linux")
	env.Flag = "theirs.json"
	for _, name := range []string{"catalog", "vscode", "cursor", "flag"} {
		s, skipped, err := Find(env, name)
		if err != nil || len(skipped) > 0 || s == nil {
			t.Errorf("%s: %v, skipped %v, %v", name, s, skipped, err)
		}
	}
}
