package manpage

// MCPV is the page mcpv(1) beyond its grammar, for version (v1.2.3) and
// date (2006-01-02).
func MCPV(version, date string) Page {
	env := make([]Entry, len(Vars))
	for i, v := range Vars {
		env[i] = Entry{Name: v.Name, Help: v.Help}
	}
	return Page{
		Section:     "1",
		Date:        date,
		Source:      "mcpv " + version,
		Manual:      "User Commands",
		Environment: env,
		Files:       files,
		SeeAlso:     []string{"jq(1)", "https://github.com/mcpv/mcpv", "https://modelcontextprotocol.io"},
	}
}

// files are the files mcpv reads and writes, as on Linux, with where
// macOS and Windows keep them.
var files = []Entry{
	{"./.mcp.json, ./.vscode/mcp.json, ./.cursor/mcp.json",
		"Project config files, read first (after --config and $MCPV_CONFIG). Their stdio servers start only after 'mcpv trust'."},
	{"$XDG_CONFIG_HOME/mcpv/servers.yaml",
		"mcpv's catalog of named servers (or servers.yml, servers.json); default ~/.config/mcpv. " +
			"On macOS ~/.config/mcpv, then ~/Library/Application Support/mcpv; on Windows %APPDATA%\\mcpv."},
	{"~/.claude.json", "Claude Code's servers: the current project's, then the user's."},
	{"$XDG_CONFIG_HOME/Claude/claude_desktop_config.json",
		"Claude Desktop's servers; on macOS in ~/Library/Application Support/Claude, on Windows in %APPDATA%\\Claude."},
	{"$XDG_CONFIG_HOME/Code/User/mcp.json",
		"VS Code's user servers; on macOS in ~/Library/Application Support/Code/User, on Windows in %APPDATA%\\Code\\User."},
	{"~/.cursor/mcp.json", "Cursor's servers."},
	{"$XDG_STATE_HOME/mcpv/",
		"The state directory, default ~/.local/state/mcpv (on macOS ~/Library/Application Support/mcpv unless ~/.local/state/mcpv exists; " +
			"on Windows %LOCALAPPDATA%\\mcpv); it must be yours alone. It holds trusted/ (trusted project files), oauth/ (tokens, " +
			"each file 0600), sessions/ (session logs) and http-sessions/ (HTTP sessions kept by call --detach)."},
	{"$XDG_RUNTIME_DIR/mcpv/", "The sockets of running sessions (mcpv session); without $XDG_RUNTIME_DIR, sessions/ under the state directory."},
}
