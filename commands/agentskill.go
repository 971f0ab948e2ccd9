package commands

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
)

// The agent skill, 'mcpv help agent': a SKILL.md in the Agent Skills
// format (agentskills.io: YAML frontmatter with a name and a description,
// then Markdown) that teaches a coding agent the few commands it needs.
// Its commands are the Examples of the commands' own help, its tables the
// help's, so that it cannot drift from them: docs/skill/mcpv/SKILL.md is
// this text, which TestAgentSkillIsFresh holds it to and go generate
// rewrites, and the release archives carry it.

// agentSkillDescription is the frontmatter's description: what the skill
// does and when to use it (1,024 characters at most).
const agentSkillDescription = "Talk to any Model Context Protocol (MCP) server from the shell with mcpv: list and call its tools with typed arguments, read its resources and prompts, keep one session open for many calls, filter the JSON with --jq, tell failures apart by exit code, and count what a server's tools cost in tokens. Use when a task needs an MCP server's tools and no native MCP connection to it, or to inspect, test or measure a server."

// agentSkill is the SKILL.md.
func agentSkill() string {
	var b strings.Builder
	// examples are the "$ " lines of cmd's help's Examples, without the
	// "$ ", those keep keeps (nil: all).
	examples := func(cmd interface{ Help() string }, keep func(string) bool) string {
		_, ex, ok := strings.Cut("\n"+cmd.Help(), "\nExamples:\n")
		if !ok {
			panic(fmt.Sprintf("agent skill: %T's help has no Examples", cmd))
		}
		var lines []string
		for l := range strings.Lines(ex) {
			if cmd, ok := strings.CutPrefix(strings.TrimSpace(l), "$ "); ok && (keep == nil || keep(cmd)) {
				lines = append(lines, cmd)
			}
		}
		return strings.Join(lines, "\n") + "\n"
	}
	onServer := func(cmd string) bool {
		return strings.HasSuffix(cmd, " -- ./server") && !strings.Contains(cmd, "|") && !strings.Contains(cmd, " -o ")
	}
	fmt.Fprintf(&b, "---\nname: mcpv\ndescription: %q\nlicense: MIT\ncompatibility: Needs the mcpv binary on PATH (Linux, macOS or Windows).\nmetadata:\n  generated-by: mcpv help agent\n---\n\n", agentSkillDescription)
	b.WriteString(`# mcpv: MCP servers from the shell

mcpv runs one operation on one MCP server and prints the answer as JSON on stdout; diagnostics
go to stderr, and the exit code says what happened. Name the server after the command: a local
program after ` + "`--`" + ` (started and stopped by mcpv), a URL with ` + "`--url`" + `, or a configured server
with ` + "`--server NAME`" + ` (` + "`mcpv servers`" + ` lists them).

## Quick start

List the tools (by name and first line with ` + "`--names`" + `), read one tool's arguments (` + "`call TOOL --help`" + `
with the server prints them as a usage block, from its input schema), call it, and keep only what
you need of the answer (replace ` + "`./server`" + ` with the server's command):

`)
	b.WriteString("```sh\n" + examples(new(listToolsCmd), onServer) + examples(new(callCmd), onServer) + "```\n")
	b.WriteString(`
` + "`key=value`" + ` arguments are typed by the tool's input schema (` + "`n=3`" + ` is sent as a number when the
schema says number, as a string when it says string); ` + "`key:=JSON`" + ` is raw JSON; ` + "`--args @file.json`" + `
gives them all at once. Arguments are checked before anything is sent: a mistake exits 2 and
says which argument and why. ` + "`mcpv help arguments`" + ` has the rules.

## Resources, prompts, completions

` + "`mcpv --help`" + ` lists every command; these read what a server offers besides tools:

`)
	b.WriteString("```sh\n" + examples(new(listResourcesCmd), onServer) + examples(new(readCmd), onServer) + examples(new(getPromptCmd), onServer) + examples(new(completeCmd), onServer) + "```\n")
	b.WriteString(`
## Many calls: keep a session

Each command starts the server anew. For many calls, start a session once and name it:

` + "```sh\n" + examples(new(sessionCmd), nil) + "```\n" + `
## Slow tools: time limits, progress, events

` + "`--timeout`" + ` (default 10m) bounds how long mcpv waits for an answer, but every progress
notification the server sends for the request starts it again: a tool that reports progress
every few seconds runs past ` + "`--timeout 3s`" + `. ` + "`--max-timeout`" + ` (default 1h, 0 for none) bounds the
request however much progress it reports, so bound a slow tool with both. At either bound the
request is cancelled on the server and mcpv exits 124. ` + "`--events FILE`" + ` writes every notification
the server sends (progress, logs, list changes) to FILE, one JSON object a line, to read while
or after it runs; stderr shows progress only on a terminal.

` + "```sh\n" + `mcpv --timeout 30s --max-timeout 2m call add a=2 b=3 -- ./server
mcpv --events events.ndjson call add a=2 b=3 -- ./server
` + "```\n" + `
## Filtering

` + "`-q EXPR`" + ` (` + "`--jq`" + `) filters the result with jq, ` + "`-r`" + ` prints strings raw, ` + "`-e`" + ` exits 1 when the last output
is false or null. Prefer ` + "`-r -q`" + ` to piping into another tool: the numbers stay exact.

## Exit codes

Read the exit code before the output; stderr says why in one line (` + "`--errors json`" + ` makes it one
JSON object with ` + "`exit`, `kind`, `message`, `hint`" + ` and the server's JSON-RPC error, and every other
line of stderr an object too: ` + "`{\"note\": ...}`, `{\"warning\": ...}`" + `). Without it, a local server's own stderr lines
may come before mcpv's; with it they are kept out, and a failed server's last lines are in ` + "`message`" + `.

` + "```\n" + exitCodesHelp() + "\n```\n" + `
## Which server has it

` + "`mcpv search WORDS`" + ` asks every configured server at once and ranks their tools, prompts and resources;
each hit carries the command that uses it (a tool's ` + "`call ... --help`" + ` first):

`)
	b.WriteString("```sh\n" + examples(new(searchCmd), nil) + "```\n")
	b.WriteString(`
## What a server costs

Every tool is sent to the model with every request. ` + "`mcpv cost`" + ` counts each one's tokens:

`)
	b.WriteString("```sh\n" + examples(new(costCmd), nil) + "```\n")
	b.WriteString(`
## Traps

- Never put a secret on the command line: other users can read a process's arguments. Give a
  header from a file (` + "`-H @headers.txt`" + `), a variable the config file expands (` + "`${API_KEY}`" + `), or log
  in with OAuth (` + "`mcpv auth login --url URL`" + `). mcpv masks the secrets it knows in all it prints.
- Exit 5 with a sign-in link means a login is needed: mcpv never waits for a browser without a
  terminal. Give the link (and the code, when it gives one: a device login) to the user (never
  open it yourself), then run the ` + "`mcpv auth wait`" + ` command the message names: it returns once
  they have signed in, and the command can run again.
- Exit 7 is a pin refusing a server that changed since the user approved it: nothing was sent.
  Do not retry or work around it; show the user the lines under the message (what moved) and
  let them decide (` + "`mcpv pin --check`" + `, ` + "`mcpv diff`" + `).
- A server from a project's config file (` + "`.mcp.json`, `.vscode/mcp.json`" + `, any file in the repository)
  starts only once the user trusts the file: until then mcpv exits 2 saying it is not trusted
  and naming the ` + "`mcpv trust FILE`" + ` to run. Trusting lets the file run its commands: show the user
  the file (` + "`mcpv servers`" + ` shows what each entry runs) and let them run it; do not trust it yourself.
- Exit 1 with a result on stdout is the tool's own error (` + "`isError`" + `): read its text, fix the call.
- stdin is read only when asked (` + "`--args -`" + `): a command never waits on it by surprise.
- ` + "`mcpv help COMMAND`" + ` is the reference; ` + "`mcpv help flags`" + ` lists every global flag.
`)
	return b.String()
}

