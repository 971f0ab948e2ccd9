package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/loaddata"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/stringargs"
	"github.com/mcpv/mcpv/internal/toolargs"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/mcp"
)

// Op is one operation of a run, in mcpv's own words ("call echo
// message=hi", "list-tools", "read URI", "get-prompt NAME k=v", "ping",
// "request METHOD [PARAMS]"), checked before any server starts and made
// ready to send, once, by Prepare.
type Op struct {
	// Name is how the report shows it: the command and what it names
	// ("call echo", "read file:///a"), without the arguments.
	Name string
	// Weight is its share of a mix (1 alone).
	Weight int

	kind   string // the command: call, list-tools, read, get-prompt, ping, request...
	target string // the tool, URI, prompt or method
	words  []string
	params json.RawMessage // ready to send, after Prepare
	tool   mcp.Tool        // a call's tool
	sender toolcall.Tool   // tool with its x-mcp-header annotations read, once
	http   bool            // the session is over HTTP (toolcall.Send)
	// tmpls are the arguments evaluated for each iteration (key~=EXPR);
	// args are the others, typed once by Prepare (a call's) or as given
	// (a prompt's).
	tmpls []loaddata.Template
	args  json.RawMessage
	// keep: the result is wanted (a scenario's step judges it), so a
	// list's pages are merged into one result.
	keep bool
	// flat: every template's key is a plain key (no dots) that no typed
	// argument has, so that its value is appended to the typed ones as
	// it is, without building the object anew.
	flat bool
	// lazy: the words hold placeholders for a scenario's captures, so the
	// arguments are typed for each pass, not checked once by Prepare.
	lazy bool
}

// Varies reports whether op's request changes from one iteration to the
// next (it has key~=EXPR arguments).
func (op *Op) Varies() bool { return len(op.tmpls) > 0 }

// list is the method of the list command kind, and the key of its items;
// ok is false when kind is no list command. The operation walks every
// page.
func list(kind string) (method, key string, ok bool) {
	l, ok := map[string]mcp.List{"list-tools": mcp.Tools, "list-resources": mcp.Resources,
		"list-resource-templates": mcp.ResourceTemplates, "list-prompts": mcp.Prompts}[kind]
	return l.Method, l.Key, ok
}

// Commands are the commands an operation may be, for messages and help.
const Commands = "call TOOL [k=v...], list-tools, list-resources, list-resource-templates, list-prompts, read URI, get-prompt NAME [k=v...], ping, request METHOD [PARAMS-JSON]"

// ParseOp reads an operation from its words. readFile reads a call's
// key=@FILE; nothing needs a server. Mistakes are usage errors.
func ParseOp(words []string, readFile func(string) ([]byte, error)) (Op, error) {
	if len(words) == 0 {
		return Op{}, errkind.Usagef("no operation: give one of %s", Commands)
	}
	op := Op{kind: words[0], Name: words[0], Weight: 1, words: words[1:]}
	arity := func(min, max int, what string) error {
		if n := len(op.words); n < min || n > max {
			return errkind.Usagef("%s: want %s", op.kind, what)
		}
		return nil
	}
	var err error
	switch op.kind {
	case "call":
		if err = arity(1, 1<<30, "call TOOL [key=value...]"); err == nil {
			op.target = op.words[0]
			if err = op.templates(); err == nil {
				err = toolargs.Check(op.words[1:], readFile)
			}
		}
	case "read":
		if err = arity(1, 1, "read URI"); err == nil {
			op.target = op.words[0]
			op.params = rawjson.MustMarshal(map[string]string{"uri": op.target})
		}
	case "get-prompt":
		if err = arity(1, 1<<30, "get-prompt NAME [key=value...]"); err == nil {
			op.target = op.words[0]
			if err = op.templates(); err == nil {
				_, err = stringargs.Parse(op.words[1:], "prompt arguments")
			}
		}
	case "ping":
		err = arity(0, 0, "ping, alone")
	case "request":
		if err = arity(1, 2, "request METHOD [PARAMS-JSON]"); err == nil {
			op.target = op.words[0]
			if len(op.words) == 2 {
				if !rawjson.IsObject([]byte(op.words[1])) {
					err = fmt.Errorf("request %s: the params must be a JSON object", op.target)
				}
				op.params = json.RawMessage(op.words[1])
			}
		}
	default:
		if _, _, ok := list(op.kind); ok {
			err = arity(0, 0, op.kind+", alone")
			break
		}
		return Op{}, errkind.Usagef("unknown operation %q: give one of %s", op.kind, Commands)
	}
	if err != nil {
		return Op{}, errkind.Usage(err)
	}
	if op.target != "" {
		op.Name += " " + op.target
	}
	return op, nil
}

// templates takes the key~=EXPR arguments out of op's words.
func (op *Op) templates() error {
	rest, ts, err := loaddata.Split(op.words[1:])
	if err != nil {
		return fmt.Errorf("%s %s: %w", op.kind, op.target, err)
	}
	op.words, op.tmpls = append(op.words[:1:1], rest...), ts
	return nil
}

