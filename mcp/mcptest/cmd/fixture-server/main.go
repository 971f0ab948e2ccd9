// Command fixture-server is an MCP server over stdio whose whole surface
// comes from a JSON spec file (see mcptest.Spec):
//
//	fixture-server SPEC.json
//
// It serves until its stdin ends.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: fixture-server SPEC.json")
		return 2
	}
	spec, err := mcptest.LoadSpec(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "fixture-server: %v\n", err)
		return 2
	}
	if err := mcptest.ServeSpec(spec, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "fixture-server: %v\n", err)
		return 1
	}
	return 0
}
