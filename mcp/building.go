package mcp

// Building reports whether the server is the Go toolchain still building
// it (go run, before the program it builds starts), known on Linux: its
// start is then a compiler's time, which a start bound need not count.
func (t *CommandTransport) Building() bool {
	return t.cmd != nil && t.cmd.Process != nil && building(t.cmd.Process.Pid)
}
