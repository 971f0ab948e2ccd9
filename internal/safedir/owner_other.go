//go:build !unix

package safedir

import "io/fs"

// foreign has no owner to compare here: Windows protects a user's profile
// directories with their ACLs.
func foreign(fs.FileInfo) string { return "" }
