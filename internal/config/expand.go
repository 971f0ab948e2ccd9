package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpv/mcpv/internal/redact"
)

// Expanded is a server with its variables replaced by their values.
type Expanded struct {
	*Server
	Command string
	Args    []string
	Env     []Var
	Cwd     string // absolute, or "" for mcpv's own
	URL     string
	Headers []Var
	OAuth   OAuth

	// Secrets are the values that must never be written out: secret-named
	// env values and headers, URL passwords and parameters, and whatever a
	// secret-named variable expanded to.
	Secrets []string
}

// UnsetError is a ${VAR} whose variable is not set.
type UnsetError struct {
	Server *Server
	Var    string
}

func (e *UnsetError) Error() string {
	return fmt.Sprintf("%s: server %q: environment variable %s is not set", e.Server.Where(), e.Server.Name, e.Var)
}

// Expand replaces ${VAR}, ${env:VAR} and ${VAR:-default} from the
// environment, ${workspaceFolder} and ${userHome}, and ${input:ID} (see
// Input), in the command, args, env values, cwd, URL and header values. An
// unset variable is an error, never an empty string.
func (s *Server) Expand(env Env) (*Expanded, error) {
	x := &Expanded{Server: s}
	var err error
	inputs := map[string]string{}
	expand := func(text string) string {
		if err != nil {
			return ""
		}
		var out string
		out, err = s.expandText(text, env, &x.Secrets, inputs)
		return out
	}
	x.Command = expand(s.Command)
	for _, a := range s.Args {
		x.Args = append(x.Args, expand(a))
	}
	for _, v := range s.Env {
		val := expand(v.Value)
		x.Env = append(x.Env, Var{v.Name, val})
		if redact.Name(v.Name) {
			x.Secrets = append(x.Secrets, val)
		}
	}
	if s.Cwd != "" {
		x.Cwd = expand(s.Cwd)
		if x.Cwd != "" && !filepath.IsAbs(x.Cwd) {
			x.Cwd = filepath.Join(s.File.Folder, x.Cwd)
		}
	}
	x.URL = expand(s.URL)
	for _, h := range s.Headers {
		val := expand(h.Value)
		x.Headers = append(x.Headers, Var{h.Name, val})
		if redact.Name(h.Name) {
			x.Secrets = append(x.Secrets, val)
			if _, cred, ok := strings.Cut(val, " "); ok {
				x.Secrets = append(x.Secrets, cred)
			}
		}
	}
	x.OAuth = s.OAuth // the grant, DPoP, scope, redirect and login timeout as written; these expanded
	for _, f := range []*string{&x.OAuth.ClientID, &x.OAuth.ClientSecret, &x.OAuth.ClientKey, &x.OAuth.ClientMetadataURL,
		&x.OAuth.Assertion, &x.OAuth.Resource} {
		*f = expand(*f)
	}
	if x.OAuth.ClientKey != "" && !filepath.IsAbs(x.OAuth.ClientKey) {
		x.OAuth.ClientKey = filepath.Join(s.File.Folder, x.OAuth.ClientKey)
	}
	for _, secret := range []string{x.OAuth.ClientSecret, x.OAuth.Assertion} {
		if secret != "" {
			x.Secrets = append(x.Secrets, secret)
		}
	}
	if err != nil {
		return nil, err
	}
	x.Secrets = append(x.Secrets, redact.URLSecrets(x.URL)...)
	x.Secrets = append(x.Secrets, redact.URLSecrets(x.OAuth.Resource)...)
	x.Secrets = append(x.Secrets, redact.ArgSecrets(x.Args)...)
	return x, nil
}

// References lists the variables an entry reads: from the environment, and
// ${userHome} and ${workspaceFolder}, which also tell where the user is.
func (s *Server) References() []string {
	var refs []string
	texts := append([]string{s.Command, s.Cwd, s.URL}, s.Args...)
	for _, v := range s.Env {
		texts = append(texts, v.Value)
	}
	for _, h := range s.Headers {
		texts = append(texts, h.Value)
	}
	texts = append(texts, s.OAuth.ClientID, s.OAuth.ClientSecret, s.OAuth.ClientKey, s.OAuth.ClientMetadataURL, s.OAuth.Resource)
	for _, t := range texts {
		for {
			_, after, open := strings.Cut(t, "${")
			ref, rest, closed := strings.Cut(after, "}")
			if !open || !closed {
				break
			}
			t = rest
			name, _, _ := strings.Cut(strings.TrimPrefix(ref, "env:"), ":-")
			refs = append(refs, name)
		}
	}
	return refs
}

func (s *Server) expandText(text string, env Env, secrets *[]string, inputs map[string]string) (string, error) {
	var b strings.Builder
	for {
		before, after, open := strings.Cut(text, "${")
		b.WriteString(before)
		if !open {
			return b.String(), nil
		}
		ref, rest, closed := strings.Cut(after, "}")
		if !closed {
			return "", fmt.Errorf("%s: server %q: unterminated ${ in %q", s.Where(), s.Name, text)
		}
		text = rest
		var val string
		var secret bool
		var err error
		if id, ok := strings.CutPrefix(ref, "input:"); ok {
			if val, secret, err = s.input(id, env, inputs); err != nil {
				return "", err
			}
		} else {
			val, secret, err = LookupVar(ref, env, s.File.Folder)
		}
		var ve *VarError
		switch {
		case errors.As(err, &ve) && ve.Unset:
			return "", &UnsetError{Server: s, Var: ve.Name}
		case err != nil:
			return "", fmt.Errorf("%s: server %q: %w", s.Where(), s.Name, err)
		}
		if secret {
			*secrets = append(*secrets, val)
		}
		b.WriteString(val)
	}
}

// VarError is a ${...} that cannot be expanded: its variable is not set
// (Unset), or it is not one mcpv expands.
type VarError struct {
	Ref   string // what is between ${ and }
	Name  string // the variable
	Unset bool
}

func (e *VarError) Error() string {
	if e.Unset {
		return fmt.Sprintf("environment variable %s is not set", e.Name)
	}
	return fmt.Sprintf("mcpv cannot expand ${%s}; use ${VAR}, ${env:VAR} or ${VAR:-default}", e.Ref)
}

// LookupVar is the value of ${ref} in a file in folder, as every file mcpv
// reads expands it: ${workspaceFolder} is folder, ${userHome} the home
// directory, and ${VAR}, ${env:VAR} and ${VAR:-default} come from the
// environment, where an empty variable takes the default and an unset one
// without a default is an error (a *VarError), never an empty string.
// secret says the value is a secret-named variable's, not to be shown.
func LookupVar(ref string, env Env, folder string) (value string, secret bool, err error) {
	switch ref {
	case "workspaceFolder":
		return folder, false, nil
	case "userHome":
		return env.Home, false, nil
	}
	name, def, hasDefault := strings.Cut(strings.TrimPrefix(ref, "env:"), ":-")
	if !validName(name) {
		return "", false, &VarError{Ref: ref, Name: name}
	}
	secret = redact.Name(name)
	if v := env.Getenv(name); v != "" {
		return v, secret, nil
	}
	if hasDefault {
		return def, secret, nil
	}
	if env.Lookup != nil {
		if v, ok := env.Lookup(name); ok {
			return v, secret, nil
		}
	}
	return "", false, &VarError{Ref: ref, Name: name, Unset: true}
}

func validName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		if c != '_' && !(c >= 'A' && c <= 'Z') && !(c >= 'a' && c <= 'z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
