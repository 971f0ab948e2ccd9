package commands

import (
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// processExists reports whether a process pid exists and has not exited.
func processExists(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}

// unixOnly skips a test that needs what Windows has not.
func unixOnly(t *testing.T, needs string) { t.Skip("needs " + needs) }

// osText reports whether s has the OS's words for what want says in
// Unix's: Windows says "cannot find the path" (wine "Path not found") for
// "no such file", and "actively refused" (wine "Connection refused.") for
// "connection refused".
func osText(s, want string) bool {
	switch want {
	case "no such file":
		return strings.Contains(s, "cannot find") || strings.Contains(s, "not found")
	case "connection refused":
		return strings.Contains(s, "connectex: ")
	}
	return strings.Contains(s, want)
}

// Commands for --sampling-cmd, in the platform's shell (cmd.exe /c): echo
// prints the rest of its line as it is.
func shellEcho(text string) string      { return `echo ` + text }
func shellSaveStdin(path string) string { return `more > "` + path + `"` }
func shellThen(a, b string) string      { return a + " & " + b }
