package safedir

// Join, IsAbs and CheckName join and judge paths for the OS a run is on, passed in
// rather than taken from the build, so that each OS's rules for where
// mcpv keeps and finds files are tested on every OS.

import (
	"fmt"
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

// CheckName is the one rule for a name mcpv makes a file name or a URL's
// path segment of (a kept session's files, a gateway server's path): 1
// to 64 letters, digits, '.', '_' or '-', the first a letter or digit,
// so that it is the same name on every OS, in a path and in a URL, and
// never . or .., an option or a hidden file. noun says what the name is
// in the error ("a server's name").
func CheckName(noun, name string) error {
	ok := len(name) > 0 && len(name) <= 64
	for i := 0; ok && i < len(name); i++ {
		b := name[i]
		alnum := b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
		ok = alnum || i > 0 && (b == '.' || b == '_' || b == '-')
	}
	if !ok {
		return fmt.Errorf("%q: %s here holds letters, digits and -._ alone, 1 to 64 of them, the first a letter or digit (it names a file or a path)", name, noun)
	}
	return nil
}
