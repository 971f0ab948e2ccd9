package surface

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/toolargs"
	"github.com/mcpv/mcpv/mcp"
)

// Finding is one way a server breaks a rule.
type Finding struct {
	Object   string // as in Change.Object (`tool "search"`, `tool #3` for one without a name), or "server" or "capabilities"
	Rule     string // one of the Rule constants
	Severity string // SeverityError or SeverityWarning
	Message  string
}

// String is the finding on one line: `error: tool "a b": name has
// characters other than A-Z a-z 0-9 _ - .: ' ' [tool-name]`.
func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", f.Severity, f.Object, f.Message, f.Rule)
}

// Severities. A test fails on an error; a warning is shown only.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// The rules, each with the severity of its findings:
const (
	// RuleToolName: a tool's name is missing, empty, longer than 128
	// characters, has characters other than A-Z a-z 0-9 _ - ., or is
	// listed twice (server/tools, "Tool Names"). Error.
	RuleToolName = "tool-name"
	// RuleInputSchema: inputSchema is missing, not an object, has no
	// "type": "object" at its root, or is not a valid schema in its
	// dialect. Error; a warning when mcpv cannot check it (nested deeper
	// than toolargs.MaxDepth, or a dialect mcpv does not know).
	RuleInputSchema = "input-schema"
	// RuleOutputSchema: outputSchema is not an object, has no "type":
	// "object" at its root in the initialize era (2026-07-28 allows any
	// root), or is not a valid schema in its dialect. Error; a warning
	// when mcpv cannot check it.
	RuleOutputSchema = "output-schema"
	// RuleStructuredResult: a tools/call result of a tool with an
	// outputSchema, not isError, has no structuredContent or one the
	// schema does not accept (CheckResult). Error.
	RuleStructuredResult = "structured-result"
	// RulePagination: a list repeats a cursor or never ends (its pages
	// stop bringing anything new: mcp.EndlessListError). Error.
	RulePagination = "pagination"
	// RuleCapabilities: a list method that answers though its capability
	// is not declared (an error), or a declared capability whose list
	// method is not found (a warning: many servers leave
	// resources/templates/list out, and the list is taken as empty).
	RuleCapabilities = "capabilities"
	// RuleList: a declared list method fails to list, or a page or an item
	// in it does not have the shape the specification gives (a page with no
	// array of items, an item that is no object, a prompt or template
	// without its name, a template without its uriTemplate, a prompt name
	// listed twice). Error.
	RuleList = "list"
	// RuleListRefused: a declared list method answered with an error of
	// the server's (its backend down, say), no list to judge. Error.
	RuleListRefused = "list-refused"
	// RuleDescription: a tool, a tool's argument (a property at the top of
	// its inputSchema), a prompt or a prompt's argument has no
	// description. Warning.
	RuleDescription = "description"
)

// probeWait bounds asking for a list the server does not declare: a
// server may leave a method it does not serve unanswered. Silence counts
// as not served.
const probeWait = 5 * time.Second

// maxToolName is the longest tool name the specification allows.
const maxToolName = 128

// Lint runs every check that needs only listing: each list method is
// asked for, declared or not (a list not declared only for its first
// page, for at most 5 s), its pages walked, and the tools, prompts and
// templates listed checked. Findings come in that order: the lists in
// the order tools, prompts, resources, templates, then each object in the
// server's order. The error is non-nil only when the server could not be
// talked to (the session ended, a request timed out, ctx ended).
// A list ls has walked already is not asked for again.
func (ls *Lister) Lint(ctx context.Context) ([]Finding, error) {
	l := &linter{c: ls.c, lister: ls}
	var tools, prompts, resources, templates []json.RawMessage
	for _, g := range []struct {
		l    mcp.List
		dest *[]json.RawMessage
	}{{mcp.Tools, &tools}, {mcp.Prompts, &prompts}, {mcp.Resources, &resources}, {mcp.ResourceTemplates, &templates}} {
		items, err := l.list(ctx, g.l)
		if err != nil {
			return nil, err
		}
		*g.dest = items
	}
	l.tools(ctx, tools)
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	l.prompts(prompts)
	l.located(resources, "resource", "uri")
	l.located(templates, "resource template", "uriTemplate")
	if icons, ok := members(ls.c.InitializeResult().ServerInfo)["icons"]; ok {
		l.icons("server", icons)
	}
	return l.findings, nil
}

