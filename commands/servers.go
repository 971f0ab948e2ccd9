package commands

import (
	"encoding/json"
	"errors"

	"github.com/mcpv/mcpv/config"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/output"
	"github.com/mcpv/mcpv/redact"
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
              ~/Library/Application Support; APPS is ~/Library/Application Support
    Windows:  CONFIG is $XDG_CONFIG_HOME if set, else %APPDATA%; APPS is %APPDATA%;
              ~ is %USERPROFILE%

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
		var fe *config.FileError
		if errors.As(err, &fe) {
			return configError(err)
		}
		return err
	}
	list := []serverView{}
	seen := map[string]bool{}
	for _, f := range files {
		for _, s := range f.Servers {
			list = append(list, describeServer(s, store, seen[s.Name]))
			seen[s.Name] = true
		}
	}
	return out.print(mustJSON(map[string]any{"servers": list}))
}

// serverView is how `servers` shows an entry: as written, secrets masked.
type serverView struct {
	Name            string       `json:"name"`
	Transport       string       `json:"transport"`
	Command         string       `json:"command,omitempty"`
	Args            []string     `json:"args,omitempty"`
	Env             *orderedVars `json:"env,omitempty"`
	Cwd             string       `json:"cwd,omitempty"`
	URL             string       `json:"url,omitempty"`
	Headers         *orderedVars `json:"headers,omitempty"`
	Timeout         string       `json:"timeout,omitempty"`
	ProtocolVersion string       `json:"protocol_version,omitempty"`
	Source          string       `json:"source"`
	Line            int          `json:"line"`
	From            string       `json:"from"`
	OAuth           *oauthView   `json:"oauth,omitempty"`
	Trusted         *bool        `json:"trusted,omitempty"`
	Shadowed        bool         `json:"shadowed,omitempty"`
	Warnings        []string     `json:"warnings,omitempty"`
}

func describeServer(s *config.Server, store interface {
	Trusted(string, []byte) (bool, error)
}, shadowed bool) serverView {
	v := serverView{
		Name:            s.Name,
		Transport:       s.Transport,
		Command:         s.Command,
		Args:            redact.Args(s.Args),
		Env:             maskVars(s.Env),
		Cwd:             s.Cwd,
		Headers:         maskVars(s.Headers),
		ProtocolVersion: s.ProtocolVersion,
		Source:          s.File.Path,
		Line:            s.Line,
		From:            s.File.Label,
		Shadowed:        shadowed,
		Warnings:        s.Warnings,
	}
	if s.URL != "" {
		v.URL = redact.URL(s.URL)
	}
	if s.Timeout > 0 {
		v.Timeout = s.Timeout.String()
	}
	if o := s.OAuth; o != (config.OAuth{}) {
		v.OAuth = &oauthView{ClientID: o.ClientID, ClientSecret: connect.MaskValue("client_secret", o.ClientSecret),
			ClientKey: o.ClientKey, ClientMetadataURL: o.ClientMetadataURL, Grant: o.Grant,
			Assertion: connect.MaskValue("client_secret", o.Assertion), DPoP: o.DPoP}
	}
	if s.File.Kind == config.Project {
		ok, _ := store.Trusted(s.File.Path, s.File.Data)
		v.Trusted = &ok
	}
	return v
}

type oauthView struct {
	ClientID          string `json:"client_id,omitempty"`
	ClientSecret      string `json:"client_secret,omitempty"`
	ClientKey         string `json:"client_key,omitempty"`
	ClientMetadataURL string `json:"client_metadata_url,omitempty"`
	Grant             string `json:"grant,omitempty"`
	Assertion         string `json:"assertion,omitempty"`
	DPoP              string `json:"dpop,omitempty"`
}

// orderedVars marshals name/value pairs as an object in file order.
type orderedVars []config.Var

func maskVars(vars []config.Var) *orderedVars {
	if len(vars) == 0 {
		return nil
	}
	out := make(orderedVars, len(vars))
	for i, v := range vars {
		out[i] = config.Var{Name: v.Name, Value: connect.MaskValue(v.Name, v.Value)}
	}
	return &out
}

func (o *orderedVars) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, v := range *o {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(v.Name)
		val, _ := json.Marshal(v.Value)
		b = append(append(append(b, k...), ':'), val...)
	}
	return append(b, '}'), nil
}

func (c *serversCmd) noServer() {}
