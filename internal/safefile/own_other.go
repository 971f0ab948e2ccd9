//go:build !unix

package safefile

import "io/fs"

// notOwn: on this system a file the user can open for writing is taken
// as theirs.
func notOwn(string, fs.FileInfo) error { return nil }

// othersMayWrite: on this system the mode bits say nothing of who may
// write a file.
func othersMayWrite(string, fs.FileInfo) error { return nil }

// othersMayRead: nor who may read it.
func othersMayRead(string, fs.FileInfo) error { return nil }
