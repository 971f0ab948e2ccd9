package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

const skillFile = "../docs/skill/mcpv/SKILL.md"

// The shipped skill is 'mcpv help agent' as this grammar makes it: a
// change to a command's help fails here until go generate writes it anew.
func TestHelpAgentSkill(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", "help", "agent")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if *update {
		if err := os.WriteFile(skillFile, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shipped, err := os.ReadFile(skillFile)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(shipped), r.stdout); d != "" {
		t.Errorf("%s is stale: run go generate ./commands (-shipped +mcpv help agent):\n%s", skillFile, d)
	}
}

// The skill is one the Agent Skills format accepts: YAML frontmatter with
// a name of lowercase letters, digits and hyphens (64 at most) that is its
// directory's, a description of 1,024 characters at most, then Markdown.
func TestAgentSkillFormat(t *testing.T) {
	t.Parallel()
	text := agentSkill()
	rest, ok := strings.CutPrefix(text, "---\n")
	front, body, ok2 := strings.Cut(rest, "\n---\n")
	if !ok || !ok2 || !strings.HasPrefix(body, "\n# ") {
		t.Fatalf("no frontmatter:\n%s", text)
	}
	doc, err := yamlnode.Parse([]byte(front), yamlnode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	name, desc := doc.Get("name"), doc.Get("description")
	if name == nil || name.Text != "mcpv" || desc == nil || len(desc.Text) == 0 || len(desc.Text) > 1024 {
		t.Fatalf("frontmatter %q", front)
	}
	if meta := doc.Get("metadata"); meta == nil || meta.Get("generated-by") == nil {
		t.Errorf("metadata is a map of strings: %q", front)
	}
	if n := strings.Count(text, "\n"); n > 500 {
		t.Errorf("SKILL.md is %d lines; the format asks for under 500", n)
	}
}

// An agent that knows only the skill's text: it runs each command the
// Quick start shows against the demo server (its "./server"), learns the
// tool names from the listing, calls only tools it listed, and counts the
// cost as the skill shows. Every command succeeds, and a call with a
// wrong argument type fails as the skill says (exit 2, nothing sent).
func TestAgentLoopFollowsTheSkill(t *testing.T) {
	testkit.SkipLong(t, "runs the demo server for each command the skill shows")
	t.Parallel()
	data, err := os.ReadFile(skillFile)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	ran := map[string]int{}
	for _, section := range []string{"## Quick start", "## What a server costs"} {
		for _, line := range shownCommands(t, string(data), section) {
			words := shellWords(t, line)
			if words[0] != "mcpv" || words[len(words)-2] != "--" || words[len(words)-1] != "./server" {
				continue // not one for a server of its own
			}
			cmd := words[1]
			if cmd == "call" && !slices.Contains(listed, words[2]) {
				t.Errorf("the skill calls %s, which the listing did not show (%q)", words[2], listed)
			}
			r := mcpv(t, "", args(words[1:len(words)-2], demo())...)
			filtered := slices.Contains(words, "-q") // a filter may select nothing
			if r.code != 0 || strings.TrimSpace(r.stdout) == "" && !filtered {
				t.Errorf("%s: exit %d, stdout %q, stderr %q", line, r.code, r.stdout, r.stderr)
			}
			if cmd == "list-tools" && slices.Contains(words, "-r") {
				listed = strings.Fields(r.stdout)
			}
			ran[cmd]++
		}
	}
	if ran["list-tools"] == 0 || ran["call"] == 0 || ran["cost"] == 0 || len(listed) == 0 {
		t.Fatalf("the skill shows too little to follow: ran %v, listed %q", ran, listed)
	}
	if r := mcpv(t, "", args([]string{"call", "add", "a=two", "b=3"}, demo())...); r.code != 2 {
		t.Errorf("a wrong argument type: exit %d, want 2 as the skill says: %s", r.code, r.stderr)
	}
}

// shownCommands are the lines of the sh blocks under heading.
func shownCommands(t *testing.T, md, heading string) []string {
	_, rest, ok := strings.Cut(md, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("the skill has no %q", heading)
	}
	rest, _, _ = strings.Cut(rest, "\n## ")
	var out []string
	in := false
	for line := range strings.SplitSeq(rest, "\n") {
		switch {
		case line == "```sh":
			in = true
		case strings.HasPrefix(line, "```"):
			in = false
		case in && line != "":
			out = append(out, line)
		}
	}
	return out
}

// mcpv help agent --install writes the skill where the agents look for
// it: the user's ~/.claude/skills and ~/.agents/skills, or with
// --project this directory's; the same skill help agent prints, said
// where as JSON. Other words are refused.
func TestHelpAgentInstall(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env.Cwd = t.TempDir()
	home := env.Home()
	skill := mcpvIn(t, env, "", "help", "agent").stdout
	for _, tt := range []struct {
		words []string
		base  string
	}{{[]string{"--install"}, home}, {[]string{"--install", "--project"}, env.Cwd}} {
		r := mcpvIn(t, env, "", append([]string{"help", "agent"}, tt.words...)...)
		var said struct{ Installed []string }
		if err := json.Unmarshal([]byte(r.stdout), &said); err != nil || r.code != 0 || len(said.Installed) != 2 {
			t.Fatalf("%q: exit %d, %s %s", tt.words, r.code, r.stdout, r.stderr)
		}
		for i, dir := range []string{".claude", ".agents"} {
			want := filepath.Join(tt.base, dir, "skills", "mcpv", "SKILL.md")
			got, err := os.ReadFile(want)
			if said.Installed[i] != want || err != nil || string(got) != skill {
				t.Errorf("%q: %s (said %s): %v", tt.words, want, said.Installed[i], err)
			}
		}
	}
	if r := mcpvIn(t, env, "", "help", "agent", "--global"); r.code != 2 {
		t.Errorf("help agent --global: exit %d, %s", r.code, r.stderr)
	}
}

// help agent --install follows no link of the directory it writes into
// (a cloned repository's, with --project): a link to a directory outside,
// to the home directory, to ~/.ssh, a link that loops or one put in the
// skill's own place is refused, nothing is written through it, and
// nothing is said written.
func TestHelpAgentInstallFollowsNoLink(t *testing.T) {
	t.Parallel()
	for name, plant := range map[string]func(repo, home, outside string) error{
		".claude to a directory outside": func(repo, _, outside string) error { return os.Symlink(outside, filepath.Join(repo, ".claude")) },
		".claude to the home directory":  func(repo, home, _ string) error { return os.Symlink(home, filepath.Join(repo, ".claude")) },
		".agents/skills/mcpv to ~/.ssh": func(repo, home, _ string) error {
			os.MkdirAll(filepath.Join(repo, ".agents", "skills"), 0o755)
			return os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(repo, ".agents", "skills", "mcpv"))
		},
		".claude/skills to the repository's parent": func(repo, _, _ string) error {
			os.Mkdir(filepath.Join(repo, ".claude"), 0o755)
			return os.Symlink("../..", filepath.Join(repo, ".claude", "skills"))
		},
		"a loop": func(repo, _, _ string) error { return os.Symlink(".claude", filepath.Join(repo, ".claude")) },
		"SKILL.md to a file outside": func(repo, _, outside string) error {
			os.MkdirAll(filepath.Join(repo, ".claude", "skills", "mcpv"), 0o755)
			return os.Symlink(filepath.Join(outside, "notes"), filepath.Join(repo, ".claude", "skills", "mcpv", "SKILL.md"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := testEnv(t)
			env.Cwd = t.TempDir()
			home, outside := env.Home(), t.TempDir()
			os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
			os.WriteFile(filepath.Join(outside, "notes"), []byte("mine"), 0o600)
			if err := plant(env.Cwd, home, outside); err != nil {
				t.Fatal(err)
			}
			r := mcpvIn(t, env, "", "help", "agent", "--install", "--project")
			if r.code == 0 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "symbolic link") || strings.Contains(r.stdout, "installed") {
				t.Errorf("exit %d, stdout %q, stderr %q; want one line refusing the link", r.code, r.stdout, r.stderr)
			}
			for _, dir := range []string{outside, home, filepath.Dir(env.Cwd)} {
				filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
					if err == nil && (d.Name() == "SKILL.md" || d.Name() == "skills") && !strings.HasPrefix(p, env.Cwd) {
						t.Errorf("written outside the repository: %s", p)
					}
					return nil
				})
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "notes")); string(b) != "mine" {
				t.Errorf("the file behind the link holds %q", b)
			}
		})
	}
}