type linter struct {
	c        *mcp.Client
	lister   *Lister
	findings []Finding
}

func (l *linter) add(rule, severity, object, format string, args ...any) {
	l.findings = append(l.findings, Finding{Object: object, Rule: rule, Severity: severity, Message: fmt.Sprintf(format, args...)})
}

// list walks one list the server declares, or probes one it does not,
// and returns the items listed.
func (l *linter) list(ctx context.Context, li mcp.List) ([]json.RawMessage, error) {
	if !l.c.HasCapability(li.Capability) {
		pctx, cancel := context.WithTimeout(ctx, probeWait)
		_, err := l.c.Call(pctx, li.Method, nil)
		cancel()
		switch {
		case err == nil:
			l.add(RuleCapabilities, SeverityError, "capabilities", "%s answers, but the %q capability is not declared", li.Method, li.Capability)
		case gone(ctx, l.c):
			return nil, err
		}
		return nil, nil
	}
	items, notes, err := l.lister.walk(ctx, li)
	for _, n := range notes {
		l.add(RuleList, SeverityError, "server", "%s", n)
	}
	var be *BudgetError
	rule, broken := brokenList(err)
	switch {
	case err == nil:
	case gone(ctx, l.c) || errors.As(err, new(*mcp.TimeoutError)):
		return nil, err
	case errors.As(err, &be):
		l.add(RuleList, SeverityWarning, "server", "%s", be.Error())
	case broken:
		l.add(rule, SeverityError, "server", "%s", safetext.Line(err.Error()))
	case unimplemented(err):
		l.add(RuleCapabilities, SeverityWarning, "capabilities", "%q is declared, but %s answers method not found (taken as an empty list)", li.Capability, li.Method)
	case errors.As(err, new(*mcp.CallError)):
		l.add(RuleListRefused, SeverityError, "server", "%s", safetext.Line(err.Error()))
	default:
		l.add(RuleList, SeverityError, "server", "%s", safetext.Line(err.Error()))
	}
	return items, nil
}

// gone reports whether the server can no longer be talked to.
func gone(ctx context.Context, c *mcp.Client) bool {
	return ctx.Err() != nil || c.Err() != nil
}

func (l *linter) tools(ctx context.Context, tools []json.RawMessage) {
	counts := map[string]int{}
	for _, raw := range tools {
		if name, ok := stringOf(members(raw)["name"]); ok {
			counts[name]++
		}
	}
	for i, raw := range tools {
		m := members(raw)
		if m == nil {
			l.add(RuleList, SeverityError, fmt.Sprintf("tool #%d", i+1), "is not a JSON object")
			continue
		}
		name, named := stringOf(m["name"])
		obj := fmt.Sprintf("tool %q", name)
		if !named {
			obj = fmt.Sprintf("tool #%d", i+1)
			l.add(RuleToolName, SeverityError, obj, "has no name")
		} else {
			for _, p := range toolNameProblems(name) {
				l.add(RuleToolName, SeverityError, obj, "%s", p)
			}
		}
		if n := counts[name]; named && n > 1 {
			l.add(RuleToolName, SeverityError, obj, "name is listed %d times", n)
			counts[name] = 0 // reported once, at the first
		}
		in, hasIn := m["inputSchema"]
		if !hasIn {
			l.add(RuleInputSchema, SeverityError, obj, "has no inputSchema")
		} else {
			l.schema(ctx, obj, RuleInputSchema, "inputSchema", in)
		}
		if out, ok := m["outputSchema"]; ok {
			l.schema(ctx, obj, RuleOutputSchema, "outputSchema", out)
		}
		if !described(m) {
			l.add(RuleDescription, SeverityWarning, obj, "has no description")
		}
		for _, arg := range undescribedProperties(in) {
			l.add(RuleDescription, SeverityWarning, obj, "argument %q has no description", arg)
		}
		l.shapes(obj, m, false)
	}
}

// toolNameProblems says how name breaks the rules of server/tools, "Tool
// Names" (https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names).
func toolNameProblems(name string) []string {
	var out []string
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		return []string{"name is empty"}
	case n > maxToolName:
		out = append(out, fmt.Sprintf("name is %d characters long, more than %d", n, maxToolName))
	}
	var bad []string
	for _, r := range name {
		ok := r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.'
		if q := strconv.QuoteRune(r); !ok && !slices.Contains(bad, q) {
			bad = append(bad, q)
		}
	}
	if len(bad) > 0 {
		out = append(out, "name has characters other than A-Z a-z 0-9 _ - .: "+strings.Join(bad, " "))
	}
	return out
}

