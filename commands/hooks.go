package commands

import (
	"os/exec"

	"github.com/mcpv/mcpv/elicit"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
	"github.com/mcpv/mcpv/redact"
)

// hooks are how a session reaches the user of this run: stderr (scrubbed
// of secrets), the progress line, the terminal for questions, the browser.
// closers gathers what must be closed when the run ends. On a terminal the
// server's own stderr goes through safetext, so that it can colour its logs
// but not move the cursor, set the title or rewrite what mcpv printed;
// elsewhere (a file, a pipe) it is passed on byte for byte.
func hooks(ios *output.Streams, env connect.Env, events *connect.EventLog, scrub *redact.Scrubber, closers *[]func() error) connect.Hooks {
	serverErr := ios.Err
	if ios.ErrTTY {
		w := safetext.NewWriter(ios.Err)
		*closers = append(*closers, w.Flush)
		serverErr = w
	}
	return connect.Hooks{
		Client:       mcp.Implementation{Name: "mcpv", Version: Version},
		ServerStderr: serverErr,
		Stderr:       ios.Err,
		Log:          output.NewLogger(ios.Err),
		Status:       ios.Status,
		Terminal:     func() elicit.Terminal { return openTerminal(ios, closers) },
		OpenURL:      browser(env),
		Interactive:  ios.InTTY && ios.ErrTTY,
		Events:       events,
		Secret:       scrub.Add,
	}
}

// openTerminal opens the terminal for questions when stderr is one (on
// Unix /dev/tty, on Windows the console's CONIN$ and CONOUT$); nil
// otherwise.
func openTerminal(ios *output.Streams, closers *[]func() error) elicit.Terminal {
	if !ios.ErrTTY {
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

// browser opens a URL with $BROWSER, else the platform's opener. It does
// not wait for the browser; the URL is shown on stderr either way.
func browser(env connect.Env) func(url string) error {
	return func(url string) error {
		name, args := browserCommand(env.GOOS, env.Getenv("BROWSER"), url)
		cmd := exec.Command(name, args...)
		cmd.Env = env.Environ
		if err := cmd.Start(); err != nil {
			return err
		}
		go cmd.Wait() // reaps the opener; it ends on its own, mcpv does not wait for it
		return nil
	}
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
