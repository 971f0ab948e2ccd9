package config

import (
	"errors"
	"fmt"
	"github.com/mcpv/mcpv/internal/safetext"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/yamlnode"
)

// Input is a value a config file declares under "inputs" for ${input:ID},
// as VS Code's mcp.json does
// (https://code.visualstudio.com/docs/copilot/customization/mcp-servers#_input-variables-for-sensitive-data):
// VS Code's way to keep a secret (an API key) out of the file. mcpv takes
// the value from the environment variable InputVar(ID), or asks the user on
// a terminal (Env.Ask); it keeps it nowhere, and a promptString's value is
// a secret, masked wherever mcpv writes.
type Input struct {
	ID          string
	Type        string // "promptString", "pickString" or "command" (a VS Code command, which mcpv cannot run)
	Description string
	Password    bool   // promptString: what is typed is not shown
	Default     string // the value of an empty answer
	Options     []string
}

// Secret says whether the input's value is to be masked: a promptString's
// (or a command's) is typed or made at run time, where a pickString's is
// one of the options written in the file.
func (in Input) Secret() bool { return in.Type != "pickString" }

// InputVar is the environment variable that gives ${input:ID}: MCPV_INPUT_
// and the ID in upper case, each character other than a letter or a digit
// made _ (perplexity-key: MCPV_INPUT_PERPLEXITY_KEY).
func InputVar(id string) string {
	b := []byte("MCPV_INPUT_")
	for _, c := range []byte(id) {
		switch {
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		default:
			c = '_'
		}
		b = append(b, c)
	}
	return string(b)
}

// ErrNoTerminal is what an Env.Ask without a terminal returns: the input
// must then come from the environment.
var ErrNoTerminal = errors.New("no terminal to ask on")

// input is the value of ${input:id} in s: from the environment, else the
// user's answer (an empty one is the input's default), else, without a
// terminal, its default; each once per expansion (asked is what this one
// has found).
func (s *Server) input(id string, env Env, asked map[string]string) (value string, secret bool, err error) {
	in, declared := s.File.input(id)
	if !declared {
		in = Input{ID: id, Type: "promptString", Password: true}
	}
	if v, ok := asked[id]; ok {
		return v, in.Secret(), nil
	}
	name := InputVar(id)
	shown := safetext.Line(id) // the file's words, made safe for the terminal like a server's
	value, set := "", false
	if env.Lookup != nil {
		value, set = env.Lookup(name)
	} else if value = env.Getenv(name); value != "" {
		set = true
	}
	switch {
	case set:
	case !declared:
		return "", false, fmt.Errorf("%s: server %q: ${input:%s}: the file declares no such input under \"inputs\"; set %s to give it", s.Where(), s.Name, shown, name)
	case in.Type == "command":
		return "", false, fmt.Errorf("%s: server %q: ${input:%s} runs a VS Code command, which mcpv cannot; set %s to give its value", s.Where(), s.Name, shown, name)
	default:
		err = ErrNoTerminal
		if env.Ask != nil {
			value, err = env.Ask(s, in)
		}
		switch {
		case errors.Is(err, ErrNoTerminal) && in.Default != "":
			value = in.Default // as ${VAR:-default} takes its default
		case errors.Is(err, ErrNoTerminal):
			return "", false, fmt.Errorf("%s: server %q: ${input:%s} (%s): set %s, or run mcpv on a terminal to be asked", s.Where(), s.Name, shown, in.Label(), name)
		case err != nil:
			return "", false, err
		case value == "":
			value = in.Default
		}
	}
	if in.Type == "pickString" && len(in.Options) > 0 && !slices.Contains(in.Options, value) {
		options := make([]string, len(in.Options))
		for i, o := range in.Options {
			options[i] = safetext.Line(o)
		}
		return "", false, fmt.Errorf("%s: server %q: ${input:%s}: %q is not one of its options (%s)", s.Where(), s.Name, shown, value, strings.Join(options, ", "))
	}
	asked[id] = value
	return value, in.Secret(), nil
}

// Label is how the input is named to the user: its description, else its
// ID, made safe for a terminal (a config file's words are no more to be
// trusted there than a server's).
func (in Input) Label() string {
	if in.Description != "" {
		return safetext.Prose(in.Description)
	}
	return safetext.Line(in.ID)
}

// input is the file's input called id.
func (f *File) input(id string) (Input, bool) {
	for _, in := range f.Inputs {
		if in.ID == id {
			return in, true
		}
	}
	return Input{}, false
}

// inputsOf reads a file's "inputs": a list of objects with id, type,
// description, password, default and options (strings, or objects whose
// value is taken).
func inputsOf(n *yamlnode.Node) ([]Input, error) {
	if n == nil || n.Kind == yamlnode.Null {
		return nil, nil
	}
	if n.Kind != yamlnode.Array {
		return nil, yamlnode.ErrorAt(n, "inputs must be a list, not %s", n.Kind.Noun())
	}
	var out []Input
	for _, it := range n.Items {
		if it.Kind != yamlnode.Object {
			return nil, yamlnode.ErrorAt(it, "an input must be an object, not %s", it.Kind.Noun())
		}
		var in Input
		for _, f := range []struct {
			key string
			to  *string
		}{{"id", &in.ID}, {"type", &in.Type}, {"description", &in.Description}, {"default", &in.Default}} {
			v := it.Get(f.key)
			if v == nil {
				continue
			}
			if v.Kind == yamlnode.Object || v.Kind == yamlnode.Array {
				return nil, yamlnode.ErrorAt(v, "input %s must be a string, not %s", f.key, v.Kind.Noun())
			}
			*f.to = v.Text
		}
		if in.ID == "" {
			return nil, yamlnode.ErrorAt(it, "an input needs an id")
		}
		if p := it.Get("password"); p != nil {
			in.Password = p.Kind == yamlnode.Bool && p.Text == "true"
		}
		if o := it.Get("options"); o != nil && o.Kind == yamlnode.Array {
			for _, opt := range o.Items {
				if opt.Kind == yamlnode.Object {
					opt = opt.Get("value")
				}
				if opt != nil && opt.Kind != yamlnode.Object && opt.Kind != yamlnode.Array {
					in.Options = append(in.Options, opt.Text)
				}
			}
		}
		switch in.Type {
		case "promptString", "pickString", "command":
		case "":
			in.Type = "promptString"
		default:
			return nil, yamlnode.ErrorAt(it.Get("type"), "input %q: unknown type %q (want promptString, pickString or command)", in.ID, in.Type)
		}
		out = append(out, in)
	}
	return out, nil
}