// Prepare makes op ready to send through client, as mcpv's command would
// send it: the capability it needs checked, a call's arguments typed by
// the tool's inputSchema and checked against it, a prompt's arguments
// against those it declares. It runs once, before the run; every
// iteration then sends the same request.
// Typing and checking are bounded by timeout (0: none), as mcpv call's
// are by --timeout.
// A request that varies (key~=EXPR) is made once for sample, the input of
// a first iteration, and checked so: a template that fails or never ends
// is found before the run.
func (op *Op) Prepare(ctx context.Context, client *mcp.Client, overHTTP bool, timeout time.Duration, readFile func(string) ([]byte, error), warnf func(string, ...any), sample any) error {
	op.http = overHTTP
	switch op.kind {
	case "call":
		if err := client.Require("tools", "tools/call"); err != nil {
			return err
		}
		return op.prepareCall(ctx, client, timeout, readFile, warnf, sample)
	case "read":
		return client.Require("resources", "resources/read")
	case "get-prompt":
		if err := client.Require("prompts", "prompts/get"); err != nil {
			return err
		}
		ms, _ := stringargs.Parse(op.words[1:], "prompt arguments")
		all := ms
		for _, t := range op.tmpls {
			all = append(all, stringargs.Member{Key: t.Key, Value: json.RawMessage(`""`)})
		}
		if err := stringargs.CheckPrompt(ctx, client, op.target, all, warnf); err != nil {
			return err
		}
		op.args = stringargs.Object(ms)
		op.params = op.promptParams(op.args)
		if op.Varies() {
			if _, err := op.Params(ctx, sample); err != nil {
				return errkind.Usagef("get-prompt %s: %v", op.target, err)
			}
		}
	case "ping", "request":
	default:
		method, _, _ := list(op.kind)
		return client.Require(strings.Split(method, "/")[0], method)
	}
	return nil
}

// prepareCall types the call's arguments by the tool's inputSchema and
// checks them, as mcpv call does.
func (op *Op) prepareCall(ctx context.Context, client *mcp.Client, timeout time.Duration, readFile func(string) ([]byte, error), warnf func(string, ...any), sample any) error {
	def, err := client.FindTool(ctx, op.target)
	if op.lazy && err != nil {
		// A scenario's step whose tool a capture names: its arguments go
		// untyped (the placeholder names no tool).
		op.setTool(mcp.Tool{Name: op.target})
		return nil
	}
	switch {
	case errors.As(err, new(*mcp.CallError)):
		warnf("could not list the tools (%v); arguments not typed or checked", err)
		def = mcp.Tool{Name: op.target}
	case err != nil:
		return err
	}
	op.setTool(def)
	if op.lazy {
		return nil
	}
	check := toolcall.Checker{Tool: op.target, Timeout: timeout, Warnf: warnf}
	typing, cancel := check.Bounded(ctx, "typing the arguments of tool "+op.target)
	defer cancel()
	err = op.typeArgs(typing, readFile)
	switch {
	case typing.Err() != nil:
		return context.Cause(typing)
	case err != nil:
		return errkind.Usage(err)
	}
	args := op.args
	op.flat = flatTemplates(op.tmpls, args)
	if op.Varies() {
		// The arguments of a first iteration are what the schema checks:
		// the others are sent as their templates make them (a value the
		// schema refuses is the server's to answer).
		if args, err = op.callArgs(ctx, sample, nil, 0); err != nil {
			// %v: a template that fails is the command line's mistake (2),
			// not a filter's run on a result (6).
			return errkind.Usagef("call %s: %v", op.target, err)
		}
	}
	if len(def.InputSchema) > 0 {
		violation, err := check.Check(ctx, "inputSchema", def.InputSchema, args)
		if err != nil {
			return err
		}
		if violation != nil {
			return errkind.Usagef("%s; nothing sent", toolcall.ArgumentProblem(op.target, def.InputSchema, args, violation))
		}
	}
	op.params = toolcall.Params(op.target, op.args, nil)
	return nil
}

func (op *Op) promptParams(args json.RawMessage) json.RawMessage {
	return rawjson.MustMarshal(struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments,omitempty"`
	}{op.target, args})
}

