package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The direction of imports is a design rule (main → commands → {mcp, output});
// this test keeps it.

func TestBinaryDoesNotImportTheSDK(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for pkg := range strings.FieldsSeq(string(out)) {
		if strings.HasPrefix(pkg, "github.com/modelcontextprotocol/go-sdk") || strings.Contains(pkg, "/mcptest") || strings.Contains(pkg, "/internal/demoserver") {
			t.Errorf("the mcpv binary depends on %s (allowed in tests and the example server only)", pkg)
		}
		// Its package init compiles five metaschemas on every run; mcpv
		// validates with internal/jsonschema, and checks it against this one
		// in tests only.
		if strings.HasPrefix(pkg, "github.com/santhosh-tekuri/jsonschema") {
			t.Errorf("the mcpv binary depends on %s (a reference for internal/jsonschema's tests only)", pkg)
		}
		// mcpv signs its JWTs itself; the JOSE library reads them in
		// oauth's tests only.
		if strings.HasPrefix(pkg, "github.com/golang-jwt/") {
			t.Errorf("the mcpv binary depends on %s (a reference for oauth's tests only)", pkg)
		}
	}
}

func TestPackageRules(t *testing.T) {
	type rule struct {
		dir            string
		forbidImports  []string
		forbidSelector []string
		leaf           bool // imports nothing of mcpv's
	}
	rules := []rule{
		{
			dir: "mcp",
			forbidImports: []string{"github.com/alecthomas/kong", "github.com/itchyny/gojq",
				"github.com/mattn/go-isatty", "github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/output"},
			forbidSelector: []string{"os.Stdout", "os.Stderr", "os.Stdin", "os.Exit", "os.Getenv", "os.LookupEnv", "os.Environ"},
		},
		{
			// Streams, colour, the printer and the logger: jq itself is
			// internal/jq's.
			dir:           "output",
			forbidImports: []string{"github.com/mcpv/mcpv/mcp", "github.com/mcpv/mcpv/commands", "github.com/alecthomas/kong", "github.com/itchyny/gojq"},
		},
	}
	// The session layer under the command line is given its environment
	// and streams (Env, Hooks); only Env's System reads the process's.
	rules = append(rules, rule{
		dir: "internal/connect",
		forbidImports: []string{"github.com/alecthomas/kong", "github.com/itchyny/gojq", "github.com/mattn/go-isatty",
			"github.com/mcpv/mcpv/commands"},
		forbidSelector: []string{"os.Stdout", "os.Stderr", "os.Stdin", "os.Exit", "os.Getenv", "os.LookupEnv"},
	}, rule{
		dir:           "internal/completion",
		forbidImports: []string{"github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/mcp", "github.com/mcpv/mcpv/output", "github.com/mcpv/mcpv/internal/connect"},
	}, rule{
		// The man page is a function of the grammar alone.
		dir:           "internal/manpage",
		forbidImports: []string{"github.com/mcpv/mcpv/mcp", "github.com/mcpv/mcpv/output", "github.com/mcpv/mcpv/internal/connect"},
	}, rule{
		dir:           "internal/safetext",
		forbidImports: []string{"github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/mcp", "github.com/mcpv/mcpv/output", "github.com/mcpv/mcpv/internal/connect"},
	}, rule{
		dir:           "internal/safedir",
		forbidImports: []string{"github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/mcp", "github.com/mcpv/mcpv/output", "github.com/mcpv/mcpv/internal/connect"},
	}, rule{
		// The reports are written from data alone.
		dir:           "internal/testreport",
		forbidImports: []string{"github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/mcp", "github.com/mcpv/mcpv/output", "github.com/mcpv/mcpv/internal/connect", "github.com/alecthomas/kong"},
	}, rule{
		// The test-file format: steps come out as words, which the command
		// line checks and runs.
		dir:           "internal/testfile",
		forbidImports: []string{"github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/mcp", "github.com/mcpv/mcpv/output", "github.com/alecthomas/kong", "github.com/mattn/go-isatty"},
	}, rule{
		// jq is not the terminal's: the printer (output) runs a filter,
		// and the test-file format and the mock run theirs, without
		// streams, colour or the terminal.
		dir:           "internal/jq",
		forbidImports: []string{"github.com/mcpv/mcpv/output", "github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/mcp", "github.com/alecthomas/kong", "github.com/mattn/go-isatty", "github.com/tidwall/pretty"},
	}, rule{
		// A server read from files has no terminal.
		dir:           "internal/mock",
		forbidImports: []string{"github.com/mcpv/mcpv/output", "github.com/mcpv/mcpv/commands", "github.com/alecthomas/kong", "github.com/mattn/go-isatty"},
	}, rule{
		// The runner runs steps through the session the command line gives it.
		dir:           "internal/testrun",
		forbidImports: []string{"github.com/mcpv/mcpv/commands", "github.com/alecthomas/kong", "github.com/mattn/go-isatty", "github.com/itchyny/gojq"},
	}, rule{
		// The kinds of error: whatever returns one need not pull in the
		// session opener with it.
		dir:  "internal/errkind",
		leaf: true,
	}, rule{
		dir:           "internal/ordered",
		forbidImports: []string{"github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/mcp", "github.com/mcpv/mcpv/output", "github.com/alecthomas/kong"},
	})
	// The libraries beside mcp take the environment and the streams as
	// arguments too, and know nothing of the command line.
	for _, dir := range []string{"internal/oauth", "internal/elicit", "internal/config", "internal/trust", "internal/redact"} {
		rules = append(rules, rule{
			dir: dir,
			forbidImports: []string{"github.com/alecthomas/kong", "github.com/itchyny/gojq", "github.com/mattn/go-isatty",
				"github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/output", "github.com/mcpv/mcpv/mcp"},
			forbidSelector: []string{"os.Stdout", "os.Stderr", "os.Stdin", "os.Exit", "os.Getenv", "os.LookupEnv", "os.Environ"},
		})
	}
	for _, r := range rules {
		forEachSource(t, r.dir, func(f string, _ *token.FileSet, file *ast.File, src []byte) {
			for _, imp := range file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if r.leaf && strings.HasPrefix(path, "github.com/mcpv/mcpv/") {
					t.Errorf("%s imports %s (it imports nothing of mcpv's)", f, path)
				}
				for _, bad := range r.forbidImports {
					if path == bad {
						t.Errorf("%s imports %s", f, path)
					}
				}
			}
			for _, sel := range r.forbidSelector {
				if strings.Contains(string(src), sel) {
					t.Errorf("%s uses %s", f, sel)
				}
			}
		})
	}
}

