// Package toolcall is what mcpv does around a tools/call beyond the
// protocol: the call sent with the headers its x-mcp-header annotations
// ask for (tried once more when the server finds them wrong), the
// arguments and the structured result checked against the tool's schemas
// (bounded in time, a schema it cannot use said so and passed over), a
// misspelt argument's name told with the nearest declared one, the
// result's fields that decide the exit read in one walk, a failed tool's
// result as an error, and the task member of the request.
package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/content"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/toolargs"
	"github.com/mcpv/mcpv/mcp"
)

// Send sends the tools/call with params. In the modern era over HTTP
// (overHTTP) the tool's x-mcp-header annotations decide headers: a tool
// whose annotations are invalid is not called (a *HeaderError), and a
// server that finds the headers wrong (-32020: its tools may have changed,
// or def is the name alone, for a call sent without listing) gets one more
// try after relist has listed the tools again and found the tool's
// definition, as the transport's rules ask
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#client-behavior).
func Send(ctx context.Context, client *mcp.Client, def mcp.Tool, params json.RawMessage, overHTTP bool, relist func(context.Context) (mcp.Tool, error)) (json.RawMessage, error) {
	return ToolOf(def).Send(ctx, client, params, nil, overHTTP, relist)
}

// Tool is a tool's definition with its x-mcp-header annotations read, for
// many calls of it (mcpv load's): Send reads them for each call.
type Tool struct {
	def     mcp.Tool
	headers []mcp.ParamHeader
	err     error
	read    bool // headers and err are read
}

// ToolOf is def, its x-mcp-header annotations read when a call needs
// them (Read reads them at once).
func ToolOf(def mcp.Tool) Tool { return Tool{def: def} }

// Read returns t with its x-mcp-header annotations read.
func (t Tool) Read() Tool {
	t.headers, t.err = mcp.ParamHeaders(t.def.InputSchema)
	t.read = true
	return t
}

// Send is the package's Send of t's tool, st's string streamed in place
// of its marker in params when st is not nil (mcp.Streamed).
func (t Tool) Send(ctx context.Context, client *mcp.Client, params json.RawMessage, st *mcp.Streamed, overHTTP bool, relist func(context.Context) (mcp.Tool, error)) (json.RawMessage, error) {
	if !client.Modern() || !overHTTP {
		return client.CallStreamed(ctx, "tools/call", params, st) // x-mcp-header is for HTTP
	}
	if !t.read {
		t = t.Read()
	}
	for retried := false; ; retried = true {
		if t.err != nil {
			return nil, &HeaderError{Tool: t.def.Name, Err: t.err}
		}
		res, err := client.CallStreamed(mcp.WithParamHeaders(ctx, t.headers), "tools/call", params, st)
		if ce, ok := errors.AsType[*mcp.CallError](err); retried || !ok || ce.Err.Code != mcp.CodeHeaderMismatch {
			return res, err
		}
		def, err := relist(ctx)
		if err != nil {
			return nil, err
		}
		t = ToolOf(def).Read()
	}
}

// HeaderError is a tool whose x-mcp-header annotations are invalid: mcpv
// does not call it.
type HeaderError struct {
	Tool string
	Err  error
}

func (e *HeaderError) Error() string {
	return fmt.Sprintf("tool %q has an invalid x-mcp-header annotation (%v); mcpv does not call it", e.Tool, e.Err)
}

// Checker checks values against one tool's schemas.
type Checker struct {
	Tool string
	// Timeout bounds each piece of work (typing, a check); 0 means none.
	Timeout time.Duration
	// Clock starts the Timeout's bound: context.WithTimeoutCause when nil,
	// or a test's clock (connect.Env.Bound), which fires when the test
	// says.
	Clock func(context.Context, time.Duration, error) (context.Context, context.CancelFunc)
	// Warnf says that a schema is not checked, and why.
	Warnf func(format string, args ...any)
}

// Check validates value against one of the tool's schemas (which names it:
// inputSchema, outputSchema): a violation, or an error that ends the call
// (a timeout, an interrupt). A schema mcpv cannot use (invalid, or nested
// too deep) is said so in a warning, and nothing is checked. The work is
// bounded by Timeout and ends with ctx.
func (c Checker) Check(ctx context.Context, which string, schema, value json.RawMessage) (violation, err error) {
	ctx, cancel := c.Bounded(ctx, "checking the "+which+" of tool "+c.Tool)
	defer cancel()
	v, err := toolargs.Compile(ctx, schema)
	switch {
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case errors.As(err, new(*toolargs.LimitError)):
		c.Warnf("tool %q's %s is not checked: %v", c.Tool, which, err)
		return nil, nil
	case err != nil:
		c.Warnf("tool %q has an invalid %s (%v); not checked", c.Tool, which, err)
		return nil, nil
	}
	violation = v.Validate(ctx, value)
	switch {
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case errors.As(violation, new(*toolargs.CostError)):
		c.Warnf("tool %q's %s is not checked: %v", c.Tool, which, violation)
		return nil, nil
	}
	return violation, nil
}

