package commands

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/mcpv/mcpv/internal/testkit"
)

// cliCase is one case of testdata/cli.yaml (its head says what each
// field means).
type cliCase struct {
	Name      string            `yaml:"name"`
	Args      []string          `yaml:"args"`
	Stdin     string            `yaml:"stdin"`
	Env       []string          `yaml:"env"`
	Files     map[string]string `yaml:"files"`
	Exit      *int              `yaml:"exit"`
	Stdout    *string           `yaml:"stdout"`
	StdoutHas string            `yaml:"stdout_has"`
	Stderr    *string           `yaml:"stderr"`
	StderrHas []string          `yaml:"stderr_has"`
	// Unix: the case's words are those of Unix's errors (connection
	// refused, no such file or directory); it is not run on Windows.
	Unix bool `yaml:"unix"`
}

// The command line's contract where no server answers is a table
// (testdata/cli.yaml), as data: what each command line prints on stdout
// and stderr and the code it exits with.
func TestCommandLineContract(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "cli.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []cliCase `yaml:"cases"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&table); err != nil {
		t.Fatalf("testdata/cli.yaml: %v", err)
	}
	closed := closedAddress(t)
	seen := map[string]bool{}
	for _, c := range table.Cases {
		if c.Name == "" || seen[c.Name] || c.Exit == nil || len(c.Args) == 0 {
			t.Fatalf("testdata/cli.yaml: case %q: each case needs a name of its own, args and exit", c.Name)
		}
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			if c.Unix && runtime.GOOS == "windows" {
				t.Skip("Unix's words for the error")
			}
			t.Parallel()
			fill := func(s string) string { return strings.ReplaceAll(s, "${CLOSED}", closed) }
			args := make([]string, len(c.Args))
			for i, a := range c.Args {
				args[i] = fill(a)
			}
			w := newWorld(t)
			rt := t.TempDir()
			os.Chmod(rt, 0o700)
			w.env = with(w.env, append([]string{"XDG_RUNTIME_DIR=" + rt, "XDG_CONFIG_HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir()}, c.Env...)...)
			w.env.Cwd = t.TempDir()
			for name, text := range c.Files {
				if err := os.WriteFile(filepath.Join(w.env.Cwd, name), []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r := w.mcpv(t, c.Stdin, args...)
			if r.code != *c.Exit {
				t.Errorf("mcpv %s: exit %d, want %d\nstderr: %s", strings.Join(args, " "), r.code, *c.Exit, r.stderr)
			}
			if c.Stdout != nil && r.stdout != fill(*c.Stdout) {
				t.Errorf("stdout %q, want %q", r.stdout, fill(*c.Stdout))
			}
			if !strings.Contains(r.stdout, fill(c.StdoutHas)) {
				t.Errorf("stdout %.300q lacks %q", r.stdout, fill(c.StdoutHas))
			}
			if c.Stderr != nil && r.stderr != fill(*c.Stderr) {
				t.Errorf("stderr %q, want %q", r.stderr, fill(*c.Stderr))
			}
			for _, part := range c.StderrHas {
				if !strings.Contains(r.stderr, fill(part)) {
					t.Errorf("stderr %q lacks %q", r.stderr, fill(part))
				}
			}
			if *c.Exit != 0 && (strings.Count(strings.TrimSuffix(r.stderr, "\n"), "\n") > 0 && !slices.Contains(multiLine, c.Name)) {
				t.Errorf("a failure of more than one line on stderr: %q", r.stderr)
			}
		})
	}
}

// multiLine are the cases whose failure says more than a line: the list of
// commands and topics after a help topic that is none, and a jq mistake's
// caret under its column.
var multiLine = []string{"help of no such topic", "a jq expression that does not parse"}

// closedAddress is http://127.0.0.1:PORT where nothing listens.
func closedAddress(t *testing.T) string { return "http://" + testkit.DeadAddr(t) }
