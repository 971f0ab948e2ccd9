package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/content"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/toolargs"
)

type callCmd struct {
	Tool     string   `arg:"" help:"The tool's name."`
	Pairs    []string `arg:"" optional:"" sep:"none" name:"key=value" help:"Arguments: key=value (typed by the tool's inputSchema), key:=JSON (as is), key=@FILE, key:=@FILE.json, key=@- (stdin); dotted keys nest, repeated keys make arrays."`
	ArgsJSON string   `name:"args" placeholder:"JSON|@FILE|-" help:"Arguments as a JSON object, from a file (@FILE) or stdin (-); key=value pairs override its members."`

	NoCoerce       bool   `name:"no-coerce" help:"Keep every key=value a string, whatever the schema says."`
	NoValidate     bool   `name:"no-validate" help:"Send the arguments without checking them against the tool's inputSchema."`
	ValidateOutput string `name:"validate-output" enum:"off,warn,strict" default:"warn" help:"Check structuredContent against the tool's outputSchema: off, warn (on stderr), or strict (exit 3). The result is printed in full either way."`
	DryRun         bool   `name:"dry-run" help:"Print the JSON-RPC request that would be sent, and send nothing (the server is still started, for the tool's schema)."`
	Text           bool   `name:"text" help:"Print the text of the result's content blocks (and text resources, and the URIs of resource links), raw, one after another."`
	SaveDir        string `name:"save-dir" placeholder:"DIR" help:"Write image, audio and blob content to files in DIR and print their paths instead of the base64."`

	Task   bool          `name:"task" help:"Run the call as a task, if the tool allows it: report its id, poll its status, print its result. A tool that requires a task gets one without asking."`
	TTL    time.Duration `name:"ttl" placeholder:"DURATION" help:"Ask the server to keep the task (and its result) this long."`
	Detach bool          `name:"detach" help:"With a task: print the created task and exit at once; collect it later with mcpv tasks result ID."`
}

func (c *callCmd) Help() string {
	return `Calls the tool and prints its result. A result with isError: true is printed and exits 1, with its text on stderr. A tool name the server does not list is refused (exit 3, with the nearest name); 'mcpv list-tools TOOL' shows what a tool takes.

Arguments are typed by the tool's inputSchema (fetched with tools/list): integers, numbers, booleans, null, enums, and objects or arrays written as JSON; a string property keeps the text as is (007 stays "007"). Union types are tried in the order null, boolean, integer, number, object, array, string. key:=JSON is never guessed at. The arguments are checked against the schema before anything is sent (exit 2 names the JSON pointer and the rule). --no-validate skips the check, not the typing (--no-coerce keeps every key=value a string); typing and the check are bounded by --timeout and end at Ctrl-C, and a schema whose check would loop back on itself too long is not checked, with a warning.

As a task (--task, or always for a tool whose execution.taskSupport is required), the call reports the task's id on stderr, polls tasks/get at the server's interval and prints what tasks/result returns: a failed task exits 1 with its status message, a cancelled one exits 3. --timeout bounds the whole wait; on expiry or Ctrl-C the task is cancelled on the server (exit 124 or 130).

Examples:

    $ mcpv call echo message=hi -- ./server
    $ mcpv call add a=2 b=3 -q .structuredContent.sum -- ./server
    $ mcpv call search query=mcp limit=5 filter.since=2024 tag=a tag=b -- ./server
    $ mcpv call search --args '{"query":"mcp","limit":5}' -- ./server
    $ mcpv call summarize text=@README.md --text -- ./server
    $ mcpv call screenshot url=https://example.com --save-dir shots -- ./server
    $ echo '{"message":"from stdin"}' | mcpv call echo --args - -- ./server
    $ mcpv call research topic=mcp --task --ttl 1h -u https://example.com/mcp
    $ id=$(mcpv call research topic=mcp --detach -r -q .task.taskId -u https://example.com/mcp)`
}

func (c *callCmd) Validate() error {
	if c.TTL < 0 {
		return fmt.Errorf("--ttl cannot be negative")
	}
	if c.DryRun && (c.Text || c.SaveDir != "" || c.Detach) {
		return fmt.Errorf("--dry-run prints the request; --text, --save-dir and --detach are about results")
	}
	if c.ArgsJSON == "-" {
		for _, p := range c.Pairs {
			if strings.HasSuffix(p, "=@-") {
				return fmt.Errorf("--args - and %s both want stdin; give one of them a file", p)
			}
		}
	}
	return toolargs.Check(c.Pairs, func(string) ([]byte, error) { return []byte("null"), nil })
}

