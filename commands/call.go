package commands

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/toolargs"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/mcp"
)

type callCmd struct {
	callArgs
	callOptions
}

// callArgs are what every call gives: the tool and its arguments.
type callArgs struct {
	Tool     string   `arg:"" help:"The tool's name."`
	Pairs    []string `arg:"" optional:"" sep:"none" name:"key=value" help:"Arguments: key=value (typed by the tool's inputSchema), key:=JSON (as is), key=@FILE, key:=@FILE.json, key=@- (stdin); dotted keys nest, repeated keys make arrays."`
	ArgsJSON string   `name:"args" placeholder:"JSON|@FILE|-" help:"Arguments as a JSON object, @FILE or - (stdin); key=value overrides."`
}

// callOptions are the call's other flags, which a command line seldom
// names: kong is given them only when it names one (see callLean).
type callOptions struct {
	NoCoerce bool `name:"no-coerce" help:"Keep every key=value a string."`
	validateOption
	ValidateOutput string `name:"validate-output" enum:"auto,off,warn,strict" default:"auto" help:"Check structuredContent against the outputSchema: off, warn, strict (exit 3) or auto."`
	DryRun         bool   `name:"dry-run" help:"Print the request; send nothing."`
	Text           bool   `name:"text" help:"Print the result's text, raw."`
	SaveDir        string `name:"save-dir" placeholder:"DIR" help:"Write binary content to files in DIR."`

	Task   bool          `name:"task" help:"Run the call as a task, if the tool allows it (mcpv help arguments)."`
	TTL    time.Duration `name:"ttl" placeholder:"DURATION" help:"Ask the server to keep the task this long."`
	Detach bool          `name:"detach" help:"With a task: print it and exit; mcpv tasks result ID collects it."`
}

// validateOption is --no-validate, the one option of the fast path for
// scripts (see argumentsTopic): kong is given it alone beside callArgs when
// it is the only option a command line names (callFast).
type validateOption struct {
	NoValidate bool `name:"no-validate" help:"Send the arguments unchecked by the tool's inputSchema."`
}

// callOptionFlags are the long and short names of callOptions' flags, read
// from its tags once, when a call is parsed.
var callOptionFlags = &lazy.Value[flagNames]{New: func() (n flagNames) {
	for _, f := range reflect.VisibleFields(reflect.TypeFor[callOptions]()) {
		if !f.Anonymous {
			n.long = append(n.long, f.Tag.Get("name"))
			n.shorts += f.Tag.Get("short")
		}
	}
	return n
}}

type flagNames struct {
	long   []string
	shorts string
}

// leanForm is the call without its options, or with --no-validate alone,
// unless words name another.
func (c *callCmd) leanForm(words map[string]bool) any {
	f := callOptionFlags.Get()
	if !names(words, func(name string) bool { return slices.Contains(f.long, name) }, f.shorts) {
		return new(callLean)
	}
	if !names(words, func(name string) bool { return name != "no-validate" && slices.Contains(f.long, name) }, f.shorts) {
		return new(callFast)
	}
	return nil
}

// defaultCallOptions are callOptions with the defaults of their tags (held
// to kong's by TestLeanGrammarParsesAsTheWhole).
func defaultCallOptions() callOptions { return callOptions{ValidateOutput: "auto"} }

// callLean is the call command as a lean grammar gives it to kong when the
// command line names none of callOptions' flags (leanForm): kong then
// reads the tags of the three fields of callArgs rather than twelve, and the
// call runs with the options' defaults.
type callLean struct{ callArgs }

// full is the call c stands for: c's tool with the options' defaults
// (also the call of the tool an app is shown for).
func (c callLean) full() *callCmd {
	return &callCmd{callArgs: c.callArgs, callOptions: defaultCallOptions()}
}

func (c *callLean) Validate() error { return c.full().Validate() }

func (c *callLean) Run(ctx context.Context, s *session, out *console) error {
	return c.full().Run(ctx, s, out)
}

// callFast is the call command as a lean grammar gives it to kong when the
// only option the command line names is --no-validate: kong reads four
// tags rather than twelve, for the call that is meant to cost least.
type callFast struct {
	callArgs
	validateOption
}

