package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/elicit"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/oserr"
	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/skills"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/internal/watch"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/oauth"
	"github.com/mcpv/mcpv/output"
)

// The exit-code contract (README, --help).
const (
	exitOK        = 0
	exitToolError = 1
	exitUsage     = 2
	exitServer    = 3
	exitTransport = 4
	exitAuth      = 5
	exitFilter    = 6
	exitTimeout   = 124
	exitInterrupt = 130
)

// codeURLElicitationRequired is the error a server answers when the user
// must visit a URL before the request can succeed
// (https://modelcontextprotocol.io/specification/2025-11-25/client/elicitation#url-elicitation-required-error).
const codeURLElicitationRequired = -32042

// usageError is a mistake on the command line, found before any server
// starts (exit 2).
func usageError(err error) error { return connect.Usage(err) }

func usageErrorf(format string, args ...any) error { return connect.Usagef(format, args...) }

// pointedUsageErrorf is usageErrorf for a message that says itself where
// to look for help.
func pointedUsageErrorf(format string, args ...any) error {
	return &connect.UsageError{Err: fmt.Errorf(format, args...), Pointed: true}
}

// configError is a problem with a config file or a refusal to use one: exit
// 2 like a usage error, but the message says all there is to say.
func configError(err error) error { return &connect.ConfigError{Err: err} }

// exitCode maps an error to its exit code; this is the only place that does.
func exitCode(err error) int {
	var (
		usage     *connect.UsageError
		confErr   *connect.ConfigError
		batchErr  batchFailed
		filterErr *output.FilterError
		callErr   *mcp.CallError
		capErr    *mcp.CapabilityError
		transErr  *mcp.TransportError
		verErr    *mcp.VersionError
		timeout   *mcp.TimeoutError
		authErr   *mcp.AuthError
		oauthErr  *oauth.Error
		permErr   *oauth.PermissionError
		refused   *refusal
		declined  *mcp.RefusedError
		resType   *mcp.ResultTypeError
		ended     *mcp.TaskEndedError
		stateDir  *safedir.Error
		keeperErr *keeperError
		unacked   *watch.UnacknowledgedError
		skillRef  *skills.Refusal
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &batchErr):
		return batchErr.code
	case errors.As(err, &keeperErr):
		return keeperErr.code
	case isClosedStdout(err):
		return exitOK // stdout closed by the reader, e.g. | head -1
	case errors.Is(err, ErrInterrupted):
		return exitInterrupt
	case errors.As(err, &stateDir):
		return exitUsage // a state directory to fix before anything can run
	case errors.As(err, &timeout):
		return exitTimeout
	case errors.As(err, &authErr), errors.As(err, &oauthErr), errors.As(err, &permErr):
		return exitAuth
	case errors.Is(err, toolcall.ErrFailed), errors.Is(err, output.ErrFalsy):
		return exitToolError
	case errors.As(err, &filterErr) && filterErr.Runtime:
		return exitFilter
	case errors.As(err, &usage), errors.As(err, &filterErr), errors.As(err, &confErr):
		return exitUsage
	case errors.As(err, &callErr), errors.As(err, &capErr), errors.As(err, &refused), errors.As(err, &declined), errors.As(err, &resType), errors.As(err, &unacked), errors.As(err, &skillRef):
		return exitServer
	case errors.As(err, &ended):
		if ended.Failed() {
			return exitToolError
		}
		return exitServer
	case errors.As(err, &transErr), errors.As(err, &verErr):
		return exitTransport
	}
	return exitTransport
}

// silent errors have already told the user what happened, through stdout.
func silent(err error) bool {
	var quiet silentAuthError
	var batch batchFailed
	if errors.As(err, &quiet) || errors.As(err, &batch) {
		return true
	}
	return errors.Is(err, output.ErrFalsy) || isClosedStdout(err)
}

// isClosedStdout reports a write to stdout that failed because its reader
// went away; a server's closed stdin is not that.
func isClosedStdout(err error) bool {
	var ce *output.ClosedError
	return errors.As(err, &ce) && oserr.BrokenPipe(ce.Err)
}

// hint is what the command line can add to a library's error: the flags
// that would help.
func hint(err error) string {
	var te *mcp.TimeoutError
	var oe *oauth.Error
	switch {
	case errors.As(err, &te) && te.Cap:
		return " (--max-timeout)"
	case errors.As(err, &oe) && oe.Need == oauth.NeedClient:
		return "; give a pre-registered --client-id (with --client-secret or --client-key for a machine grant)"
	case errors.As(err, &oe) && oe.Need == oauth.NeedLogin:
		return "; run 'mcpv auth login' with the same server, or use --auth auto"
	case errors.Is(err, mcp.ErrNotLegacy):
		return "; drop --transport sse"
	}
	return ""
}

// report prints err as one "mcpv: ..." line (plus quoted server stderr, if
// any) and returns its exit code.
func report(ios *output.Streams, err error) int {
	code := exitCode(err)
	if err != nil && !silent(err) {
		msg := err.Error()
		var ce *mcp.CallError
		if errors.As(err, &ce) && ce.Err.Code == codeURLElicitationRequired {
			msg = ce.Method + ": " + elicit.DescribeURLRequired(ce.Err.Data)
		}
		msg += hint(err)
		var confErr *connect.ConfigError
		var stateErr *safedir.Error
		var usage *connect.UsageError
		pointed := errors.As(err, &usage) && usage.Pointed
		if code == exitUsage && !strings.Contains(msg, "\n") && !pointed && !errors.As(err, &confErr) && !errors.As(err, &stateErr) {
			msg += " (see mcpv --help)"
		}
		fmt.Fprintf(ios.Err, "mcpv: %s\n", msg)
	}
	return code
}