func (c *callCmd) Run(ctx context.Context, s *session, out *console) error {
	if c.Text {
		if err := out.flags.notWithText(); err != nil {
			return err
		}
	}
	// Everything read from files and stdin is read, and checked, before the
	// server starts; each @FILE once.
	files := map[string][]byte{}
	readFile := func(path string) ([]byte, error) {
		if data, ok := files[path]; ok {
			return data, nil
		}
		data, err := out.readFile(path)
		files[path] = data
		return data, err
	}
	if err := toolargs.Check(c.Pairs, readFile); err != nil {
		return usageError(err)
	}
	var base json.RawMessage
	if c.ArgsJSON != "" {
		raw, err := readJSONArg("--args", c.ArgsJSON, out)
		if err != nil {
			return usageError(err)
		}
		if !rawjson.IsObject(raw) {
			return usageErrorf("--args: want a JSON object")
		}
		base = raw
	}
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	if err := client.Require("tools", "tools/call"); err != nil {
		return err
	}
	def := mcp.Tool{Name: c.Tool}
	if (c.Task || c.Detach) && !client.HasCapability("tasks.requests.tools.call") {
		_, err := client.TaskWanted(def, true) // a server without tasks: said first, whatever the tool
		return err
	}
	if needed := !c.NoValidate || (!c.NoCoerce && len(c.Pairs) > 0) || c.ValidateOutput != "off" || client.HasCapability("tasks.requests.tools.call"); needed {
		def, err = s.findTool(ctx, client, c.Tool)
		var ce *mcp.CallError
		var nl *mcp.ToolNotListedError
		switch {
		case errors.As(err, &ce):
			out.warnf("could not list the tools (%v); arguments not typed or checked", err)
		case errors.As(err, &nl) && c.NoValidate:
			// Sent as asked: a server may take a tool it does not list.
		case errors.As(err, &nl):
			return &refusal{toolNotListed(err).Error() + "; nothing sent (--no-validate sends anyway)"}
		case err != nil:
			return err
		}
	}
	args, err := c.arguments(ctx, s, out, base, def, readFile)
	if err != nil {
		return err
	}
	asTask, err := client.TaskWanted(def, c.Task || c.Detach)
	if err != nil {
		return err
	}
	params := mustJSON(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Task      *taskRequest    `json:"task,omitempty"`
	}{c.Tool, args, newTaskRequest(asTask, c.TTL)})
	if c.DryRun {
		req, err := client.Request("tools/call", params)
		if err != nil {
			return err
		}
		return out.print(req)
	}
	res, err := c.send(ctx, s, client, def, params)
	if err != nil {
		return err
	}
	if asTask || client.Modern() && mcp.IsTaskResult(res) { // in the modern era the server decides
		t, err := createdTask(s, out, res)
		if err != nil {
			return err
		}
		if c.Detach {
			if err := s.keepForTask(out, t.TaskID); err != nil {
				return err
			}
			return out.print(res)
		}
		return followTask(ctx, client, out, t, true, c.result(ctx, s, out, def))
	}
	return c.result(ctx, s, out, def)(res)
}

// send sends the tools/call. In the modern era the tool's x-mcp-header
// annotations decide headers over HTTP: a tool whose annotations are invalid
// is not called, and a server that finds the headers wrong (-32020, its
// tools may have changed) gets one more try after the tools are listed
// again.
func (c *callCmd) send(ctx context.Context, s *session, client *mcp.Client, def mcp.Tool, params json.RawMessage) (json.RawMessage, error) {
	if !client.Modern() || s.settings.URL == "" {
		return client.Call(ctx, "tools/call", params) // x-mcp-header is for HTTP
	}
	for retried := false; ; retried = true {
		headers, err := mcp.ParamHeaders(def.InputSchema)
		if err != nil {
			return nil, &refusal{fmt.Sprintf("tool %q has an invalid x-mcp-header annotation (%v); mcpv does not call it", def.Name, err)}
		}
		res, err := client.Call(mcp.WithParamHeaders(ctx, headers), "tools/call", params)
		var ce *mcp.CallError
		if retried || !errors.As(err, &ce) || ce.Err.Code != mcp.CodeHeaderMismatch || def.Raw == nil {
			return res, err
		}
		if s.conn != nil {
			s.conn.Tools.Reset()
		}
		if def, err = s.findTool(ctx, client, c.Tool); err != nil {
			return nil, err
		}
	}
}

// arguments builds and checks the arguments object (exit 2 on a mistake).
// Typing by the schema is bounded by --timeout and ends at Ctrl-C.
func (c *callCmd) arguments(ctx context.Context, s *session, out *console, base json.RawMessage, def mcp.Tool, readFile func(string) ([]byte, error)) (json.RawMessage, error) {
	typing, cancel := c.bounded(ctx, s, "typing the arguments of tool "+c.Tool)
	defer cancel()
	args, err := toolargs.Build(typing, c.Pairs, base, toolargs.Options{
		Schema:   def.InputSchema,
		NoCoerce: c.NoCoerce,
		ReadFile: readFile,
		Stdin:    func() ([]byte, error) { return io.ReadAll(out.ios.In) },
	})
	switch {
	case typing.Err() != nil:
		return nil, context.Cause(typing)
	case err != nil:
		return nil, usageError(err)
	}
	if c.NoValidate || len(def.InputSchema) == 0 {
		return args, nil
	}
	violation, err := c.check(ctx, s, out, "inputSchema", def.InputSchema, args)
	if err != nil {
		return nil, err
	}
	if violation != nil {
		return nil, pointedUsageErrorf("%s; nothing sent (--no-validate sends anyway; see mcpv list-tools %s)", argumentProblem(c.Tool, def.InputSchema, args, violation), shellwords.Quote(c.Tool))
	}
	return args, nil
}