// agentHelp is 'mcpv help agent --help'.
const agentHelp = `Usage: mcpv help agent [--install [--project]]

Prints mcpv's agent skill: a SKILL.md (the Agent Skills format) that teaches a
coding agent the commands it needs, their exit codes and their traps. It is
made from this mcpv's own help, so it says what this version does.

Flags:
  -h, --help     Show this help.
  --install      Write the skill where agents look for it instead:
                 ~/.claude/skills/mcpv/SKILL.md and ~/.agents/skills/mcpv/SKILL.md;
                 print where, as JSON.
  --project      With --install: write it under the current directory
                 (.claude/skills, .agents/skills), for its project.

Examples:

    $ mcpv help agent
    $ mcpv help agent --install
    $ mcpv help agent --install --project
`

// installSkill is 'mcpv help agent --install [--project]': the skill
// written where the agents look for it, for the user (~/.claude/skills,
// read by Claude Code, and ~/.agents/skills, by Codex and the agents of
// the open skills standard) or, with --project, for this directory's
// project (.claude/skills, .agents/skills), through no symbolic link out
// of it; it says where, as JSON.
func installSkill(words []string, env connect.Env) (string, error) {
	if i := slices.IndexFunc(words, func(w string) bool { return w != "--install" && w != "--project" }); i >= 0 {
		return "", usageErrorf("help agent takes --install and --project, not %q", safetext.Line(words[i]))
	}
	project := slices.Contains(words, "--project")
	if !slices.Contains(words, "--install") {
		return "", usageErrorf("help agent --project: add --install")
	}
	skill := agentSkill()
	base := env.Home()
	if project {
		base = env.Cwd
	}
	if base == "" {
		return "", errors.New("help agent --install: no home directory (HOME)")
	}
	var written []string
	for _, dir := range []string{".claude", ".agents"} {
		rel := filepath.Join(dir, "skills", "mcpv", "SKILL.md")
		path := filepath.Join(base, rel)
		var err error
		if project { // a repository's links: none followed out of it
			err = safefile.Tree{Dir: base}.WriteFile(rel, []byte(skill))
		} else if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			// The home's links are the user's own (a dotfiles ~/.claude):
			// followed, as the shell follows them, but for SKILL.md itself,
			// replaced rather than written through.
			err = safefile.Replace(path, []byte(skill))
		}
		if err != nil {
			return "", fmt.Errorf("help agent --install: %w", err)
		}
		written = append(written, path)
	}
	return string(rawjson.MustMarshal(map[string]any{"installed": written})) + "\n", nil
}
