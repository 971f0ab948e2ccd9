package commands

import (
	"os"
	"path/filepath"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/trust"
)

type trustCmd struct {
	Files  []string `arg:"" optional:"" placeholder:"FILE" help:"The config files or test files (default: the project's .mcp.json, .vscode/mcp.json and .cursor/mcp.json)."`
	Revoke bool     `name:"revoke" help:"Forget the trust instead."`
}

func (c *trustCmd) Help() string {
	return `A stdio server from a project file (./.mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json, or any file under the current repository) starts only once its file is trusted. Trust is given to the file's content as it is now: after any change, mcpv refuses again until it is trusted again. Read the file before you trust it; 'mcpv servers' shows what each entry would run. A test file that mcpv test finds by itself (NAME.mcpv.yaml, or a .yaml file in mcpv-tests/) runs only once trusted in the same way.

Trust is kept in trusted/ under the state directory (on Linux $XDG_STATE_HOME/mcpv, default ~/.local/state/mcpv; on macOS ~/Library/Application Support/mcpv; on Windows %LOCALAPPDATA%\mcpv; 'mcpv help config-files' shows it on this system). Each file trusted (or revoked) is printed as a JSON line.

Examples:

    $ mcpv servers -q '.servers[] | select(.trusted == false)'
    $ mcpv trust
    $ mcpv trust .vscode/mcp.json
    $ mcpv trust smoke.mcpv.yaml
    $ mcpv trust --revoke .mcp.json`
}

func (c *trustCmd) noServer() {}

func (c *trustCmd) Run(out *console, env connect.Env) error {
	files := c.Files
	if len(files) == 0 {
		for _, f := range config.ProjectFiles {
			if _, err := os.Stat(filepath.Join(env.Cwd, f.Path)); err == nil {
				files = append(files, f.Path)
			}
		}
		if len(files) == 0 {
			return usageErrorf("no project config file here (.mcp.json, .vscode/mcp.json or .cursor/mcp.json); name the file to trust")
		}
	}
	store := env.TrustStore()
	for _, p := range files {
		rec, err := trust.Trust(store, env.Cwd, p, c.Revoke)
		if err != nil {
			return err
		}
		if err := out.print(mustJSON(rec)); err != nil {
			return err
		}
	}
	return nil
}
