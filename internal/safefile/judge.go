package safefile

import (
	"io/fs"
	"os"
)

// Want is what a file or directory must be for mcpv to trust it: each bit
// a condition, every owner and mode check of mcpv's judged by Judge.
type Want uint8

const (
	// Mine: the user owns it.
	Mine Want = 1 << iota
	// RootMay: with Mine, the system (root) may own it too.
	RootMay
	// Unread: no other user may read or write it.
	Unread
	// Unwritten: no other user may write it (a directory whose sticky bit
	// keeps each user to their own files aside).
	Unwritten
	// NotWorldWritten: not every user of the machine may write it.
	NotWorldWritten
)

// Judge says how the file or directory at path is open to other users
// against what want asks: why, in a phrase that follows its path
// ("belongs to user 1001, not to you (1000)", "can be read by others
// (mode 0644)"), and which condition failed; "" and 0 when all hold. On
// Unix it reads fi's owner and mode; on Windows, where every file's mode
// is 0666 and owners live in access lists, f's access list (or path's,
// when f is nil).
func Judge(path string, f *os.File, fi fs.FileInfo, want Want) (why string, failed Want, err error) {
	return judge(path, f, fi, os.Getuid(), want)
}
