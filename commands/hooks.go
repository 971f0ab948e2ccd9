package commands

import (
	"os"
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

// openTerminal opens /dev/tty for questions when stderr is a terminal; nil
// otherwise.
func openTerminal(ios *output.Streams, closers *[]func() error) elicit.Terminal {
	if !ios.ErrTTY {
		return nil
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	*closers = append(*closers, f.Close)
	return elicit.NewTerminal(f, f)
}

// browser opens a URL with $BROWSER, else the platform's opener. It does
// not wait for the browser; the URL is shown on stderr either way.
func browser(env connect.Env) func(url string) error {
	return func(url string) error {
		var cmd *exec.Cmd
		switch b := env.Getenv("BROWSER"); {
		case b != "":
			cmd = exec.Command("sh", "-c", b+` "$1"`, "browser", url)
		case env.GOOS == "darwin":
			cmd = exec.Command("open", url)
		default:
			cmd = exec.Command("xdg-open", url)
		}
		cmd.Env = env.Environ
		if err := cmd.Start(); err != nil {
			return err
		}
		go cmd.Wait() // reaps the opener; it ends on its own, mcpv does not wait for it
		return nil
	}
}
