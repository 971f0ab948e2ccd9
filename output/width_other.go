//go:build !unix && !windows

package output

import "os"

// terminalWidth is unknown here.
func terminalWidth(*os.File) int { return 0 }
