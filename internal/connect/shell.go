package connect

import (
	"path/filepath"
	"strings"
)

// A command given as one string (--sampling-cmd) runs through the
// platform's shell: sh -c on Unix, cmd.exe on Windows, so that it is
// written as the user would type it there.

// comSpec is cmd.exe's path: %ComSpec%, else the one under %SystemRoot%.
func comSpec(getenv func(string) string) string {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if c := getenv("ComSpec"); filepath.IsAbs(c) || strings.Contains(c, `:\`) {
		return c
	}
	root := getenv("SystemRoot")
	if root == "" {
		root = `C:\Windows`
	}
	return root + `\System32\cmd.exe`
}

// cmdLine is the command line that has cmd.exe run line as typed at its
// prompt: /s with the whole line in one pair of quotes keeps cmd from
// second-guessing which quotes to strip, /d skips AutoRun commands from
// the registry.
func cmdLine(comspec, line string) string {
	return `"` + comspec + `" /d /s /c "` + line + `"`
}