// full is the call c stands for.
func (c *callFast) full() *callCmd {
	o := defaultCallOptions()
	o.validateOption = c.validateOption
	return &callCmd{callArgs: c.callArgs, callOptions: o}
}

func (c *callFast) Validate() error { return c.full().Validate() }

func (c *callFast) Run(ctx context.Context, s *session, out *console) error {
	return c.full().Run(ctx, s, out)
}

func (c *callCmd) Help() string {
	return `Calls the tool and prints its result. A result with isError: true is printed and exits 1, with its text on stderr. A tool name the server does not list is refused (exit 3, with the nearest name); 'mcpv list-tools TOOL' shows what a tool takes.

Arguments are typed by the tool's inputSchema and checked before anything is sent: 'mcpv help arguments' says how, when a call goes without a listing, and how a task is followed.

Examples:

    $ mcpv call echo message=hi -- ./server
    $ mcpv call add a=2 b=3 -q .structuredContent.sum -- ./server
    $ mcpv call search query=mcp limit=5 filter.since=2024 tag=a tag=b -- ./srv
    $ echo '{"message":"from stdin"}' | mcpv call echo --args - -- ./server
    $ id=$(mcpv call research topic=mcp --detach -r -q .task.taskId -u $URL)`
}

// argumentsTopic is 'mcpv help arguments': what call's help leaves out.
const argumentsTopic = `Arguments of a call are typed by the tool's inputSchema (fetched with tools/list, or taken from the list an earlier run kept: for as long as the server's ttlMs allows, or, when its list says nothing of that (every server before 2026-07-28), for MCPV_LIST_TTL, 5 minutes unless set; never past a list_changed, a call the server refuses or answers with isError, or --fresh, and never for a call held to a pin): integers, numbers, booleans, null, enums, and objects or arrays written as JSON; a string property keeps the text as is (007 stays "007"). Union types are tried in the order null, boolean, integer, number, object, array, string. key:=JSON is never guessed at. The arguments are checked against the schema before anything is sent (exit 2 names the JSON pointer and the rule). --no-validate skips the check, not the typing (--no-coerce keeps every key=value a string); typing and the check are bounded by --timeout and end at Ctrl-C, and a schema whose check would loop back on itself too long is not checked, with a warning.

The fast path for scripts: a call whose arguments need no typing (none, or all of them JSON: --args, or key:=JSON with keys without dots) and --no-validate sends its tools/call alone, without listing the tools first. A tool name the server then refuses is answered with the nearest name it lists, listed after the refusal. Over HTTP in the 2026-07-28 era a call is listed first all the same, unless the tools are kept from an earlier run: the protocol asks that the arguments its tool marks with x-mcp-header be sent as headers too, and that a tool whose marks are invalid not be called (exit 3, nothing sent). A server of the initialize era that runs tools as tasks is listed first too, as its tools may require one.

As a task (--task, or always for a tool whose execution.taskSupport is required), the call reports the task's id on stderr, polls tasks/get at the server's interval and prints what tasks/result returns: a failed task exits 1 with its status message, a cancelled one exits 3. --timeout bounds the whole wait; on expiry or Ctrl-C the task is cancelled on the server (exit 124 or 130).

The same typing serves get-prompt's and complete's key=value (as strings), load's call and a batch line's call; 'mcpv list-tools TOOL' shows a tool's inputSchema.`

func (c *callCmd) Validate() error {
	if c.DryRun && (c.Text || c.SaveDir != "" || c.Detach) {
		return fmt.Errorf("--dry-run prints the request; --text, --save-dir and --detach are about results")
	}
	if i := slices.IndexFunc(c.Pairs, func(p string) bool { return strings.HasSuffix(p, "=@-") }); c.ArgsJSON == "-" && i >= 0 {
		return fmt.Errorf("--args - and %s both want stdin; give one of them a file", c.Pairs[i])
	}
	if err := toolargs.Check(c.Pairs, func(string) ([]byte, error) { return []byte("null"), nil }); err != nil {
		return forgottenDashes(err, "call", c.Tool, c.Pairs)
	}
	return nil
}

