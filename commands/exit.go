package commands

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/output"
)

// usageError is a mistake on the command line, found before any server
// starts (exit 2).
func usageError(err error) error { return errkind.Usage(err) }

func usageErrorf(format string, args ...any) error { return errkind.Usagef(format, args...) }

// pointedUsageErrorf is usageErrorf for a message that says itself where
// to look for help.
func pointedUsageErrorf(format string, args ...any) error {
	return &errkind.UsageError{Err: fmt.Errorf(format, args...), Pointed: true}
}

// configError is a problem with a config file or a refusal to use one: exit
// 2 like a usage error, but the message says all there is to say.
func configError(err error) error { return &errkind.ConfigError{Err: err} }

// exitCode maps an error to its exit code, the command line's own errors
// first; this is the only place that does.
func exitCode(err error) int {
	if err == nil {
		return exitcode.OK // a batch asks for each of its lines
	}
	var batchErr batchFailed
	var keeperErr *keeperError
	var checkErr checkFailed
	switch {
	case isA[*thresholdError](err), isA[appInvalid](err), isA[discoverInvalid](err):
		return exitcode.ToolError
	case errors.As(err, &batchErr):
		return batchErr.code
	case errors.As(err, &checkErr):
		return checkErr.code()
	case errors.As(err, &keeperErr):
		return keeperErr.code
	case errors.Is(err, ErrInterrupted) && !exitcode.ClosedStdout(err):
		return exitcode.Interrupt
	}
	return exitcode.Of(err, isA[*refusal])
}

// silent errors have already told the user what happened, through stdout.
func silent(err error) bool {
	return isA[silentAuthError](err) || isA[batchFailed](err) || errors.Is(err, output.ErrFalsy) || exitcode.ClosedStdout(err)
}

// detailed is an error with lines to show under its own, made safe (a
// pin's refusal and its diff).
type detailed interface{ Details() []string }

// report prints err as one "mcpv: ..." line (plus quoted server stderr, if
// any) and returns its exit code. help is where a usage mistake's message
// points to: "mcpv call --help".
func report(ios *output.Streams, err error, help string, asJSON bool) int {
	code := exitCode(err)
	var details []string
	if d := detailed(nil); errors.As(err, &d) {
		details = d.Details()
	}
	if asJSON && err != nil && code != exitcode.OK {
		f := exitcode.Describe(err, code, help)
		f.Details = details
		ios.Err.Write(f.JSON())
		return code
	}
	if err != nil && !silent(err) {
		// Made safe here, once, whatever the error quotes (a server's
		// words, a config file's), its lines kept.
		fmt.Fprintf(ios.Err, "mcpv: %s\n", safetext.Text(exitcode.Message(err, code, help)))
		for _, line := range details {
			fmt.Fprintf(ios.Err, "  %s\n", line)
		}
	}
	return code
}

// errorsAsJSON says whether failures are told as JSON (--errors json, or
// MCPV_ERRORS=json): read from the words before they are parsed, so that
// a command line that does not parse is told so in the form asked for.
func errorsAsJSON(args []string, getenv func(string) string) bool {
	form := getenv("MCPV_ERRORS")
	for i, a := range args {
		switch {
		case a == "--":
			return form == "json"
		case a == "--errors" && i+1 < len(args):
			form = args[i+1]
		case strings.HasPrefix(a, "--errors="):
			form = strings.TrimPrefix(a, "--errors=")
		}
	}
	return form == "json"
}
