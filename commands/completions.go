package commands

import (
	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/completion"
)

type completionsCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish,powershell" help:"The shell: bash, zsh, fish or powershell."`
}

func (c *completionsCmd) Help() string {
	return `Prints a completion script for commands, subcommands, flags and their values: enum values, files, directories, and server names from config files (by running mcpv servers). After -- it completes the server's command line. The scripts in the repository's completions/ directory are the same.

Examples:

    $ source <(mcpv completions bash)
    $ mcpv completions zsh > "${fpath[1]}/_mcpv"
    $ mcpv completions fish > ~/.config/fish/completions/mcpv.fish
    PS> mcpv completions powershell | Out-String | Invoke-Expression`
}

func (c *completionsCmd) noServer() {}

func (c *completionsCmd) Run(kctx *kong.Context, out *console) error {
	script, err := completion.Script(kctx.Model, c.Shell)
	if err != nil {
		return usageError(err)
	}
	return out.write(script)
}
