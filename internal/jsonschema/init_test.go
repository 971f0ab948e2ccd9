package jsonschema_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The package costs nothing at start-up: no init functions, and no
// package-level variable that needs code to initialise it (a regexp, a
// table built by a call).
func TestNothingAtInit(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Name.Name == "init" && decl.Recv == nil {
					t.Errorf("%s has an init function", f)
				}
			case *ast.GenDecl:
				if decl.Tok != token.VAR {
					continue
				}
				for _, spec := range decl.Specs {
					for _, v := range spec.(*ast.ValueSpec).Values {
						ast.Inspect(v, func(n ast.Node) bool {
							if _, ok := n.(*ast.CallExpr); ok {
								t.Errorf("%s: a package-level variable is initialised by a call", f)
							}
							_, lit := n.(*ast.CompositeLit)
							if lit {
								t.Errorf("%s: a package-level variable is initialised by a composite literal", f)
							}
							return true
						})
					}
				}
			}
		}
	}
}
