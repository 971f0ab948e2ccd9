package commands

import (
	"fmt"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/elicit"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"

	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
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
		Terminal:     func() elicit.Terminal { return newTerminal(ios.ErrTTY, closers) },
		OpenURL:      browserOpener(env.GOOS, env.Getenv, env.Environ),
		NoBrowser:    !canOpenBrowser(env.GOOS, env.Getenv),
		ShowDevice:   func(dc oauth.DeviceCode) { fmt.Fprintln(ios.Err, "mcpv: "+deviceLine(dc)) },
		Interactive:  ios.InTTY && ios.ErrTTY,
		Events:       events,
		Secret:       scrub.Add,
		Sent:         scrub.Add,
		Mask:         scrub.String,
	}
}

// deviceLine is what a device login tells the user: where to go, the
// code to enter there, and the link that holds it.
func deviceLine(dc oauth.DeviceCode) string {
	line := fmt.Sprintf("to log in, open %s and enter the code %s", safetext.Line(dc.VerificationURI), safetext.Line(dc.UserCode))
	if dc.VerificationURIComplete != "" {
		line += fmt.Sprintf(" (or open %s, which holds it)", safetext.Line(dc.VerificationURIComplete))
	}
	if dc.Elsewhere != "" {
		line += "; note: " + safetext.Line(dc.Elsewhere)
	}
	return line + "; waiting (Ctrl-C gives up)"
}
