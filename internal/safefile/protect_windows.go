package safefile

import "github.com/mcpv/mcpv/internal/winacl"

// protect gives a new file an access list that lets its owner alone in
// (Windows reports every file as mode 0666; CreateTemp's mode says
// nothing there).
func protect(path string) error { return winacl.Protect(path) }
