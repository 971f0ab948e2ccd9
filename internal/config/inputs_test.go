package config

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// vscodeInputs is a VS Code mcp.json that keeps its secrets in inputs.
const vscodeInputs = `{
  // VS Code asks for these when a server starts.
  "inputs": [
    {"type": "promptString", "id": "api-key", "description": "Perplexity API Key", "password": true},
    {"type": "promptString", "id": "region", "description": "Region", "default": "eu"},
    {"type": "pickString", "id": "env", "description": "Environment", "options": ["dev", {"label": "Production", "value": "prod"}], "default": "dev"},
    {"type": "command", "id": "token", "command": "extension.getToken"}
  ],
  "servers": {
    "px": {"command": "npx", "args": ["server-perplexity", "--region=${input:region}"],
           "env": {"PERPLEXITY_API_KEY": "${input:api-key}", "ALSO": "${input:api-key}", "STAGE": "${input:env}"}},
    "cmd": {"command": "srv", "env": {"T": "${input:token}"}},
    "undeclared": {"command": "srv", "env": {"K": "${input:nope}"}}
  }
}`

func inputServers(t *testing.T, w *world) map[string]*Server {
	t.Helper()
	path := filepath.Join(w.project, ".vscode", "mcp.json")
	put(t, path, vscodeInputs)
	f, err := Load(Source{Path: path, Folder: w.project, Foreign: true})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Server{}
	for _, s := range f.Servers {
		byName[s.Name] = s
	}
	return byName
}

