package commands

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/manpage"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/trust"
)

// helpTopics are what 'mcpv help TOPIC' explains besides the commands, as
// gh's help does: what users look up most, each taken from where the code
// keeps it (the grammar's global flags, the exit codes of the manual,
// internal/manpage (envdoc.go), the config lookup of this very run).
var helpTopics = []string{"flags", "exit-codes", "environment", "config-files", "agent"}

// detailTopics are what a command's help leaves to a topic of its own, so
// that the help keeps to a screen: each kept beside its command, which
// names it, as paragraphs that wrapText fits to the width of help.
var detailTopics = map[string]func() string{
	"arguments":    func() string { return argumentsTopic },
	"test-files":   func() string { return testfile.Reference },
	"serving":      func() string { return servingTopic },
	"gateway":      func() string { return gatewayTopic },
	"mock-files":   func() string { return mockFilesTopic },
	"load-model":   func() string { return loadTopic },
	"pins":         func() string { return pinsTopic },
	"audit-rules":  func() string { return auditRulesTopic },
	"check-runs":   func() string { return checkRunsTopic },
	"mcp-apps":     func() string { return appsTopic },
	"server-cards": func() string { return serverCardsTopic },
	"cost-limits":  func() string { return costLimitsTopic },
}

// helpTopic is the text of the topic called name, if there is one.
func helpTopic(name string, env connect.Env) (string, bool, error) {
	var text string
	var err error
	switch name {
	case "flags":
		text, err = flagsHelp()
	case "exit-codes":
		text = exitCodesHelp()
	case "environment":
		text = environmentHelp()
	case "config-files":
		text = configFilesHelp(env)
	case "agent":
		text = agentSkill()
	default:
		detail, ok := detailTopics[name]
		if !ok {
			return "", false, nil
		}
		text = wrapText(detail(), helpWidth)
	}
	if err != nil {
		return "", true, err
	}
	return strings.TrimRight(text, "\n") + "\n", true, nil
}

// wrapText fits paragraphs (separated by blank lines) to width, as
// kong wraps a command's help; an indented line (an example, a table) is
// kept as it is.
func wrapText(text string, width int) string {
	var b strings.Builder
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		if strings.HasPrefix(para, " ") {
			b.WriteString(para + "\n")
			continue
		}
		b.WriteString(wrap(width, strings.Fields(para)...))
	}
	return b.String()
}

// ManTopics are the detail topics for the manual's TOPICS section, by
// name.
func ManTopics() []manpage.Entry {
	var out []manpage.Entry
	for _, name := range slices.Sorted(maps.Keys(detailTopics)) {
		out = append(out, manpage.Entry{Name: "mcpv help " + name, Help: detailTopics[name]()})
	}
	return out
}

// allTopics are the topics' names: helpTopics, then detailTopics'.
func allTopics() []string {
	return append(slices.Clone(helpTopics), slices.Sorted(maps.Keys(detailTopics))...)
}

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