// schema checks a tool's inputSchema or outputSchema (what, of rule): an
// object whose root has "type": "object", and a valid schema. The
// initialize era's schema has outputSchema.type const "object";
// 2026-07-28 allows any outputSchema.
func (l *linter) schema(ctx context.Context, obj, rule, what string, raw json.RawMessage) {
	m := members(raw)
	t, typed := m["type"]
	switch {
	case string(raw) == "null":
		l.add(rule, SeverityError, obj, "%s is null", what)
		return
	case m == nil:
		l.add(rule, SeverityError, obj, "%s is not a JSON object", what)
		return
	case rule == RuleInputSchema && !typed:
		l.add(rule, SeverityError, obj, `inputSchema has no "type"; it must be "object"`)
	case rule == RuleInputSchema && string(t) != `"object"`:
		l.add(rule, SeverityError, obj, `inputSchema has type %s; it must be "object"`, compact(t))
	case rule == RuleOutputSchema && !l.c.Modern() && string(t) != `"object"`:
		kind := "no type"
		if typed {
			kind = "type " + compact(t)
		}
		l.add(rule, SeverityError, obj, `outputSchema has %s; in protocol %s its root must be "object"`, kind, l.c.ProtocolVersion())
	}
	if _, problem, severity := compileSchema(ctx, what, raw); problem != "" {
		l.add(rule, severity, obj, "%s", problem)
	}
}

func (l *linter) prompts(prompts []json.RawMessage) {
	counts := map[string]int{}
	for _, raw := range prompts {
		if name, ok := stringOf(members(raw)["name"]); ok {
			counts[name]++
		}
	}
	for i, raw := range prompts {
		m := members(raw)
		name, named := stringOf(m["name"])
		obj := fmt.Sprintf("prompt %q", name)
		switch {
		case m == nil:
			l.add(RuleList, SeverityError, fmt.Sprintf("prompt #%d", i+1), "is not a JSON object")
			continue
		case !named || name == "":
			obj = fmt.Sprintf("prompt #%d", i+1)
			l.add(RuleList, SeverityError, obj, "has no name")
		case counts[name] > 1:
			l.add(RuleList, SeverityError, obj, "name is listed %d times", counts[name])
			counts[name] = 0
		}
		if !described(m) {
			l.add(RuleDescription, SeverityWarning, obj, "has no description")
		}
		args, hasArgs := m["arguments"]
		var list []json.RawMessage
		if hasArgs && string(args) != "null" && json.Unmarshal(args, &list) != nil {
			l.add(RuleList, SeverityError, obj, "arguments is not an array")
		}
		for j, a := range list {
			am := members(a)
			argName, ok := stringOf(am["name"])
			switch {
			case !ok || argName == "":
				l.add(RuleList, SeverityError, obj, "argument #%d has no name", j+1)
			case !described(am):
				l.add(RuleDescription, SeverityWarning, obj, "argument %q has no description", argName)
			}
		}
		l.shapes(obj, m, false)
	}
}

// undescribedProperties are the names of the properties at the top of a
// schema, in its order, that have no description of their own. A property
// that is a $ref may have its description where it points: it passes.
func undescribedProperties(schema json.RawMessage) []string {
	props := members(members(schema)["properties"])
	var out []string
	for _, name := range toolargs.PropertyNames(schema) {
		p := members(props[name])
		if p == nil || p["$ref"] != nil {
			continue
		}
		if !described(p) {
			out = append(out, name)
		}
	}
	return out
}

// described reports whether an object has a description that is not blank.
func described(m map[string]json.RawMessage) bool {
	d, ok := stringOf(m["description"])
	return ok && strings.TrimSpace(d) != ""
}

// members decodes a JSON object's members, raw; nil when raw is no object.
func members(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// stringOf decodes a JSON string; ok is false for anything else.
func stringOf(raw json.RawMessage) (string, bool) {
	var s string
	if raw == nil || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// compact is a JSON value on one line, made safe to show, cut at 100 bytes.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	return safetext.Line(safetext.Runes(b.String(), 100))
}