// Params is the request's params for an iteration whose input is in (a
// loaddata.Input's Value): the prepared ones, with each template's value.
func (op *Op) Params(ctx context.Context, in any) (json.RawMessage, error) {
	if !op.Varies() {
		return op.params, nil
	}
	if op.kind == "get-prompt" {
		ms, _ := stringargs.Parse(op.words[1:], "prompt arguments")
		for _, t := range op.tmpls {
			v, err := t.Eval(ctx, in)
			if err != nil {
				return nil, err
			}
			if v[0] != '"' { // a prompt's arguments are strings: any other value as its JSON text
				v = rawjson.MustMarshal(string(v))
			}
			ms = append(ms, stringargs.Member{Key: t.Key, Value: v})
		}
		return op.promptParams(stringargs.Object(ms)), nil
	}
	// A varying iteration's call params are the arguments as callArgs
	// wrote them, compact, in the one buffer they are made in (not
	// checked and encoded again by toolcall.Params, which escapes <, > and &).
	head := append(rawjson.AppendString([]byte(`{"name":`), op.target), `,"arguments":`...)
	b, err := op.callArgs(ctx, in, head, 1)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// flatTemplates reports whether every template's key is plain and none
// of args' (a JSON object).
func flatTemplates(ts []loaddata.Template, args json.RawMessage) bool {
	var typed map[string]json.RawMessage
	if json.Unmarshal(args, &typed) != nil || len(args) < 2 {
		return false
	}
	return !slices.ContainsFunc(ts, func(t loaddata.Template) bool {
		_, ok := typed[t.Key]
		return ok || strings.Contains(t.Key, ".")
	})
}

// callArgs are a call's arguments for in, appended to head with room
// for spare bytes more: the typed ones, and each template's value at its
// key (dotted keys nest, as key:=JSON's do).
func (op *Op) callArgs(ctx context.Context, in any, head []byte, spare int) ([]byte, error) {
	vals := make([]loaddata.Value, len(op.tmpls))
	size := len(head) + len(op.args) + spare
	for i, t := range op.tmpls {
		v, err := t.Value(ctx, in)
		if err != nil {
			return nil, err
		}
		vals[i], size = v, size+v.Len()+len(t.Key)+8
	}
	if !op.flat {
		words := make([]string, len(op.tmpls))
		for i, t := range op.tmpls {
			words[i] = t.Key + ":=" + string(vals[i].AppendTo(nil))
		}
		args, err := toolargs.Build(ctx, words, op.args, toolargs.Options{})
		if err != nil {
			return nil, err
		}
		return append(append(make([]byte, 0, len(head)+len(args)+spare), head...), args...), nil
	}
	// The typed object, its closing brace replaced by the templates'
	// members, written once at its size.
	b := append(make([]byte, 0, size), head...)
	b = append(b, op.args[:len(op.args)-1]...)
	for i, t := range op.tmpls {
		if len(b) > len(head)+1 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, t.Key)
		b = append(b, ':')
		b = vals[i].AppendTo(b)
	}
	return append(b, '}'), nil
}

// result sends the operation once, with params (st's string in place of
// its marker, when st is not nil), and returns its result (with
// errToolFailed for a tool's isError: true); a list's, when op keeps it,
// is its pages' items merged: {"tools": [...]}.
func (op *Op) result(ctx context.Context, client *mcp.Client, params json.RawMessage, st *mcp.Streamed) (json.RawMessage, error) {
	switch op.kind {
	case "call":
		res, err := op.sender.Send(ctx, client, params, st, op.http, func(ctx context.Context) (mcp.Tool, error) {
			return client.FindTool(ctx, op.target)
		})
		if err == nil && toolcall.ResultFields(res).IsError {
			err = errToolFailed
		}
		return res, err
	case "read":
		return client.CallStreamed(ctx, "resources/read", params, st)
	case "get-prompt":
		return client.CallStreamed(ctx, "prompts/get", params, st)
	case "request":
		return client.CallStreamed(ctx, op.target, params, st)
	case "ping":
		return client.Ping(ctx) // as mcpv ping does
	}
	method, key, _ := list(op.kind)
	items, err := mcp.Items(client.Walk(ctx, method, key, 0), func(json.RawMessage) bool { return op.keep })
	if err != nil || !op.keep {
		return nil, err
	}
	if items == nil {
		items = []json.RawMessage{}
	}
	return rawjson.MustMarshal(map[string][]json.RawMessage{key: items}), nil
}

// setTool makes def the tool op calls, its x-mcp-header annotations read
// once for every call.
func (op *Op) setTool(def mcp.Tool) {
	op.tool, op.sender = def, toolcall.ToolOf(def).Read()
}

// typeArgs types a call's key=value words (not its templates) by its
// tool's inputSchema, reading @FILE with readFile.
func (op *Op) typeArgs(ctx context.Context, readFile func(string) ([]byte, error)) error {
	args, err := toolargs.Build(ctx, op.words[1:], nil, toolargs.Options{
		Schema:   op.tool.InputSchema,
		ReadFile: readFile,
		Stdin:    func() ([]byte, error) { return nil, errors.New("stdin (@-) cannot feed a load run: give a file") },
	})
	if err != nil {
		return fmt.Errorf("call %s: %w", op.target, err)
	}
	op.args = args
	return nil
}

// errToolFailed is a result with isError: true.
var errToolFailed = errors.New("the tool reported an error (isError: true)")
