// Command argvecho prints its arguments (os.Args[1:]) as a JSON array on
// stdout, for checking on Windows that a batch file server gets its
// arguments literally. shim.cmd beside it runs it the way npm's shims run
// node: @"%~dp0argvecho.exe" %*. Built as argvecho.exe next to shim.cmd:
//
//	mcp.batchCommandLine's line for shim.cmd → cmd.exe → shim.cmd → argvecho.exe
//
// Go splits its command line by the C runtime's rule from before 2008: ""
// inside quotes is one " and ends the quoting, where node and Python go on
// quoting. An argument holding an odd number of " can therefore reach this
// program split, or run together with the next; leave such arguments to
// the unit tests (mcp/batch_windows_test.go splits by the newer rule).
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false) // & < > as they are
	if err := enc.Encode(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "argvecho:", err)
		os.Exit(1)
	}
}
