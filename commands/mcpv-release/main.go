// Command mcpv-release writes what a release ships beside mcpv's binaries
// that only mcpv's own packages can write:
//
//	mcpv-release man    mcpv(1), the man page, from the command-line grammar
//
// "mcpv-release man -h" lists its flags. .goreleaser.yaml and
// scripts/packages.sh run it. The container image is written by
// scripts/image and the archives' SBOMs by scripts/sbom, modules of their
// own outside mcpv.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "man" {
		usage()
	}
	runMan(os.Args[2:])
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: mcpv-release man [flags] (mcpv-release man -h lists its flags)")
	os.Exit(2)
}

// fail ends the run with code after a message of what failed.
func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mcpv-release "+format+"\n", args...)
	os.Exit(code)
}
