package exitcode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/skills"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/internal/watch"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// refusal stands for the command line's refusals.
type refusal struct{}

func (refusal) Error() string { return "refused" }

func isRefusal(err error) bool { return errors.As(err, new(refusal)) }

func TestOf(t *testing.T) {
	t.Parallel()
	closed := &output.ClosedError{Err: &fs.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}}
	for _, tt := range []struct {
		err  error
		want int
	}{
		{nil, OK},
		{closed, OK},
		{&output.ClosedError{Err: errors.New("disk full")}, Transport},
		{&safedir.Error{Path: "/s", Why: "is shared", Fix: "chmod 700 /s"}, Usage},
		{fmt.Errorf("call: %w", &mcp.TimeoutError{Method: "tools/call", Timeout: time.Second}), Timeout},
		{&mcp.AuthError{}, Auth},
		{&oauth.Error{Step: oauth.StepToken}, Auth},
		{&oauth.PermissionError{}, Auth},
		{&toolcall.FailedError{Text: "no"}, ToolError},
		{output.ErrFalsy, ToolError},
		{&jq.FilterError{Err: errors.New("x"), Runtime: true}, Filter},
		{&jq.FilterError{Err: errors.New("x")}, Usage},
		{&jq.LimitError{What: "time", Bound: "5s"}, Filter},
		{errkind.Usagef("x"), Usage},
		{errkind.Configf("x"), Usage},
		{&mcp.CallError{Method: "m", Err: &mcp.RPCError{Code: -32601}}, Server},
		{&mcp.CapabilityError{}, Server},
		{refusal{}, Server},
		{&mcp.RefusedError{Msg: "x"}, Server},
		{&mcp.ResultTypeError{}, Server},
		{&watch.UnacknowledgedError{URIs: []string{"a://b"}}, Server},
		{&skills.Refusal{Msg: "x"}, Server},
		{&toolcall.HeaderError{Tool: "t", Err: errors.New("x")}, Server},
		{&mcp.TaskEndedError{Task: mcp.Task{Status: mcp.TaskFailed}}, ToolError},
		{&mcp.TaskEndedError{Task: mcp.Task{Status: mcp.TaskCancelled}}, Server},
		{&mcp.TransportError{Op: "read", Err: errors.New("EOF")}, Transport},
		{&mcp.VersionError{}, Transport},
		{errors.New("anything else"), Transport},
		// The first group that matches decides: a timeout while
		// authorizing is a timeout.
		{errors.Join(&oauth.Error{}, &mcp.TimeoutError{}), Timeout},
	} {
		if got := Of(tt.err, isRefusal); got != tt.want {
			t.Errorf("Of(%T %v) = %d, want %d", tt.err, tt.err, got, tt.want)
		}
	}
}

func TestMessage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{errkind.Usagef("bad flag"), "bad flag (see mcpv ping --help)"},
		{&errkind.UsageError{Err: errors.New("see mcpv list-tools x"), Pointed: true}, "see mcpv list-tools x"},
		{errkind.Usagef("two\nlines"), "two\nlines"},
		{errkind.Configf("a.json: broken"), "a.json: broken"},
		{&mcp.TimeoutError{Method: "tools/call", Timeout: time.Second, Cap: true}, (&mcp.TimeoutError{Method: "tools/call", Timeout: time.Second, Cap: true}).Error() + " (--max-timeout)"},
		{&oauth.Error{Step: oauth.StepToken, Need: oauth.NeedLogin}, (&oauth.Error{Step: oauth.StepToken}).Error() + "; run 'mcpv auth login' with the same server, or use --auth auto"},
		{&oauth.Error{Step: oauth.StepToken, Need: oauth.NeedBearer}, (&oauth.Error{Step: oauth.StepToken}).Error() + "; if the server takes a bearer token of its own (mcpv serve --http prints one, or is given --http-token), send it with -H 'Authorization: Bearer TOKEN'; if it uses OAuth, run 'mcpv auth login' with the same server"},
		{fmt.Errorf("connect: %w", mcp.ErrNotLegacy), "connect: " + mcp.ErrNotLegacy.Error() + "; drop --transport sse"},
		{&mcp.CallError{Method: "tools/call", Err: &mcp.RPCError{Code: codeURLElicitationRequired, Data: json.RawMessage(`{}`)}},
			"tools/call: the server needs you to open a URL first, but its error names none"},
	} {
		if got := Message(tt.err, Of(tt.err, isRefusal), "mcpv ping --help"); got != tt.want {
			t.Errorf("Message(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
