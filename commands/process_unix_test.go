//go:build unix

package commands

import (
	"errors"
	"strings"
	"syscall"
	"testing"
)

// processExists reports whether a process pid exists (kill(pid, 0)).
func processExists(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// unixOnly runs a test on Unix alone, for what it needs there.
func unixOnly(*testing.T, string) {}

// osText reports whether s has the OS's words for what want says in
// Unix's.
func osText(s, want string) bool { return strings.Contains(s, want) }

// Commands for --sampling-cmd, in the platform's shell (sh -c).
func shellEcho(text string) string      { return `echo '` + text + `'` }
func shellSaveStdin(path string) string { return `cat > '` + path + `'` }
func shellThen(a, b string) string      { return a + "; " + b }
