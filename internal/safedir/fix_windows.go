package safedir

import "strings"

// The fixes on Windows: the owner taken back, the access list made the
// user's alone.
func ownFix(d string) string { return "takeown /f " + quote(d) }
func writeFix(d string) string {
	return "icacls " + quote(d) + ` /inheritance:r /grant:r "%USERNAME%:(OI)(CI)F"`
}

func removeCommand(d string) string { return "rmdir " + quote(d) }

// quote quotes a path for cmd.exe and PowerShell (paths hold no '"').
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, "") + `"` }