// ${input:ID} comes from MCPV_INPUT_ID when it is set: a promptString's
// value is a secret, a pickString's (one of the file's options) is not.
func TestInputsFromTheEnvironment(t *testing.T) {
	w := newWorld(t)
	byName := inputServers(t, w)
	w.vars["MCPV_INPUT_API_KEY"] = "pplx-secret-123"
	w.vars["MCPV_INPUT_REGION"] = "us"
	w.vars["MCPV_INPUT_ENV"] = "prod"
	x, err := byName["px"].Expand(w.env("linux"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Var{{"PERPLEXITY_API_KEY", "pplx-secret-123"}, {"ALSO", "pplx-secret-123"}, {"STAGE", "prod"}}, x.Env); d != "" {
		t.Errorf("env (-want +got):\n%s", d)
	}
	if x.Args[1] != "--region=us" {
		t.Errorf("args %q", x.Args)
	}
	if !slices.Contains(x.Secrets, "pplx-secret-123") || !slices.Contains(x.Secrets, "us") || slices.Contains(x.Secrets, "prod") {
		t.Errorf("secrets %q: want the promptStrings' values and not the pickString's", x.Secrets)
	}

	w.vars["MCPV_INPUT_ENV"] = "staging"
	if _, err := byName["px"].Expand(w.env("linux")); err == nil || !strings.Contains(err.Error(), `${input:env}: "staging" is not one of its options (dev, prod)`) {
		t.Errorf("a pickString value not among its options: %v", err)
	}
	w.vars["MCPV_INPUT_TOKEN"] = "from-env"
	if x, err := byName["cmd"].Expand(w.env("linux")); err != nil || x.Env[0].Value != "from-env" {
		t.Errorf("a command input from the environment: %v", err)
	}
	w.vars["MCPV_INPUT_NOPE"] = "given"
	if x, err := byName["undeclared"].Expand(w.env("linux")); err != nil || x.Env[0].Value != "given" || !slices.Contains(x.Secrets, "given") {
		t.Errorf("an undeclared input from the environment: %v (a secret: %q)", err, x.Secrets)
	}
}

// Without the variable, each input is asked once per expansion (a password
// unseen); without a terminal an input takes its default, or the error
// names the variable.
func TestInputsAsked(t *testing.T) {
	w := newWorld(t)
	byName := inputServers(t, w)
	env := w.env("linux")
	var asked []Input
	answers := map[string]string{"api-key": "typed-secret", "region": "", "env": "prod"}
	env.Ask = func(s *Server, in Input) (string, error) {
		if s.Name != "px" {
			t.Errorf("asked for server %s", s.Name)
		}
		asked = append(asked, in)
		return answers[in.ID], nil
	}
	x, err := byName["px"].Expand(env)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, in := range asked {
		ids = append(ids, in.ID)
	}
	if d := cmp.Diff([]string{"region", "api-key", "env"}, ids); d != "" {
		t.Errorf("asked (-want +got):\n%s", d)
	}
	if !asked[1].Password || asked[0].Password || asked[1].Description != "Perplexity API Key" || !slices.Equal(asked[2].Options, []string{"dev", "prod"}) {
		t.Errorf("the inputs asked: %+v", asked)
	}
	if x.Args[1] != "--region=eu" || x.Env[0].Value != "typed-secret" || !slices.Contains(x.Secrets, "typed-secret") {
		t.Errorf("args %q env %q secrets %q: want the default for an empty answer, and the answer a secret", x.Args, x.Env, x.Secrets)
	}

	for _, ask := range []func(*Server, Input) (string, error){nil, func(*Server, Input) (string, error) { return "", ErrNoTerminal }} {
		env.Ask = ask
		_, err = byName["px"].Expand(env)
		if err == nil || !strings.Contains(err.Error(), "${input:api-key} (Perplexity API Key): set MCPV_INPUT_API_KEY, or run mcpv on a terminal to be asked") {
			t.Errorf("no terminal: %v", err)
		}
	}
	env.Ask = nil
	w.vars["MCPV_INPUT_API_KEY"] = "k"
	if x, err := byName["px"].Expand(env); err != nil || x.Args[1] != "--region=eu" || x.Env[2].Value != "dev" {
		t.Errorf("defaults without a terminal: %v", err)
	}
	delete(w.vars, "MCPV_INPUT_API_KEY")
	interrupted := errors.New("interrupted")
	env.Ask = func(*Server, Input) (string, error) { return "", interrupted }
	if _, err := byName["px"].Expand(env); !errors.Is(err, interrupted) {
		t.Errorf("an interrupted question: %v", err)
	}
	if _, err := byName["cmd"].Expand(env); err == nil || !strings.Contains(err.Error(), "runs a VS Code command, which mcpv cannot; set MCPV_INPUT_TOKEN") {
		t.Errorf("a command input: %v", err)
	}
}

func TestInputVar(t *testing.T) {
	for id, want := range map[string]string{"perplexity-key": "MCPV_INPUT_PERPLEXITY_KEY", "apiKey": "MCPV_INPUT_APIKEY", "a.b c9": "MCPV_INPUT_A_B_C9"} {
		if got := InputVar(id); got != want {
			t.Errorf("InputVar(%q) = %s, want %s", id, got, want)
		}
	}
}

// A broken inputs list is a mistake at its place; mcpv's own YAML catalog
// may declare inputs too.
func TestInputsInTheFile(t *testing.T) {
	w := newWorld(t)
	for text, want := range map[string]string{
		`{"inputs": {"id": "x"}, "servers": {}}`:                           ":1:12: inputs must be a list, not an object",
		`{"inputs": [{"type": "promptString"}], "servers": {}}`:            ":1:13: an input needs an id",
		`{"inputs": [{"id": "x", "type": "secretString"}], "servers": {}}`: `input "x": unknown type "secretString"`,
		`{"inputs": [{"id": "x", "description": ["a"]}], "servers": {}}`:   "input description must be a string, not an array",
	} {
		path := filepath.Join(w.home, "mcp.json")
		put(t, path, text)
		_, err := Load(Source{Path: path, Foreign: true})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
	path := filepath.Join(w.home, "servers.yaml")
	put(t, path, "inputs:\n  - {id: key, password: true}\nservers:\n  s: {command: srv, env: {KEY: '${input:key}'}}\n")
	f, err := Load(Source{Path: path, Own: true, YAML: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Input{{ID: "key", Type: "promptString", Password: true}}, f.Inputs); d != "" {
		t.Errorf("inputs (-want +got):\n%s", d)
	}
}
