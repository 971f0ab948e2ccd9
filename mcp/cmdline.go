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
// arguments given:
//
//   - /d skips AutoRun commands; /e:on enables the %VAR:~,% substring
//     syntax used below; /v:off keeps ! inert; /s /c runs what follows with
//     its outer pair of quotes removed and nothing else touched.
//   - Every argument, and the batch file's path, is quoted, so cmd reads
//     every byte of them inside quotes, where & | < > ^ ( ) , ; = and
//     spaces are plain text.
//   - A " is doubled. cmd toggles its quote state twice and stays inside
//     quotes; the C runtime (since 2008, which node and Python use) reads ""
//     inside quotes as one " and stays inside too.
//   - Backslashes are literal to cmd. For the C runtime they are doubled
//     where they precede a " (one written inside the argument, or the
//     closing quote), so that they reach the program as written.
//   - cmd expands %NAME% inside quotes too, so each % becomes %%cd:~,%:
//     cmd reads %% as a % that starts no name, then %cd:~,% as an empty
//     substring of the current directory, which leaves one %.
//   - A line feed ends cmd's command and a carriage return is dropped, and
//     a NUL cannot be in a command line at all: an argument holding one is
//     refused.
//
// A program that splits its command line by the rule the C runtime had
// before 2008 (Go programs do) leaves quoting after a "" inside quotes, so
// an argument holding an odd number of " can reach it split, or run
// together with the next. cmd acts on nothing either way.

// batchCommandLine is the CreateProcess command line that runs the batch
// file bat with args through the cmd.exe at comspec. It fails, naming the
// argument (counted from 1), when an argument cannot pass through cmd.exe.
func batchCommandLine(comspec, bat string, args []string) (string, error) {
	var b strings.Builder
	b.WriteString(`"` + comspec + `" /d /e:on /v:off /s /c "`)
	if why := unpassable(bat); why != "" {
		return "", fmt.Errorf("the batch file's path %.60q holds %s, which cmd.exe cannot run", bat, why)
	}
	b.WriteString(cmdQuote(bat))
	for i, a := range args {
		if why := unpassable(a); why != "" {
			return "", fmt.Errorf("argument %d (%.40q) holds %s, which cmd.exe cannot pass to the batch file %s", i+1, a, why, bat)
		}
		b.WriteByte(' ')
		b.WriteString(cmdQuote(a))
	}
	b.WriteByte('"')
	return b.String(), nil
}

// unpassable names the first character of s that no quoting carries
// through cmd.exe, or returns "".
func unpassable(s string) string {
	switch i := strings.IndexAny(s, "\n\r\x00"); {
	case i < 0:
		return ""
	case s[i] == '\n':
		return "a line feed"
	case s[i] == '\r':
		return "a carriage return"
	default:
		return "a NUL character"
	}
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

// batchFile reports whether Windows runs path through cmd.exe: whether it
// names a .cmd or .bat file, once the trailing dots and spaces Windows
// drops from a file name are dropped (run.cmd. is run.cmd). name is path
// without them.
func batchFile(path string) (name string, ok bool) {
	name = strings.TrimRight(path, ". ")
	i := strings.LastIndexByte(name, '.')
	if i < 0 || strings.ContainsAny(name[i:], `\/`) {
		return path, false
	}
	ext := strings.ToLower(name[i:])
	return name, ext == ".cmd" || ext == ".bat"
}
