package mcp

// toolchain are the processes of a build as the go command runs them:
// itself, its tools, a C toolchain for cgo, version control for a module,
// and a shell a command line may put around go.
var toolchain = map[string]bool{
	"go": true, "compile": true, "link": true, "asm": true, "cgo": true, "vet": true, "buildid": true, "pack": true,
	"gcc": true, "cc": true, "cc1": true, "clang": true, "as": true, "ld": true, "collect2": true,
	"git": true, "git-remote-http": true, "git-remote-https": true, "hg": true,
	"sh": true, "bash": true, "dash": true,
}

// Building reports whether the server is the Go toolchain still building
// it (go run, before the program it builds starts), known on Linux: its
// start is then a compiler's time, which a start bound need not count.
func (t *CommandTransport) Building() bool {
	if t.cmd == nil || t.cmd.Process == nil {
		return false
	}
	return building(t.cmd.Process.Pid)
}
