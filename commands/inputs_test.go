package commands

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/exitcode"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// inputsWorld has VS Code's user mcp.json, whose server keeps its key in
// ${input:api-key} (a password) and its stage in a pickString; server pd
// has them too, and never answers a tools/call.
func inputsWorld(t *testing.T) *cfgWorld {
	t.Helper()
	w := newCfgWorld(t)
	w.write(t, filepath.Join(w.home, ".config", "Code", "User", "mcp.json"), `{
  "inputs": [
    {"type": "promptString", "id": "api-key", "description": "Demo API key", "password": true},
    {"type": "pickString", "id": "stage", "description": "Stage", "options": ["dev", "prod"], "default": "dev"}
  ],
  "servers": {
    "px": {"type": "stdio", "command": `+q(os.Args[0])+`,
           "env": {"`+mcptest.EnvVar+`": "env", "ACCOUNT_REF": "${input:api-key}", "STAGE": "${input:stage}"}},
    "pd": {"type": "stdio", "command": `+q(os.Args[0])+`,
           "env": {"`+mcptest.EnvVar+`": "env,hang", "ACCOUNT_REF": "${input:api-key}", "STAGE": "${input:stage}"}}
  }
}`)
	return w
}

// VS Code's ${input:ID} is no dead end: the value comes from MCPV_INPUT_ID
// and reaches the server; without it and without a terminal, the message
// names the variable.
func TestInputFromTheEnvironment(t *testing.T) {
	t.Parallel()
	w := inputsWorld(t)
	r := w.mcpv(t, "", "call", "-s", "px", "x", "-q", "[.structuredContent.env.ACCOUNT_REF, .structuredContent.env.STAGE]", "-c")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "${input:api-key} (Demo API key): set MCPV_INPUT_API_KEY, or run mcpv on a terminal to be asked") {
		t.Errorf("no value, no terminal: exit %d, stderr %q", r.code, r.stderr)
	}
	w.setenv("MCPV_INPUT_API_KEY", "input-SECRET-key")
	w.setenv("MCPV_INPUT_STAGE", "prod")
	r = w.mcpv(t, "", "call", "-s", "px", "x", "-q", `[.structuredContent.env.ACCOUNT_REF == "input-SECRET-key", .structuredContent.env.STAGE]`, "-c")
	if r.code != 0 || r.stdout != "[true,\"prod\"]\n" {
		t.Errorf("from the environment: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	w.setenv("MCPV_INPUT_STAGE", "qa")
	r = w.mcpv(t, "", "call", "-s", "px", "x")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, `${input:stage}: "qa" is not one of its options (dev, prod)`) {
		t.Errorf("a pickString value not among its options: exit %d, stderr %q", r.code, r.stderr)
	}
}

// An input's value is a secret: nothing mcpv says shows it, verbose or not
// (the --verbose trace of a result that holds it included), and no file
// mcpv writes holds it. (A result on stdout is data, shown as the server
// sent it, here filtered to the names of the server's variables.) The
// request that times out goes to a server that never answers it: a
// timeout shorter than an answer's way is a race a busy machine can lose.
func TestInputNeverWritten(t *testing.T) {
	t.Parallel()
	w := inputsWorld(t)
	const secret = "input-SECRET-key"
	w.setenv("MCPV_INPUT_API_KEY", secret)
	w.setenv("XDG_STATE_HOME", filepath.Join(w.root, "state"))
	events := filepath.Join(w.root, "events.ndjson")
	var codes []int
	for _, args := range [][]string{
		{"call", "-s", "px", "x", "-q", ".structuredContent.env | keys"},
		{"-v", "call", "-s", "px", "x", "--events", events, "-q", ".structuredContent.env | keys"},
		{"servers", "px"},
		{"-v", "call", "-s", "pd", "x", "--timeout", "20ms"},
	} {
		r := w.mcpv(t, "", args...)
		codes = append(codes, r.code)
		if strings.Contains(r.stdout, secret) || strings.Contains(r.stderr, secret) {
			t.Errorf("%q (exit %d) shows the input:\nstdout %s\nstderr %s", args, r.code, r.stdout, r.stderr)
		}
	}
	if want := []int{0, 0, 0, exitcode.Timeout}; !slices.Equal(codes, want) {
		t.Errorf("exit codes %v, want %v", codes, want)
	}
	filepath.WalkDir(w.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("%s holds the input's value", path)
		}
		return nil
	})
}

