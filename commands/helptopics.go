package commands

import (
	"fmt"
	"os"
	"strings"

	"github.com/mcpv/mcpv/config"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/trust"
)

// helpTopics are what 'mcpv help TOPIC' explains besides the commands, as
// gh's help does: what users look up most, each taken from where the code
// keeps it (the grammar's global flags, the exit codes of the manual,
// internal/envdoc, the config lookup of this very run).
var helpTopics = []string{"flags", "exit-codes", "environment", "config-files"}

// helpTopic is the text of the topic called name, if there is one.
func helpTopic(name string, env connect.Env) (string, bool, error) {
	var text string
	switch name {
	case "flags":
		var err error
		if text, err = flagsHelp(); err != nil {
			return "", true, err
		}
	case "exit-codes":
		text = exitCodesHelp()
	case "environment":
		text = environmentHelp()
	case "config-files":
		text = configFilesHelp(env)
	default:
		return "", false, nil
	}
	return strings.TrimRight(text, "\n") + "\n", true, nil
}

// helpTopicList is the line of the manual's synopsis that names the topics.
func helpTopicList() string { return "mcpv help " + strings.Join(helpTopics, "|") }

// exitCodesHelp is the manual's exit-code table.
func exitCodesHelp() string {
	_, table, _ := strings.Cut(new(cli).Help(), "\nExit codes:\n")
	table, _, _ = strings.Cut(table, "\n\nExamples:")
	return "Exit codes:\n" + table
}

// configFilesHelp lists the places this run would look for servers, in
// order, and where it keeps its state.
func configFilesHelp(env connect.Env) string {
	var b strings.Builder
	b.WriteString(`Config files: --server NAME takes the first server called NAME in these files,
in this order ('mcpv servers' lists what they name). On this system:
`)
	sources := config.Sources(env.Config(""))
	width := 0
	for _, s := range sources {
		width = max(width, len(s.Path))
	}
	fmt.Fprintf(&b, "\n    %-*s  %s", width, "--config FILE", "first, when given")
	if env.Getenv("MCPV_CONFIG") == "" {
		fmt.Fprintf(&b, "\n    %-*s  %s", width, "$MCPV_CONFIG", "then this variable's file (not set)")
	}
	for _, s := range sources {
		label := s.Label
		if info, err := os.Stat(s.Path); err == nil && info.Mode().IsRegular() {
			label += ", found"
		}
		fmt.Fprintf(&b, "\n    %-*s  %s", width, s.Path, label)
	}
	state := trust.StateDir(env.Getenv, env.Home(), env.GOOS)
	sockets, _ := env.SessionDir()
	fmt.Fprintf(&b, `

Each file holds servers by name, under mcpServers (Claude, Cursor) or servers
(VS Code, the mcpv catalog, which is YAML or JSON): command, args, env and cwd
for a stdio server, url and headers for an HTTP one. ${VAR}, ${env:VAR} and
${VAR:-default} expand from the environment. A stdio server from a project
file (or any file under the current repository) starts only after
'mcpv trust FILE'.

The state directory, which must be yours alone, holds trusted files
(trusted/), OAuth tokens (oauth/), session logs (sessions/) and kept HTTP
sessions (http-sessions/):

    %s

Session sockets:

    %s
`, state, sockets)
	return b.String()
}
