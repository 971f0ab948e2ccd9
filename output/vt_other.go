//go:build !windows

package output

import "os"

// enableVT: Unix terminals interpret escape sequences.
func enableVT(*os.File) bool { return true }
