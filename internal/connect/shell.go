package connect

// A command given as one string (--sampling-cmd) runs through the
// platform's shell: sh -c on Unix, the system's cmd.exe on Windows, so that
// it is written as the user would type it there.

// cmdLine is the command line that has cmd.exe run line as typed at its
// prompt: /s with the whole line in one pair of quotes keeps cmd from
// second-guessing which quotes to strip, /d skips AutoRun commands from
// the registry.
func cmdLine(cmdExe, line string) string {
	return `"` + cmdExe + `" /d /s /c "` + line + `"`
}
