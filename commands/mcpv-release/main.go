// Command mcpv-release writes what a release ships beside mcpv's binaries
// (internal/release), one subcommand each:
//
//	mcpv-release man    mcpv(1), the man page, from the command-line grammar
//	mcpv-release image  the container image, as an OCI image layout in a tar
//
// "mcpv-release CMD -h" lists a subcommand's flags. .goreleaser.yaml,
// the release workflow and scripts/packages.sh run it; the archives'
// SBOMs are written by scripts/sbom, a module of its own.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "man":
		runMan(args)
	case "image":
		runImage(args)
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: mcpv-release man|image [flags] (mcpv-release CMD -h lists a command's flags)")
	os.Exit(2)
}

// fail ends the run with code after a message of what failed.
func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mcpv-release "+format+"\n", args...)
	os.Exit(code)
}
