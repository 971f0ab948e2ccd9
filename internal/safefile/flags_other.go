//go:build !unix

package safefile

// This system has no O_NOFOLLOW: Tree and CreateNoFollow look at the
// name with Lstat, and compare it with what was opened, instead. Nor
// does opening a named pipe or device here wait.
const (
	noFollow = 0
	nonBlock = 0
)
