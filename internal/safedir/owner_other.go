//go:build !unix && !windows

package safedir

import "io/fs"

// notPrivate has no owner to compare here, only the mode.
func notPrivate(d string, fi fs.FileInfo) (why, fix string, err error) { return modeWritable(d, fi) }

func removeCommand(d string) string { return "rm " + quote(d) }