// 'help agent --help' prints what help agent does and takes, as every
// command's --help does, and a topic's --help is the topic.
func TestHelpAgentHelp(t *testing.T) {
	t.Parallel()
	for _, words := range [][]string{{"help", "agent", "--help"}, {"help", "agent", "-h"}, {"help", "agent", "--install", "--help"}} {
		r := mcpv(t, "", words...)
		if r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: mcpv help agent [--install [--project]]") || !strings.Contains(r.stdout, "--project") || r.stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", words, r.code, r.stdout, r.stderr)
		}
	}
	if r := mcpv(t, "", "help", "exit-codes", "--help"); r.code != 0 || r.stdout != mcpv(t, "", "help", "exit-codes").stdout {
		t.Errorf("help exit-codes --help: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}

// The skill tells an agent what it needs to bound a slow tool (progress
// restarts --timeout; --max-timeout bounds it whatever it reports), where
// notifications go (--events), and that a project's config runs only once
// the user trusts it (mcpv trust).
func TestAgentSkillSays(t *testing.T) {
	t.Parallel()
	text := agentSkill()
	for _, says := range []string{"progress\nnotification the server sends for the request starts it again", "`--max-timeout`", "`--events FILE`", "`mcpv trust FILE`", "exits 124"} {
		if !strings.Contains(text, says) {
			t.Errorf("the skill does not say %q", says)
		}
	}
}

// help agent --install follows the links of the user's home (a dotfiles
// ~/.claude, leading out of the home or within it), which no one but the
// user makes there: the skill is written where they lead and said at the
// paths asked for; a link at SKILL.md itself is replaced, not written
// through.
func TestHelpAgentInstallFollowsTheHomesLinks(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	home, dotfiles := env.Home(), t.TempDir()
	agents := filepath.Join(home, "dotfiles", "agents")
	notes := filepath.Join(home, "notes")
	os.MkdirAll(filepath.Join(agents, "skills", "mcpv"), 0o755)
	os.WriteFile(notes, []byte("mine"), 0o600)
	// In this order: the last link is made through the second.
	for _, l := range [][2]string{{".claude", dotfiles}, {".agents", agents}, {".agents/skills/mcpv/SKILL.md", notes}} {
		if err := os.Symlink(l[1], filepath.Join(home, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	skill := mcpvIn(t, env, "", "help", "agent").stdout
	r := mcpvIn(t, env, "", "help", "agent", "--install")
	var said struct{ Installed []string }
	if err := json.Unmarshal([]byte(r.stdout), &said); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %s %s", r.code, r.stdout, r.stderr)
	}
	for i, dir := range []string{".claude", ".agents"} {
		if want := filepath.Join(home, dir, "skills", "mcpv", "SKILL.md"); i >= len(said.Installed) || said.Installed[i] != want {
			t.Errorf("said %q, want %s", said.Installed, want)
		}
	}
	for _, p := range []string{filepath.Join(dotfiles, "skills", "mcpv", "SKILL.md"), filepath.Join(agents, "skills", "mcpv", "SKILL.md")} {
		if got, err := os.ReadFile(p); err != nil || string(got) != skill {
			t.Errorf("%s: %v", p, err)
		}
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s is not a file of its own", p)
		}
	}
	if b, _ := os.ReadFile(notes); string(b) != "mine" {
		t.Errorf("written through the link at SKILL.md: %q", b)
	}
}
