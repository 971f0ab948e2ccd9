// How mcpv servers shows the config files' servers:
// each entry as written, its secrets masked, whether the user trusts a
// project file's entry, and whether an earlier file's entry of the same
// name shadows it.

package commands

import (
	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/redact"
)

// trustStore says whether the user trusts a file's content.
type trustStore interface {
	Trusted(path string, data []byte) (bool, error)
}

// serverEntry is how a server entry is shown: as written, secrets masked.
type serverEntry struct {
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
	Pin             string       `json:"pin,omitempty"`
	Source          string       `json:"source"`
	Line            int          `json:"line"`
	From            string       `json:"from"`
	OAuth           *oauthView   `json:"oauth,omitempty"`
	Trusted         *bool        `json:"trusted,omitempty"`
	Shadowed        bool         `json:"shadowed,omitempty"`
	Warnings        []string     `json:"warnings,omitempty"`
}

// listServers lists every server of files, in their order; a name an earlier
// entry has is shadowed. An empty list is [], not null.
func listServers(files []*config.File, store trustStore) []serverEntry {
	list := []serverEntry{}
	seen := map[string]bool{}
	for _, f := range files {
		for _, s := range f.Servers {
			list = append(list, describeServer(s, store, seen[s.Name]))
			seen[s.Name] = true
		}
	}
	return list
}

// describeServer shows one entry.
func describeServer(s *config.Server, store trustStore, shadowed bool) serverEntry {
	v := serverEntry{
		Name:            s.Name,
		Transport:       s.Transport,
		Command:         s.Command,
		Args:            redact.Args(s.Args),
		Env:             maskVars(s.Env),
		Cwd:             s.Cwd,
		URL:             redact.URL(s.URL), // "" stays ""
		Headers:         maskVars(s.Headers),
		ProtocolVersion: s.ProtocolVersion,
		Pin:             s.Pin,
		Source:          s.File.Path,
		Line:            s.Line,
		From:            s.File.Label,
		Shadowed:        shadowed,
		Warnings:        s.Warnings,
	}
	if s.Timeout > 0 {
		v.Timeout = s.Timeout.String()
	}
	if o := s.OAuth; o != (config.OAuth{}) {
		v.OAuth = &oauthView{ClientID: o.ClientID, ClientSecret: redact.ConfigValue("client_secret", o.ClientSecret),
			ClientKey: o.ClientKey, ClientMetadataURL: o.ClientMetadataURL, Grant: o.Grant,
			Assertion: redact.ConfigValue("client_secret", o.Assertion), DPoP: o.DPoP, Resource: o.Resource, Scope: o.Scope,
			RedirectHost: o.RedirectHost, RedirectPort: o.RedirectPort, RedirectPath: o.RedirectPath}
		if o.LoginTimeout > 0 {
			v.OAuth.LoginTimeout = o.LoginTimeout.String()
		}
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
	Resource          string `json:"resource,omitempty"`
	Scope             string `json:"scope,omitempty"`
	RedirectHost      string `json:"redirect_host,omitempty"`
	RedirectPort      int    `json:"redirect_port,omitempty"`
	RedirectPath      string `json:"redirect_path,omitempty"`
	LoginTimeout      string `json:"login_timeout,omitempty"`
}

// orderedVars marshals name/value pairs as an object in file order.
type orderedVars []config.Var

func maskVars(vars []config.Var) *orderedVars {
	if len(vars) == 0 {
		return nil
	}
	out := make(orderedVars, len(vars))
	for i, v := range vars {
		out[i] = config.Var{Name: v.Name, Value: redact.ConfigValue(v.Name, v.Value)}
	}
	return &out
}

func (o *orderedVars) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, v := range *o {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, mustJSON(v.Name)...), ':'), mustJSON(v.Value)...)
	}
	return append(b, '}'), nil
}
