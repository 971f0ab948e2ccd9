//go:build !windows

package safedir

import "github.com/mcpv/mcpv/internal/shellwords"

// quote quotes a path for a POSIX shell.
var quote = shellwords.SingleQuote

// The fixes where the mode says who may write: the owner taken back, the
// others' write bits cleared.
func ownFix(d string) string        { return "chown \"$(id -u)\" " + quote(d) }
func writeFix(d string) string      { return "chmod go-w " + quote(d) }
func removeCommand(d string) string { return "rm " + quote(d) }
