package commands

import (
	"io"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/output"
)

// Grammar is mcpv's command-line grammar as kong models it: every command,
// flag and argument with its help, for what documents them (the man page).
func Grammar() (*kong.Application, error) {
	var c cli
	k, err := parser(&c, output.NewStreams(strings.NewReader(""), io.Discard, io.Discard), func(int) {}, nil)
	if err != nil {
		return nil, err
	}
	return k.Model, nil
}

// NoServerCommands are the commands, as a command line names them
// ("session list"), that talk to no server through the run's session
// (noServer, serverChoosing): they resolve no server for the run.
// docs/ARCHITECTURE.md names them, and architecture_test.go holds it to
// this list.
func NoServerCommands() ([]string, error) {
	app, err := Grammar()
	if err != nil {
		return nil, err
	}
	var out []string
	var visit func(n *kong.Node)
	visit = func(n *kong.Node) {
		if n.Type == kong.CommandNode && len(n.Children) == 0 {
			switch n.Target.Addr().Interface().(type) {
			case noServer, serverChoosing:
				out = append(out, n.Path())
			}
		}
		for _, c := range n.Children {
			visit(c)
		}
	}
	visit(app.Node)
	return out, nil
}
