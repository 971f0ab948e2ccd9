package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/manpage"
	"github.com/mcpv/mcpv/internal/safetext"
)

// 'mcpv help TOPIC' explains what users look up most, as gh's help does;
// mcpv --help names every topic.
func TestHelpTopics(t *testing.T) {
	t.Parallel()
	top := mcpv(t, "", "--help").stdout
	for _, topic := range helpTopics {
		r := mcpv(t, "", "help", topic)
		if r.code != 0 || r.stderr != "" || r.stdout == "" || !strings.HasSuffix(r.stdout, "\n") {
			t.Errorf("help %s: exit %d, stderr %q, stdout %q", topic, r.code, r.stderr, r.stdout)
		}
		if !strings.Contains(top, topic) {
			t.Errorf("mcpv --help does not name the topic %s", topic)
		}
	}

	r := mcpv(t, "", "help", "exit-codes")
	_, table, _ := strings.Cut(new(cli).Help(), "\nExit codes:\n")
	table, _, _ = strings.Cut(table, "\n\nExamples:")
	if !strings.HasPrefix(r.stdout, "Exit codes:\n") || !strings.Contains(r.stdout, "\n    124  a timeout expired") || r.stdout != "Exit codes:\n"+table+"\n" {
		t.Errorf("help exit-codes is not the manual's table:\n%s", r.stdout)
	}

	r = mcpv(t, "", "help", "environment")
	for _, v := range manpage.Vars {
		if !strings.Contains(r.stdout, "\n    "+v.Name+" ") {
			t.Errorf("help environment does not list %s:\n%s", v.Name, r.stdout)
		}
	}

	r = mcpv(t, "", "help", "exit-codes", "extra")
	if r.code != exitcode.Usage {
		t.Errorf("help exit-codes extra: exit %d, stderr %q", r.code, r.stderr)
	}
}

// 'mcpv help config-files' shows the places this run looks in, in order,
// marks the files that exist, and names the state directory.
func TestHelpConfigFiles(t *testing.T) {
	t.Parallel()
	config, state := t.TempDir(), t.TempDir()
	catalog := filepath.Join(config, "mcpv", "servers.yaml")
	if err := os.MkdirAll(filepath.Dir(catalog), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(catalog, []byte("servers: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(t.TempDir(), "mine.json")
	env := with(testEnv(t), "XDG_CONFIG_HOME="+config, "XDG_STATE_HOME="+state, "MCPV_CONFIG="+mine)
	r := mcpvIn(t, env, "", "help", "config-files")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	at := func(path string) int {
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), path+" ") {
				return i
			}
		}
		t.Errorf("no line for %s:\n%s", path, r.stdout)
		return -1
	}
	fromEnv, project, yaml, yml := at(mine), at(filepath.Join(env.Cwd, ".mcp.json")), at(catalog), at(strings.TrimSuffix(catalog, ".yaml")+".yml")
	if !(fromEnv < project && project < yaml && yaml < yml) {
		t.Errorf("the places are out of order (MCPV_CONFIG %d, project %d, catalog %d, %d):\n%s", fromEnv, project, yaml, yml, r.stdout)
	}
	if yaml >= 0 && !strings.HasSuffix(lines[yaml], "mcpv catalog, found") {
		t.Errorf("the catalog that exists is not marked found: %q", lines[yaml])
	}
	if yml >= 0 && strings.Contains(lines[yml], "found") {
		t.Errorf("a catalog that does not exist is marked found: %q", lines[yml])
	}
	if !strings.Contains(r.stdout, "\n    "+filepath.Join(state, "mcpv")+"\n") {
		t.Errorf("the state directory %s is not shown:\n%s", filepath.Join(state, "mcpv"), r.stdout)
	}
}

// What a command's help leaves out is a topic of its own, which that help
// names; its lines fit the width of help, and no topic is called as a
// command is (mcpv help NAME would be the command's).
func TestDetailTopics(t *testing.T) {
	t.Parallel()
	goldens, _ := filepath.Glob(filepath.Join("testdata", "help", "*.txt"))
	var helps strings.Builder
	for _, f := range goldens {
		b, _ := os.ReadFile(f)
		helps.Write(b)
	}
	for name := range detailTopics {
		if _, err := os.Stat(filepath.Join("testdata", "help", name+".txt")); err == nil {
			t.Errorf("topic %s is called as a command is", name)
		}
		r := mcpv(t, "", "help", name)
		if r.code != 0 || r.stderr != "" || r.stdout == "" {
			t.Errorf("help %s: exit %d, stderr %q", name, r.code, r.stderr)
		}
		for i, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
			if n := safetext.Width(l); n > helpWidth {
				t.Errorf("help %s, line %d: %d columns: %s", name, i+1, n, l)
			}
		}
		if !strings.Contains(strings.Join(strings.Fields(helps.String()), " "), "'mcpv help "+name+"'") {
			t.Errorf("no command's help names 'mcpv help %s'", name)
		}
	}
}

// wrap fits lines by what a terminal shows: a wide character takes two
// columns (not its three bytes, nor one rune).
func TestWrapCountsColumns(t *testing.T) {
	if got := wrap(9, "日本", "日本", "日本"); got != "日本 日本\n日本\n" { // 4 + 1 + 4 columns fit 9; 13 bytes would not
		t.Errorf("wrap = %q", got)
	}
	if got := wrap(8, "日本", "日本"); got != "日本\n日本\n" { // 9 columns, though 5 runes
		t.Errorf("wrap = %q", got)
	}
	if got := wrap(10, "abc", "def", "gh"); got != "abc def gh\n" {
		t.Errorf("wrap of narrow words = %q", got)
	}
}
