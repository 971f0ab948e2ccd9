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