// Bounded is ctx ending after Timeout, as the work named what.
func (c Checker) Bounded(ctx context.Context, what string) (context.Context, context.CancelFunc) {
	if d := c.Timeout; d > 0 {
		clock := c.Clock
		if clock == nil {
			clock = context.WithTimeoutCause
		}
		return clock(ctx, d, &mcp.TimeoutError{Method: what, Timeout: d})
	}
	return ctx, func() {}
}

// ArgumentProblem says what is wrong with args: for a violation at the top
// of the arguments that comes from a misspelt name (an argument the schema
// does not allow, or a required one missing beside one it does not
// declare), the name and the nearest declared one.
func ArgumentProblem(tool string, schema, args json.RawMessage, violation error) string {
	var v *toolargs.Violation
	if !errors.As(violation, &v) || v.Pointer != "" {
		return fmt.Sprintf("arguments %v", violation)
	}
	declared := toolargs.PropertyNames(schema)
	var unknown []string
	rawjson.ForEachValidMember(args, func(k string, _ []byte) error {
		if !slices.Contains(declared, k) {
			unknown = append(unknown, k)
		}
		return nil
	})
	takes := safetext.Line(strings.Join(declared, ", ")) // names the server chose
	switch {
	case v.Rule == "additionalProperties" && len(unknown) > 0:
		return fmt.Sprintf("tool %q has no argument %q%s (it takes: %s)", tool, unknown[0], suggest.DidYouMean(unknown[0], declared), takes)
	case v.Rule == "required" && len(unknown) > 0:
		for _, k := range unknown {
			if hint := suggest.DidYouMean(k, v.Missing); hint != "" {
				return fmt.Sprintf("tool %q has no argument %q%s (it takes: %s)", tool, k, hint, takes)
			}
		}
	}
	return fmt.Sprintf("arguments %v", violation)
}

// Fields are the members of a CallToolResult that decide mcpv's exit.
type Fields struct {
	IsError    bool
	Structured json.RawMessage
}

// ResultFields reads them in one walk. res came from the session, which
// has checked the whole message: the walk needs no second validation pass
// (0.4 s for a 100 MB result).
func ResultFields(res json.RawMessage) Fields {
	var f Fields
	rawjson.ForEachValidMember(res, func(k string, v []byte) error {
		switch k {
		case "isError":
			f.IsError = string(v) == "true"
		case "structuredContent":
			f.Structured = v
		}
		return nil
	})
	return f
}

// Err is a *FailedError for isError: true, with res's text.
func (f Fields) Err(res json.RawMessage) error {
	if !f.IsError {
		return nil
	}
	text, _ := content.Text(res)
	return &FailedError{Text: text}
}

// ErrFailed means the tool's result had isError: true; the result was
// printed.
var ErrFailed = errors.New("the tool reported an error")

// FailedError is ErrFailed with the text of the result, for the one line
// on stderr that says why (the result itself went to stdout).
type FailedError struct{ Text string }

// maxErrorLine bounds the text quoted from a failed tool's result.
const maxErrorLine = 300

func (e *FailedError) Error() string {
	text := safetext.Prose(strings.TrimSpace(e.Text))
	if text == "" {
		return ErrFailed.Error() + " (isError: true) without text"
	}
	return ErrFailed.Error() + ": " + safetext.Runes(text, maxErrorLine)
}

func (e *FailedError) Is(target error) bool { return target == ErrFailed }

// TaskRequest is the task member of tools/call params: {} or {"ttl": ms}.
type TaskRequest struct {
	TTL int64 `json:"ttl,omitempty"`
}

// Params are a tools/call's params, as encoding/json writes them, written
// without it when args need no compacting or escaping (a command's first
// use of encoding/json for a type costs more than the writing).
func Params(tool string, args json.RawMessage, task *TaskRequest) json.RawMessage {
	if _, marshaled := rawjson.Marshaled(args); task != nil || !marshaled || !rawjson.Plain(tool) {
		b, err := json.Marshal(struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Task      *TaskRequest    `json:"task,omitempty"`
		}{tool, args, task})
		if err != nil {
			panic(err) // args a caller did not check
		}
		return b
	}
	b := make([]byte, 0, len(`{"name":"","arguments":}`)+len(tool)+len(args))
	b = append(b, `{"name":"`...)
	b = append(b, tool...)
	b = append(b, `","arguments":`...)
	b = append(b, args...)
	return append(b, '}')
}

// NewTaskRequest returns the task member, or nil when the call is no task.
func NewTaskRequest(asTask bool, ttl time.Duration) *TaskRequest {
	if !asTask {
		return nil
	}
	return &TaskRequest{TTL: ttl.Milliseconds()}
}
