package main

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The direction of imports is a design rule (main → commands → {mcp, output});
// this test keeps it.

func TestBinaryDoesNotImportTheSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/modelcontextprotocol/go-sdk") || strings.Contains(pkg, "/mcptest") || strings.Contains(pkg, "/internal/demoserver") {
			t.Errorf("the mcpv binary depends on %s (allowed in tests and the example server only)", pkg)
		}
	}
}

func TestPackageRules(t *testing.T) {
	rules := []struct {
		dir            string
		forbidImports  []string
		forbidSelector []string
	}{
		{
			dir: "mcp",
			forbidImports: []string{"github.com/alecthomas/kong", "github.com/itchyny/gojq",
				"github.com/mattn/go-isatty", "github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/output"},
			forbidSelector: []string{"os.Stdout", "os.Stderr", "os.Stdin", "os.Exit", "os.Getenv", "os.LookupEnv", "os.Environ"},
		},
		{
			dir:           "output",
			forbidImports: []string{"github.com/mcpv/mcpv/mcp", "github.com/mcpv/mcpv/commands", "github.com/alecthomas/kong"},
		},
	}
	// The libraries beside mcp take the environment and the streams as
	// arguments too, and know nothing of the command line.
	for _, dir := range []string{"oauth", "config", "trust", "redact"} {
		rules = append(rules, struct {
			dir            string
			forbidImports  []string
			forbidSelector []string
		}{
			dir: dir,
			forbidImports: []string{"github.com/alecthomas/kong", "github.com/itchyny/gojq", "github.com/mattn/go-isatty",
				"github.com/mcpv/mcpv/commands", "github.com/mcpv/mcpv/output", "github.com/mcpv/mcpv/mcp"},
			forbidSelector: []string{"os.Stdout", "os.Stderr", "os.Stdin", "os.Exit", "os.Getenv", "os.LookupEnv", "os.Environ"},
		})
	}
	for _, r := range rules {
		files, _ := filepath.Glob(filepath.Join(r.dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no Go files in %s", r.dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				for _, bad := range r.forbidImports {
					if path == bad {
						t.Errorf("%s imports %s", f, path)
					}
				}
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, sel := range r.forbidSelector {
				if strings.Contains(string(src), sel) {
					t.Errorf("%s uses %s", f, sel)
				}
			}
		}
	}
}