func (c *callCmd) Run(ctx context.Context, s *session, out *console) error {
	if err := out.flags.notWithText(c.Text); err != nil {
		return err
	}
	base, readFile, err := c.inputs(out)
	if err != nil {
		return err
	}
	client, err := s.required(ctx, "tools", "tools/call")
	if err != nil {
		return err
	}
	if (c.Task || c.Detach) && !client.HasCapability("tasks.requests.tools.call") {
		_, err := client.TaskWanted(mcp.Tool{Name: c.Tool}, true) // a server without tasks: said first, whatever the tool
		return err
	}
	def, looked, err := c.definition(ctx, s, client, out)
	unlisted, _ := errors.AsType[*mcp.ToolNotListedError](err)
	if err != nil && unlisted == nil {
		return err
	}
	def, res, asTask, err := c.sendChecked(ctx, s, client, out, base, def, looked, readFile)
	if err != nil && !looked {
		return c.refused(ctx, s, client, err, unlisted)
	}
	if err != nil || res == nil {
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

// inputs reads, and checks, everything the call reads from files and
// stdin, before the server starts: --args, and each @FILE once (readFile
// gives them again).
func (c *callCmd) inputs(out *console) (base json.RawMessage, readFile func(string) ([]byte, error), err error) {
	readFile = onceFiles(out.readFile)
	if err := toolargs.Check(c.Pairs, readFile); err != nil {
		return nil, nil, usageError(err)
	}
	if c.ArgsJSON != "" {
		if base, err = readJSONObject("--args", c.ArgsJSON, out); err != nil {
			return nil, nil, err
		}
	}
	return base, readFile, nil
}

// definition is the tool's definition from the server's list, when the
// call needs it (looked); a tool the server does not list is refused
// unless --no-validate says to send anyway: then the call goes without a
// definition, and err is the *mcp.ToolNotListedError, with the names the
// server lists.
func (c *callCmd) definition(ctx context.Context, s *session, client *mcp.Client, out *console) (def mcp.Tool, looked bool, err error) {
	def = mcp.Tool{Name: c.Tool}
	if !c.needsDefinition(client, s) {
		return def, false, nil
	}
	def, err = s.findPinnedTool(ctx, client, c.Tool)
	var nl *mcp.ToolNotListedError
	switch {
	case isA[*mcp.CallError](err) && s.pinning():
		return def, true, fmt.Errorf("could not list the tools to hold tool %q to its pin: %w", c.Tool, err)
	case isA[*mcp.CallError](err):
		out.warnf("could not list the tools (%v); arguments not typed or checked", err)
	case errors.As(err, &nl) && c.NoValidate:
		// Sent as asked, without a definition: a server may take a tool
		// it does not list. The caller keeps what it lists, for the
		// nearest name should the server refuse the call.
		return def, false, nl
	case errors.As(err, &nl):
		return def, true, &refusal{toolNotListed(err).Error() + "; nothing sent (--no-validate sends anyway)"}
	case err != nil:
		return def, true, err
	}
	return def, true, nil
}

// sendChecked sends the call; when def came from a list kept from an
// earlier run and the server refused the call, or the arguments do not
// fit def, the tools may have changed: what the server lists now is
// believed, and the call goes again, once, when the tool's definition is
// not what was kept. A result with isError is never sent again (the tool
// may have run): the kept list is forgotten all the same, and a
// definition that changed is said. It returns the definition the call
// went with.
func (c *callCmd) sendChecked(ctx context.Context, s *session, client *mcp.Client, out *console, base json.RawMessage, def mcp.Tool, looked bool, readFile func(string) ([]byte, error)) (mcp.Tool, json.RawMessage, bool, error) {
	res, asTask, err := c.send(ctx, s, client, out, base, def, readFile)
	failed := err == nil && res != nil && toolcall.ResultFields(res).IsError
	if !(failed || isA[*mcp.CallError](err) || isA[*errkind.UsageError](err)) || !looked || !s.keptServed("tools") {
		return def, res, asTask, err
	}
	s.forget("tools")
	fresh, ferr := s.findPinnedTool(ctx, client, c.Tool)
	switch {
	case failed:
		if ferr != nil || string(fresh.Raw) != string(def.Raw) {
			out.warnf("tool %q has changed since its list was kept by an earlier run: its arguments were typed by the old definition (the server's now is kept: run the call again)", c.Tool)
		}
	case ferr != nil:
		return def, nil, false, toolNotListed(ferr)
	case string(fresh.Raw) != string(def.Raw):
		res, asTask, err = c.send(ctx, s, client, out, base, fresh, readFile)
		return fresh, res, asTask, err
	}
	return def, res, asTask, err
}

// send types and checks the arguments by def and sends the call (or
// prints it, with --dry-run: res is then nil).
func (c *callCmd) send(ctx context.Context, s *session, client *mcp.Client, out *console, base json.RawMessage, def mcp.Tool, readFile func(string) ([]byte, error)) (res json.RawMessage, asTask bool, err error) {
	args, err := c.arguments(ctx, s, out, base, def, readFile)
	if err != nil {
		return nil, false, err
	}
	if asTask, err = client.TaskWanted(def, c.Task || c.Detach); err != nil {
		return nil, false, err
	}
	params := toolcall.Params(c.Tool, args, toolcall.NewTaskRequest(asTask, c.TTL))
	if c.DryRun {
		return nil, false, out.printOf(client.Request("tools/call", params))
	}
	res, err = s.sendTool(ctx, client, c.Tool, def, params)
	return res, asTask, err
}

// sendTool sends params, a tools/call of the tool called name, by its
// definition def (toolcall.Send); a server that finds its headers wrong
// gets one more try by the definition listed afresh, the kept list
// forgotten.
func (s *session) sendTool(ctx context.Context, client *mcp.Client, name string, def mcp.Tool, params json.RawMessage) (json.RawMessage, error) {
	return toolcall.Send(ctx, client, def, params, s.settings.URL != "", func(ctx context.Context) (mcp.Tool, error) {
		s.forget("tools")
		return s.findPinnedTool(ctx, client, name)
	})
}

// needsDefinition says whether the call needs the tool's definition
// (tools/list) before it is sent: to type or check its arguments, to
// check its result, to hold it to its pin, or, on a server of the initialize era that runs tools
// as tasks, for whether the tool must run as one. A call that needs none
// sends its tools/call alone.
//
// Over Streamable HTTP in the 2026-07-28 era every call needs it too: the
// parameters its inputSchema marks x-mcp-header MUST be mirrored in
// Mcp-Param-* headers, and a tool whose marks are invalid MUST NOT be
// called (transports, "Custom Headers"); only the definition says which
// they are, and whether they are valid, even for a call with no
// arguments. A list kept from an earlier run answers without a request.
func (c *callCmd) needsDefinition(client *mcp.Client, s *session) bool {
	return !c.NoValidate || s.pinning() || toolargs.NeedsSchema(c.Pairs, c.NoCoerce) || c.outputChecked() ||
		!client.Modern() && client.HasCapability("tasks.requests.tools.call") ||
		client.Modern() && s.settings.URL != ""
}

// outputChecked says whether structuredContent is checked: as
// --validate-output says, else unless --no-validate.
func (c *callCmd) outputChecked() bool {
	return c.ValidateOutput == "warn" || c.ValidateOutput == "strict" || c.ValidateOutput == "auto" && !c.NoValidate
}

// refused is the error for a call sent without its tool's definition that
// the server refused: when the server lists no tool of that name (as
// unlisted says, else asked now, after the refusal), the nearest it lists.
func (c *callCmd) refused(ctx context.Context, s *session, client *mcp.Client, err error, unlisted *mcp.ToolNotListedError) error {
	return refusedName(err, "tool", c.Tool, "list-tools", func() ([]string, error) {
		if unlisted != nil {
			return unlisted.Listed, nil
		}
		_, err := s.findTool(ctx, client, c.Tool)
		if nl, ok := errors.AsType[*mcp.ToolNotListedError](err); ok {
			return nl.Listed, nil
		}
		return []string{c.Tool}, err
	})
}

// refusedName is err, the server's answer to a request for the name of a
// kind of thing (a tool, a prompt, a resource's URI), with what the server
// lists when err is a refusal (a JSON-RPC error) and the server lists no
// such name: the nearest name it lists. listed is asked only then, after
// the refusal; a listing that fails leaves err as it was. A resource need
// not be listed (a template names it), so its URI is said to be unlisted
// only beside a near one.
func refusedName(err error, kind, name, see string, listed func() ([]string, error)) error {
	if !isA[*mcp.CallError](err) {
		return err
	}
	names, lerr := listed()
	if lerr != nil || slices.Contains(names, name) {
		return err
	}
	near := suggest.DidYouMean(name, names)
	if near == "" && kind == "resource" {
		return err
	}
	return &refusal{fmt.Sprintf("%v; the server lists no %s %q%s (see mcpv %s)", err, kind, name, near, see)}
}

// arguments builds and checks the arguments object (exit 2 on a mistake).
// Typing by the schema is bounded by --timeout and ends at Ctrl-C.
func (c *callCmd) arguments(ctx context.Context, s *session, out *console, base json.RawMessage, def mcp.Tool, readFile func(string) ([]byte, error)) (json.RawMessage, error) {
	typing, cancel := c.checker(s, out).Bounded(ctx, "typing the arguments of tool "+c.Tool)
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
	violation, err := c.checker(s, out).Check(ctx, "inputSchema", def.InputSchema, args)
	if err != nil {
		return nil, err
	}
	if violation != nil {
		return nil, pointedUsageErrorf("%s; nothing sent (--no-validate sends anyway; see mcpv list-tools %s)", toolcall.ArgumentProblem(c.Tool, def.InputSchema, args, violation), shellwords.Quote(c.Tool))
	}
	return args, nil
}

// checker checks values against the tool's schemas, bounded by --timeout.
func (c *callCmd) checker(s *session, out *console) toolcall.Checker {
	return toolcall.Checker{Tool: c.Tool, Timeout: s.settings.Timeout, Clock: s.env.Bound, Warnf: out.warnf}
}

// toolNotListed is the error for a tool name the server does not list,
// with the nearest name it does.
func toolNotListed(err error) error {
	nl, ok := errors.AsType[*mcp.ToolNotListedError](err)
	if !ok {
		return err
	}
	return &refusal{fmt.Sprintf("the server lists no tool %q%s (see mcpv list-tools)", nl.Name, suggest.DidYouMean(nl.Name, nl.Listed))}
}

// result handles a CallToolResult: output validation, --save-dir, --text or
// JSON, and exit 1 for isError.
func (c *callCmd) result(ctx context.Context, s *session, out *console, def mcp.Tool) func(json.RawMessage) error {
	return func(res json.RawMessage) error {
		f := toolcall.ResultFields(res)
		outErr := c.checkOutput(ctx, s, out, def, f)
		return cmp.Or(out.printResult(res, c.Text, c.SaveDir), outErr, f.Err(res))
	}
}

// checkOutput validates structuredContent against the outputSchema.
func (c *callCmd) checkOutput(ctx context.Context, s *session, out *console, def mcp.Tool, f toolcall.Fields) error {
	if !c.outputChecked() || len(def.OutputSchema) == 0 || f.IsError {
		return nil
	}
	if f.Structured == nil {
		return c.outputProblem(out, "the result has no structuredContent, though the tool declares an outputSchema")
	}
	violation, err := c.checker(s, out).Check(ctx, "outputSchema", def.OutputSchema, f.Structured)
	if err != nil || violation == nil {
		return err
	}
	return c.outputProblem(out, fmt.Sprintf("structuredContent %v, against the tool's outputSchema", violation))
}

func (c *callCmd) outputProblem(out *console, msg string) error {
	if c.ValidateOutput == "strict" {
		return &refusal{msg}
	}
	out.warnf("%s", msg)
	return nil
}
