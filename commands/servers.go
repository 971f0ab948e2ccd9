package commands

import (
	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/output"
)

type serversCmd struct {
	Name string `arg:"" optional:"" help:"Show only this server (the one --server NAME would use)."`
}

func (c *serversCmd) Help() string {
	return `Servers are looked up by name in these files, and the first file that names it wins:

    --config FILE, then $MCPV_CONFIG
    ./.mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json   (project files)
    CONFIG/mcpv/servers.yaml (or .yml, .json)             (mcpv's catalog)
    ~/.claude.json                                        (Claude Code)
    APPS/Claude/claude_desktop_config.json                (Claude Desktop)
    APPS/Code/User/mcp.json                               (VS Code)
    ~/.cursor/mcp.json                                    (Cursor)

    Linux:    CONFIG and APPS are $XDG_CONFIG_HOME (default ~/.config)
    macOS:    CONFIG is $XDG_CONFIG_HOME if set, else ~/.config, then
              ~/Library/Application Support; APPS is the latter
    Windows:  CONFIG is $XDG_CONFIG_HOME if set, else %APPDATA%;
              APPS is %APPDATA%; ~ is %USERPROFILE%

'mcpv help config-files' shows these places as they are on this system; the guide docs/guide/files.md lists every file mcpv uses on each OS.

A stdio server from a project file, or from any file under the current repository, starts only after 'mcpv trust FILE'. The list shows entries as written, with secrets masked; a name defined again in a later file is marked "shadowed".

Examples:

    $ mcpv servers
    $ mcpv servers github -q .command
    $ mcpv list-tools -s github`
}

func (c *serversCmd) Run(out *console, env connect.Env, f *connect.ServerFlags) error {
	cenv := env.Config(env.Path(f.Config))
	store := env.TrustStore()
	log := output.NewLogger(out.ios.Err)
	if c.Name != "" {
		s, skipped, err := config.Find(cenv, c.Name)
		connect.WarnSkipped(log, skipped)
		if err != nil {
			return configError(err)
		}
		return out.print(mustJSON(describeServer(s, store, false)))
	}
	files, skipped, err := config.All(cenv)
	connect.WarnSkipped(log, skipped)
	if err != nil {
		if isA[*config.FileError](err) {
			return configError(err)
		}
		return err
	}
	return out.print(mustJSON(map[string]any{"servers": listServers(files, store)}))
}

func (c *serversCmd) noServer() {}