// On a terminal each input is asked once per file in a run (a password
// unseen), with its description, its variable, its server and its options;
// what the file says is shown escaped.
func TestInputAsked(t *testing.T) {
	t.Parallel()
	file := &config.File{Source: config.Source{Path: "/p/.vscode/mcp.json"}}
	px := &config.Server{Name: "px", File: file}
	type question struct {
		text   string
		hidden bool
	}
	var asked []question
	answer := "typed"
	ctx, cancel := context.WithCancelCause(context.Background())
	ask := inputAsker(ctx, func(_ context.Context, q string, hidden bool) (string, error) {
		asked = append(asked, question{q, hidden})
		return answer, nil
	})
	key := config.Input{ID: "api-key", Type: "promptString", Description: "API key\x1b[2J", Password: true}
	stage := config.Input{ID: "stage", Type: "pickString", Description: "Stage", Options: []string{"dev", "prod"}, Default: "dev"}
	for _, in := range []config.Input{key, stage, key} {
		if v, err := ask(px, in); err != nil || v != "typed" {
			t.Errorf("%s: %q, %v", in.ID, v, err)
		}
	}
	want := []question{
		{`API key\x1b[2J (${input:api-key} for server "px"): `, true},
		{`Stage (${input:stage} for server "px"; one of: dev, prod; default dev): `, false},
	}
	if d := cmp.Diff(want, asked, cmp.AllowUnexported(question{})); d != "" {
		t.Errorf("questions (-want +got):\n%s", d)
	}
	other := &config.Server{Name: "px", File: &config.File{Source: config.Source{Path: "/q/mcp.json"}}}
	if ask(other, key); len(asked) != 3 {
		t.Errorf("the same input of another file was not asked: %d questions", len(asked))
	}

	noTerminal := inputAsker(ctx, func(context.Context, string, bool) (string, error) { return "", errNoTerminal })
	if _, err := noTerminal(px, key); !errors.Is(err, config.ErrNoTerminal) {
		t.Errorf("no terminal: %v", err)
	}
	cancel(ErrInterrupted)
	interrupted := inputAsker(ctx, func(ctx context.Context, _ string, _ bool) (string, error) { return "", ctx.Err() })
	if _, err := interrupted(px, key); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Ctrl-C at the question: %v", err)
	}
}

// A config file's words are shown as a server's are: an input's
// description, its id and options, the server's name and the file's path,
// with terminal escapes and bidirectional controls shown escaped, in every
// message that quotes them (here: no value and no terminal; a value not
// among the options; an input the file does not declare; a server the
// files do not define).
func TestConfigWordsMadeSafe(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.write(t, filepath.Join(w.home, ".config", "Code", "User", "mcp.json"), `{
  "inputs": [
    {"type": "promptString", "id": "key\u001b]0;t\u0007", "description": "API key \u001b[2J\u001b]52;c;cHduZWQ=\u0007 here \u202etxt.exe", "password": true},
    {"type": "pickString", "id": "stage", "description": "Stage", "options": ["dev\u001b[31m", "prod"]}
  ],
  "servers": {
    "px": {"type": "stdio", "command": `+q(os.Args[0])+`, "env": {"A": "${input:key\u001b]0;t\u0007}"}},
    "st": {"type": "stdio", "command": `+q(os.Args[0])+`, "env": {"S": "${input:stage}"}},
    "un": {"type": "stdio", "command": `+q(os.Args[0])+`, "env": {"U": "${input:gone\u009b2J}"}}
  }
}`)
	check := func(what string, r result, has string) {
		t.Helper()
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, has) {
			t.Errorf("%s: exit %d, stderr %q; want it to say %q", what, r.code, r.stderr, has)
		}
		for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u009b"} {
			if strings.Contains(r.stderr, bad) {
				t.Errorf("%s: stderr carries %q raw: %q", what, bad, r.stderr)
			}
		}
	}
	check("no value", w.mcpv(t, "", "call", "-s", "px", "x"), `${input:key\x1b]0;t\x07} (API key \x1b[2J\x1b]52;c;cHduZWQ=\x07 here \u202etxt.exe): set MCPV_INPUT_KEY__0_T_`)
	w.setenv("MCPV_INPUT_STAGE", "qa")
	check("not an option", w.mcpv(t, "", "call", "-s", "st", "x"), `"qa" is not one of its options (dev\x1b[31m, prod)`)
	check("not declared", w.mcpv(t, "", "call", "-s", "un", "x"), `${input:gone\u009b2J}: the file declares no such input`)
	check("no such server", w.mcpv(t, "", "call", "-s", "p\x1bx", "x"), `no server named "p\x1bx"`)
}