// toolNotListed is the error for a tool name the server does not list,
// with the nearest name it does.
func toolNotListed(err error) error {
	var nl *mcp.ToolNotListedError
	if !errors.As(err, &nl) {
		return err
	}
	return &refusal{fmt.Sprintf("the server lists no tool %q%s (see mcpv list-tools)", nl.Name, suggest.DidYouMean(nl.Name, nl.Listed))}
}

// argumentProblem says what is wrong with args: for a violation at the top
// of the arguments that comes from a misspelt name (an argument the schema
// does not allow, or a required one missing beside one it does not
// declare), the name and the nearest declared one.
func argumentProblem(tool string, schema, args json.RawMessage, violation error) string {
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

// check validates value against one of the tool's schemas: a violation, or
// an error that ends the command (a timeout, an interrupt). A schema mcpv
// cannot use (invalid, or nested too deep) is said so in a warning, and
// nothing is checked. The work is bounded by --timeout and ends at Ctrl-C.
func (c *callCmd) check(ctx context.Context, s *session, out *console, which string, schema, value json.RawMessage) (violation, err error) {
	ctx, cancel := c.bounded(ctx, s, "checking the "+which+" of tool "+c.Tool)
	defer cancel()
	v, err := toolargs.Compile(ctx, schema)
	var limit *toolargs.LimitError
	switch {
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case errors.As(err, &limit):
		out.warnf("tool %q's %s is not checked: %v", c.Tool, which, err)
		return nil, nil
	case err != nil:
		out.warnf("tool %q has an invalid %s (%v); not checked", c.Tool, which, err)
		return nil, nil
	}
	violation = v.Validate(ctx, value)
	var cost *toolargs.CostError
	switch {
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case errors.As(violation, &cost):
		out.warnf("tool %q's %s is not checked: %v", c.Tool, which, violation)
		return nil, nil
	}
	return violation, nil
}

// bounded is ctx ending after --timeout, as the work named what.
func (c *callCmd) bounded(ctx context.Context, s *session, what string) (context.Context, context.CancelFunc) {
	if d := s.settings.Timeout; d > 0 {
		return context.WithTimeoutCause(ctx, d, &mcp.TimeoutError{Method: what, Timeout: d})
	}
	return ctx, func() {}
}

// result handles a CallToolResult: output validation, --save-dir, --text or
// JSON, and exit 1 for isError.
func (c *callCmd) result(ctx context.Context, s *session, out *console, def mcp.Tool) func(json.RawMessage) error {
	return func(res json.RawMessage) error {
		f := toolResultFields(res)
		outErr := c.checkOutput(ctx, s, out, def, f)
		if err := out.printResult(res, c.Text, c.SaveDir); err != nil {
			return err
		}
		if outErr != nil {
			return outErr
		}
		return f.exitErr(res)
	}
}

// checkOutput validates structuredContent against the outputSchema.
func (c *callCmd) checkOutput(ctx context.Context, s *session, out *console, def mcp.Tool, f resultFields) error {
	if c.ValidateOutput == "off" || len(def.OutputSchema) == 0 || f.isError {
		return nil
	}
	structured := f.structured
	if structured == nil {
		return c.outputProblem(out, "the result has no structuredContent, though the tool declares an outputSchema")
	}
	violation, err := c.check(ctx, s, out, "outputSchema", def.OutputSchema, structured)
	if err != nil {
		return err
	}
	if violation != nil {
		return c.outputProblem(out, fmt.Sprintf("structuredContent %v, against the tool's outputSchema", violation))
	}
	return nil
}

func (c *callCmd) outputProblem(out *console, msg string) error {
	if c.ValidateOutput == "strict" {
		return &refusal{msg}
	}
	out.warnf("%s", msg)
	return nil
}

// resultFields are the members of a CallToolResult that decide mcpv's exit.
type resultFields struct {
	isError    bool
	structured json.RawMessage
}

// toolResultFields reads them in one walk. res came from the session, which
// has checked the whole message: the walk needs no second validation pass
// (0.4 s for a 100 MB result).
func toolResultFields(res json.RawMessage) resultFields {
	var f resultFields
	rawjson.ForEachValidMember(res, func(k string, v []byte) error {
		switch k {
		case "isError":
			f.isError = string(v) == "true"
		case "structuredContent":
			f.structured = v
		}
		return nil
	})
	return f
}

// exitErr is a *toolFailedError for isError: true.
func (f resultFields) exitErr(res json.RawMessage) error {
	if !f.isError {
		return nil
	}
	text, _ := content.Text(res)
	return &toolFailedError{text: text}
}

// taskRequest is the task member of tools/call params: {} or {"ttl": ms}.
type taskRequest struct {
	TTL int64 `json:"ttl,omitempty"`
}

// newTaskRequest returns the task member, or nil when the call is no task.
func newTaskRequest(asTask bool, ttl time.Duration) *taskRequest {
	if !asTask {
		return nil
	}
	return &taskRequest{TTL: ttl.Milliseconds()}
}
