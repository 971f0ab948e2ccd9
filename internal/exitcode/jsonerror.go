package exitcode

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// Failure is a failure as --errors json writes it: one JSON object on
// stderr (docs/mcpv-error.schema.json).
type Failure struct {
	Exit    int    `json:"exit"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Error is the server's JSON-RPC error, when the failure is one.
	Error *mcp.RPCError `json:"error,omitempty"`
	// Hint is what would help: the flags to give, the command to run, the
	// help to read.
	Hint string `json:"hint,omitempty"`
	// Details are lines that go with the message (a pin's refusal: what
	// moved).
	Details []string `json:"details,omitempty"`
	// Login is a login handed off: where to sign in and how to finish.
	Login *Login `json:"login,omitempty"`
}

// Login is what a program needs to see a handed-off login through.
type Login struct {
	URL     string `json:"url"`
	Code    string `json:"code,omitempty"` // a device login's, entered at url
	Wait    string `json:"wait"`
	Forward string `json:"forward,omitempty"`
	Expires string `json:"expires,omitempty"`
}

// Kinds name what failed, finer than the exit code; a program reads
// exit for the class and kind for the cause.
var Kinds = []string{"tool-error", "falsy", "usage", "config", "filter", "server-error",
	"capability", "refused", "transport", "auth", "login-required", "pinned", "timeout", "interrupted", "failed"}

// Describe is err, whose exit code is code, as a Failure; help is the
// command line that shows the help a usage mistake points to.
func Describe(err error, code int, help string) Failure {
	f := Failure{Exit: code, Kind: kind(err, code), Message: err.Error()}
	if ce, ok := errors.AsType[*mcp.CallError](err); ok {
		f.Error = ce.Err
		if ce.Err.Data != nil { // a password it holds is not shown
			f.Error = &mcp.RPCError{Code: ce.Err.Code, Message: ce.Err.Message, Data: redact.JSON(ce.Err.Data)}
		}
		if ce.Err.Code == codeURLElicitationRequired {
			f.Message = Message(err, code, help)
		}
	}
	f.Hint = strings.TrimSuffix(strings.TrimLeft(Hint(err), " ;("), ")")
	if pending, ok := errors.AsType[*oauth.LoginPendingError](err); ok {
		f.Login = &Login{URL: pending.URL, Code: pending.UserCode, Wait: waitCommand(pending), Forward: forward(pending.Port), Expires: pending.Expires.UTC().Format(time.RFC3339)}
	}
	var usage *errkind.UsageError
	if code == Usage && f.Hint == "" && !errors.As(err, new(*errkind.ConfigError)) && !(errors.As(err, &usage) && usage.Pointed) {
		f.Hint = "see " + help
	}
	return f
}

// JSON is f as one line.
func (f Failure) JSON() []byte {
	b, err := json.Marshal(f)
	if err != nil { // a server's error data that is not JSON: keep the rest
		f.Error = &mcp.RPCError{Code: f.Error.Code, Message: f.Error.Message}
		b, _ = json.Marshal(f)
	}
	return append(b, '\n')
}

func kind(err error, code int) string {
	var oauthErr *oauth.Error
	switch code {
	case ToolError:
		if errors.Is(err, output.ErrFalsy) {
			return "falsy"
		}
		if errors.Is(err, toolcall.ErrFailed) {
			return "tool-error"
		}
		return "failed"
	case Usage:
		if errors.As(err, new(*errkind.ConfigError)) {
			return "config"
		}
		return "usage"
	case Server:
		switch {
		case errors.As(err, new(*mcp.CallError)):
			return "server-error"
		case errors.As(err, new(*mcp.CapabilityError)):
			return "capability"
		}
		return "refused"
	case Transport:
		return "transport"
	case Auth:
		if errors.As(err, &oauthErr) && oauthErr.Need == oauth.NeedLogin || errors.As(err, new(*oauth.LoginPendingError)) {
			return "login-required"
		}
		return "auth"
	case Filter:
		return "filter"
	case Pinned:
		return "pinned"
	case Timeout:
		return "timeout"
	case Interrupt:
		return "interrupted"
	}
	return "failed"
}
