// Command fakeserver is mcptest's fake stdio server as a program of its
// own (mcptest.Program): started with MCPV_FAKE naming its behaviours, it
// serves them on stdin and stdout.
package main

import (
	"fmt"
	"os"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

func main() {
	if !mcptest.RunIfRequested() {
		fmt.Fprintln(os.Stderr, "fakeserver: set "+mcptest.EnvVar+" to the behaviours to serve")
		os.Exit(2)
	}
}
