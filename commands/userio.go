package commands

// How a run reaches its user beyond stdout and stderr:
// the terminal, for questions (on Unix /dev/tty, on Windows the console's
// CONIN$ and CONOUT$), and the browser, for a URL ($BROWSER, else the
// platform's opener).

import (
	"os/exec"

	"github.com/mcpv/mcpv/internal/elicit"
)

// newTerminal opens the terminal for questions when stderr is one (errTTY);
// nil otherwise, or when it cannot be opened. closers gathers what must be
// closed when the run ends.
func newTerminal(errTTY bool, closers *[]func() error) elicit.Terminal {
	if !errTTY {
		return nil
	}
	in, out, err := openConsole()
	if err != nil {
		return nil
	}
	*closers = append(*closers, in.Close)
	if out != in {
		*closers = append(*closers, out.Close)
	}
	return elicit.NewTerminal(in, out)
}

// browserOpener opens a URL with $BROWSER (as getenv has it), else the
// platform's opener, started with environ. It does not wait for the
// browser; the URL is shown on stderr either way.
func browserOpener(goos string, getenv func(string) string, environ []string) func(url string) error {
	return func(url string) error {
		name, args := browserCommand(goos, getenv("BROWSER"), url)
		cmd := exec.Command(name, args...)
		cmd.Env = environ
		if err := cmd.Start(); err != nil {
			return err
		}
		go cmd.Wait() // browser opener reaper: reaps the opener; it ends on its own, mcpv does not wait for it
		return nil
	}
}

// canOpenBrowser reports whether a browser can be opened here for the
// user to see: $BROWSER names one; else not over ssh (SSH_CONNECTION,
// SSH_TTY), and on a Unix other than macOS only with a display
// (DISPLAY, WAYLAND_DISPLAY).
func canOpenBrowser(goos string, getenv func(string) string) bool {
	switch {
	case getenv("BROWSER") != "":
		return true
	case getenv("SSH_CONNECTION") != "" || getenv("SSH_TTY") != "":
		return false
	case goos == "darwin" || goos == "windows":
		return true
	}
	return getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != ""
}

// browserCommand is the program that opens url, and its arguments. The URL
// is always an argument of its own, never part of a line a shell parses.
// On Unix $BROWSER is a shell command, as xdg-open and git read it; on
// Windows it is the browser's path, and the platform's opener is the URL
// protocol handler (what a double-click on a link runs).
func browserCommand(goos, browserEnv, url string) (string, []string) {
	switch {
	case browserEnv != "" && goos == "windows":
		return browserEnv, []string{url}
	case browserEnv != "":
		return "sh", []string{"-c", browserEnv + ` "$1"`, "browser", url}
	case goos == "darwin":
		return "open", []string{url}
	case goos == "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", url}
	default:
		return "xdg-open", []string{url}
	}
}
