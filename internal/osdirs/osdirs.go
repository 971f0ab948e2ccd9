// Package osdirs joins and judges paths for the OS a run is on, passed in
// rather than taken from the build, so that each OS's rules for where
// mcpv keeps and finds files are tested on every OS.
package osdirs

import (
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// Join joins path elements with goos's separator. For the OS mcpv runs on
// it is filepath.Join; for another it follows that OS's rules.
func Join(goos string, elem ...string) string {
	switch {
	case goos == runtime.GOOS:
		return filepath.Join(elem...)
	case goos != "windows":
		return path.Join(elem...)
	}
	var parts []string
	for _, e := range elem {
		if e = strings.TrimRight(strings.ReplaceAll(e, "/", `\`), `\`); e != "" {
			parts = append(parts, e)
		}
	}
	return strings.Join(parts, `\`)
}

// IsAbs reports whether p is absolute on goos.
func IsAbs(goos, p string) bool {
	switch {
	case goos == runtime.GOOS:
		return filepath.IsAbs(p)
	case goos != "windows":
		return strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}
