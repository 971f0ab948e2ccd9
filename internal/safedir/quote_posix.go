//go:build !windows

package safedir

import "strings"

// quote quotes a path for a POSIX shell.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
