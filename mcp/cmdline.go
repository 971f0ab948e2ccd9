package mcp

import (
	"fmt"
	"strings"
)

// On Windows a batch file (.cmd, .bat: npx.cmd, uvx shims) runs through
// cmd.exe, which parses its command line again before the program behind
// the shim does: & | < > ^ ( ) end or redirect the command, %NAME% expands,
// and a " inside an argument ends cmd's quoting so that what follows runs.
// batchCommandLine builds a line that cmd.exe and then the C runtime's
// argument parser (the program behind the shim) both read as exactly the
// arguments given: every argument is quoted; a " is doubled (both parsers
// read "" inside quotes as one " and stay inside); backslashes before a
// quote are doubled for the C runtime; % becomes %%cd:~,% (the second
// part is an empty substring of %cd%, so cmd leaves one %), and ! is inert
// under /v:off. An argument with a line break or NUL cannot be carried
// through cmd.exe at all and is refused. The program behind the shim is
// assumed to split its command line as the C runtime has since 2008 (and
// CommandLineToArgvW): node, Python. A Go program reads "" inside quotes
// by the older rule, so an argument holding a " may reach it split; cmd
// acts on nothing either way.

// batchCommandLine is the CreateProcess command line that runs the batch
// file bat with args through the cmd.exe at comspec.
func batchCommandLine(comspec, bat string, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(`"` + comspec + `" /d /e:on /v:off /s /c "`)
	b.WriteString(cmdQuote(bat))
	for i, a := range args {
		if j := strings.IndexAny(a, "\r\n\x00"); j >= 0 {
			return "", fmt.Errorf("argument %d (%.40q) holds a line break or NUL, which cmd.exe cannot pass to the batch file %s", i+1, a, bat)
		}
		b.WriteByte(' ')
		b.WriteString(cmdQuote(a))
	}
	b.WriteByte('"')
	return b.String(), nil
}

// cmdQuote quotes one argument for cmd.exe and the C runtime.
func cmdQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	backslashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			backslashes++
			b.WriteByte(c)
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, backslashes)) // doubled: literal before a quote
			b.WriteString(`""`)
		case '%':
			b.WriteString(`%%cd:~,%`)
		default:
			b.WriteByte(c)
		}
		backslashes = 0
	}
	b.WriteString(strings.Repeat(`\`, backslashes)) // doubled before the closing quote
	b.WriteByte('"')
	return b.String()
}

// isBatch reports whether path names a batch file, which Windows runs
// through cmd.exe.
func isBatch(path string) bool {
	i := strings.LastIndexByte(path, '.')
	if i < 0 || strings.ContainsAny(path[i:], `\/`) {
		return false
	}
	ext := strings.ToLower(path[i:])
	return ext == ".cmd" || ext == ".bat"
}
