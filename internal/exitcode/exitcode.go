// Package exitcode is mcpv's exit-code contract (README, --help) and the
// mapping to it from the errors mcpv's packages return, with what the
// command line adds to their messages: the flags that would help, and a
// pointer to --help after a usage mistake. The command line's own errors
// (a batch's first failure, a session keeper's code, an interrupt) it maps
// first, itself.
package exitcode

import (
	"errors"
	"strings"

	"github.com/mcpv/mcpv/internal/elicit"
	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/oauth"

	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/skills"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/internal/watch"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// The exit-code contract.
const (
	OK        = 0
	ToolError = 1
	Usage     = 2
	Server    = 3
	Transport = 4
	Auth      = 5
	Filter    = 6
	Pinned    = 7
	Timeout   = 124
	Interrupt = 130
)

// codeURLElicitationRequired is the error a server answers when the user
// must visit a URL before the request can succeed
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-elicitation-required-error).
const codeURLElicitationRequired = -32042

// Of maps an error to its exit code; refused reports the command line's
// refusals (exit 3, like a missing capability).
func Of(err error, refused func(error) bool) int {
	var filterErr *jq.FilterError
	var ended *mcp.TaskEndedError
	switch {
	case err == nil:
		return OK
	case ClosedStdout(err):
		return OK // stdout closed by the reader, e.g. | head -1
	case errors.As(err, new(*safedir.Error)):
		return Usage // a state directory to fix before anything can run
	case errors.As(err, new(*pin.Refusal)), errors.As(err, new(*pin.NoEntryError)):
		return Pinned
	case errors.As(err, new(*mcp.TimeoutError)), errors.As(err, new(*oauth.TimeoutError)):
		return Timeout
	case errors.As(err, new(*mcp.AuthError)), errors.As(err, new(*oauth.Error)), errors.As(err, new(*oauth.PermissionError)),
		errors.As(err, new(*oauth.LoginPendingError)):
		return Auth
	case errors.Is(err, toolcall.ErrFailed), errors.Is(err, output.ErrFalsy):
		return ToolError
	case errors.As(err, &filterErr) && filterErr.Runtime, errors.As(err, new(*jq.LimitError)):
		return Filter
	case errors.As(err, new(*errkind.UsageError)), errors.As(err, &filterErr), errors.As(err, new(*errkind.ConfigError)):
		return Usage
	case errors.As(err, new(*mcp.CallError)), errors.As(err, new(*mcp.CapabilityError)), refused(err), errors.As(err, new(*mcp.RefusedError)),
		errors.As(err, new(*mcp.ResultTypeError)), errors.As(err, new(*watch.UnacknowledgedError)), errors.As(err, new(*skills.Refusal)),
		errors.As(err, new(*toolcall.HeaderError)):
		return Server
	case errors.As(err, &ended):
		if ended.Failed() {
			return ToolError
		}
		return Server
	case errors.As(err, new(*mcp.TransportError)), errors.As(err, new(*mcp.VersionError)):
		return Transport
	}
	return Transport
}

// ClosedStdout reports a write to stdout that failed because its reader
// went away; a server's closed stdin is not that.
func ClosedStdout(err error) bool {
	var ce *output.ClosedError
	return errors.As(err, &ce) && errkind.BrokenPipe(ce.Err)
}

// Hint is what the command line can add to a library's error: the flags
// that would help.
func Hint(err error) string {
	var te *mcp.TimeoutError
	var oe *oauth.Error
	var ce *mcp.CapabilityError
	var pending *oauth.LoginPendingError
	switch {
	case errors.As(err, &pending):
		hint := "; then run '" + waitCommand(pending) + "', which returns once the login is complete"
		if pending.Port != "" { // a browser login's, not a device login's
			hint += "; with the browser on another machine, forward the port first: " + forward(pending.Port)
		}
		return hint
	case errors.As(err, &ce) && ce.Off:
		return " (--no-extension, or the config entry's extensions)"
	case errors.As(err, &te) && te.Cap:
		return " (--max-timeout)"
	case errors.As(err, new(*oauth.LoginTimeoutError)):
		return " (--login-timeout)"
	case errors.As(err, new(*oauth.TimeoutError)):
		return " (--timeout)"
	case errors.As(err, new(*oauth.PortInUseError)):
		return "; free it, or give another --redirect-port (one the authorization server has registered)"
	case errors.As(err, &oe) && oe.Need == oauth.NeedScope:
		return "; add it to --scope to ask for it"
	case errors.As(err, &oe) && oe.Need == oauth.NeedClient:
		return "; give a pre-registered --client-id (with --client-secret or --client-key for a machine grant)"
	case errors.As(err, &oe) && oe.Need == oauth.NeedLogin:
		return "; run 'mcpv auth login' with the same server, or use --auth auto"
	case errors.As(err, &oe) && oe.Need == oauth.NeedBearer:
		return "; if the server takes a bearer token of its own (mcpv serve --http prints one, or is given --http-token), send it with -H 'Authorization: Bearer TOKEN'; if it uses OAuth, run 'mcpv auth login' with the same server"
	case errors.Is(err, mcp.ErrNotLegacy):
		return "; drop --transport sse"
	}
	return ""
}

// Message is what mcpv says of err, whose exit code is code, after
// "mcpv: ": a URL the server wants visited described, the flags that would
// help, and a pointer to help (the command line that shows it, "mcpv call
// --help") after a usage mistake whose message does not already say where
// to look.
func Message(err error, code int, help string) string {
	msg := err.Error()
	if ce, ok := errors.AsType[*mcp.CallError](err); ok && ce.Err.Code == codeURLElicitationRequired {
		msg = ce.Method + ": " + elicit.DescribeURLRequired(ce.Err.Data)
	}
	msg += Hint(err)
	var usage *errkind.UsageError
	pointed := errors.As(err, &usage) && usage.Pointed
	if code == Usage && !strings.Contains(msg, "\n") && !pointed && !errors.As(err, new(*errkind.ConfigError)) && !errors.As(err, new(*safedir.Error)) {
		msg += " (see " + help + ")"
	}
	return msg
}

// forward is the ssh port forward that brings a browser's redirect on
// another machine to this one's loopback port.
func forward(port string) string {
	if port == "" { // a device login: nothing to forward
		return ""
	}
	return "ssh -L " + port + ":127.0.0.1:" + port + " HOST"
}

// waitCommand is the command line that waits for the login handed off
// for pending's server.
func waitCommand(pending *oauth.LoginPendingError) string {
	if pending.Server == "" {
		return "mcpv auth wait"
	}
	return "mcpv auth wait -u " + shellwords.Quote(pending.Server)
}