// forEachSource parses each non-test Go file in dir.
func forEachSource(t *testing.T, dir string, fn func(path string, fset *token.FileSet, file *ast.File, src []byte)) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		fn(f, fset, file, src)
	}
}

// The protocol, OAuth and elicitation libraries report; the command line
// presents. None of their strings is a preformatted "mcpv: " line or names
// a command-line flag.
func TestLibrariesDoNotPresent(t *testing.T) {
	flag := regexp.MustCompile(`(^|[\s(])--[a-z][a-z-]+`)
	for _, dir := range []string{"mcp", "internal/oauth", "internal/elicit"} {
		forEachSource(t, dir, func(_ string, fset *token.FileSet, file *ast.File, _ []byte) {
			ast.Inspect(file, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				if strings.HasPrefix(s, "mcpv: ") || flag.MatchString(s) {
					t.Errorf("%s: %q: libraries report, the command line presents", fset.Position(lit.Pos()), s)
				}
				return true
			})
		})
	}
}

// The house has one direction: main and the programs under commands/ use
// commands, which uses the rest; nothing under internal/, mcp/ or output/
// imports commands (a generator that needs the grammar lives beside it,
// as commands/mcpv-release does), so that no library drags the whole command
// line in after it.
func TestNothingBelowImportsCommands(t *testing.T) {
	pkgs := map[string]*mapPackage{}
	for _, goos := range mapOSes {
		if err := listPackages(goos, pkgs); err != nil {
			t.Fatal(err)
		}
	}
	for name, p := range pkgs {
		above := name == rootPackageTag || name == "commands" || strings.HasPrefix(name, "commands/")
		if p.imports["commands"] && !above {
			t.Errorf("%s imports commands", name)
		}
	}
}
