package commands

// One tool at a time: `mcpv call TOOL --help -- SERVER` prints the tool's
// arguments as a usage block made from its inputSchema (and what it
// returns from its outputSchema), so that an agent reads the one schema
// it needs; `mcpv list-tools --names` lists the tools by name and the
// first line of each description.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/mcp"
)

// usageSchema is what a usage block reads of a JSON Schema: readSchema
// decodes Properties and Items from their bytes, a level at a time.
type usageSchema struct {
	Type        json.RawMessage            `json:"type"`
	Description string                     `json:"description"`
	RawProps    map[string]json.RawMessage `json:"properties"`
	Required    []string                   `json:"required"`
	Enum        []json.RawMessage          `json:"enum"`
	Default     json.RawMessage            `json:"default"`
	RawItems    json.RawMessage            `json:"items"`
	Properties  map[string]*usageSchema    `json:"-"`
	Items       *usageSchema               `json:"-"`
}

const schemaLevels = 5 // the levels of an argument's schema (its items', theirs...) a usage block reads; past them, JSON

// readSchema reads levels levels of the schema raw (nil past them, and for
// none or null), each from its own bytes once: a schema nested thousands
// deep costs no decode per level below each level. true and false (JSON
// Schema's any and none) tell nothing of the value; a schema of another
// type is a broken tool.
func readSchema(what string, raw json.RawMessage, levels int) (s *usageSchema, err error) {
	if len(raw) == 0 || string(raw) == "null" || levels == 0 {
		return nil, nil
	}
	if s = new(usageSchema); string(raw) == "true" || string(raw) == "false" {
		return s, nil
	}
	if err = mcp.DecodeResult(what, raw, s); err == nil {
		s.Items, err = readSchema(what, s.RawItems, levels-1)
	}
	s.Properties = make(map[string]*usageSchema, len(s.RawProps))
	for k, p := range s.RawProps {
		if err == nil {
			s.Properties[k], err = readSchema(what, p, levels-1)
		}
	}
	return s, err
}

// A usage block shows what a server wrote to a screen's worth, on a
// terminal or off it, and says what it left out and how to see it all: a
// description to helpLines lines or helpBytes bytes, whichever comes
// first, an argument's name and its note to lineBytes each, helpArgs
// arguments.
const helpLines, helpBytes, lineBytes, helpArgs = 40, 4 << 10, 200, 100

// toolUsage is def's usage block: how to call it, its description, each
// argument (its key=value form, type, whether required, its values, its
// default, the first line of its description), then what it returns. A
// definition whose description or schemas do not decode is a tools/list
// the server broke.
func toolUsage(def mcp.Tool) (string, error) {
	var doc struct {
		Description string
		In          json.RawMessage `json:"inputSchema"`
		Out         json.RawMessage `json:"outputSchema"`
	}
	what := fmt.Sprintf("tools/list: tool %q", def.Name)
	if err := mcp.DecodeResult(what, def.Raw, &doc); err != nil {
		return "", err
	}
	in, err := readSchema(what, doc.In, schemaLevels+1)
	out, errOut := readSchema(what, doc.Out, schemaLevels+1)
	if err = cmp.Or(err, errOut); err != nil {
		return "", err
	}
	in, description := cmp.Or(in, &usageSchema{}), doc.Description
	var b strings.Builder
	words := []string{"mcpv", "call", def.Name}
	for _, k := range slices.Sorted(maps.Keys(in.Properties)) {
		if slices.Contains(in.Required, k) {
			words = append(words, k+"="+placeholder(in.Properties[k]))
		}
	}
	fmt.Fprintf(&b, "Usage: %s [key=value ...] -- SERVER\n", safetext.Line(safetext.Clip(strings.Join(words, " "), helpBytes)))
	whole := "mcpv list-tools " + shellwords.Quote(def.Name)
	if d := strings.TrimSpace(description); d != "" {
		head, more := screenful(d)
		fmt.Fprintf(&b, "\n%s\n", safetext.Text(head))
		if more != "" {
			fmt.Fprintf(&b, "%s; all of it: %s -r -q .description -- SERVER\n", more, safetext.Line(whole))
		}
	}
	if len(in.Properties) > 0 {
		b.WriteString("\nArguments:\n")
		writeProperties(&b, *in, "=", whole+" -q .inputSchema")
		b.WriteString("\nA value is typed by the schema (key=VALUE); key:=JSON gives any JSON; an array's key is given\nonce per item; key.sub=VALUE fills an object ('mcpv help arguments').\n")
	} else {
		b.WriteString("\nArguments: none\n")
	}
	if out != nil {
		b.WriteString("\nReturns (structuredContent):\n")
		writeProperties(&b, *out, ": ", whole+" -q .outputSchema")
	}
	if def.TaskSupport != "" && def.TaskSupport != "forbidden" {
		fmt.Fprintf(&b, "\nAs a task: %s (--task, --detach; 'mcpv help tasks').\n", def.TaskSupport)
	}
	return b.String(), nil
}

// screenful is a description cut to helpLines lines or helpBytes bytes,
// and what says how much was left out ("" when nothing was).
func screenful(d string) (head, more string) {
	head, _ = safetext.Cut(d, helpBytes)
	if lines := strings.SplitAfterN(head, "\n", helpLines+1); len(lines) > helpLines {
		head = strings.TrimSuffix(strings.Join(lines[:helpLines], ""), "\n")
	}
	if len(head) == len(d) {
		return d, ""
	}
	rest := strings.TrimPrefix(d[len(head):], "\n")
	more = fmt.Sprintf("… %d more bytes", len(rest))
	if n := strings.Count(rest, "\n") + 1; n > 1 {
		more += fmt.Sprintf(" in %d lines", n)
	}
	return head, more + " left out"
}

// writeProperties writes s's properties, one a line, sorted, required
// first, helpArgs of them (whole is the command that shows them all):
// each as key + sep + its placeholder, then what is known of it.
func writeProperties(b *strings.Builder, s usageSchema, sep, whole string) {
	keys, required := slices.Sorted(maps.Keys(s.Properties)), func(k string) bool { return slices.Contains(s.Required, k) }
	keys = append(slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return !required(k) }), slices.DeleteFunc(keys, required)...)
	left := len(keys) - helpArgs
	keys = keys[:min(len(keys), helpArgs)]
	var heads, tails []string
	width := 0
	for _, k := range keys {
		p := cmp.Or(s.Properties[k], &usageSchema{})
		var notes []string
		if required(k) {
			notes = append(notes, "required")
		}
		if len(p.Enum) > 0 {
			vals := make([]string, 0, min(len(p.Enum), 12))
			for _, v := range p.Enum[:min(len(p.Enum), 12)] {
				vals = append(vals, safetext.Clip(string(v), 60))
			}
			if len(p.Enum) > 12 {
				vals = append(vals, fmt.Sprintf("and %d more", len(p.Enum)-12))
			}
			notes = append(notes, "one of "+strings.Join(vals, ", "))
		}
		if len(p.Default) > 0 {
			notes = append(notes, "default "+safetext.Clip(string(p.Default), 60))
		}
		if d, _, _ := strings.Cut(strings.TrimSpace(p.Description), "\n"); d != "" {
			notes = append(notes, d)
		}
		head := safetext.Line(safetext.Clip(k, lineBytes)) + sep + placeholder(s.Properties[k])
		heads, tails = append(heads, head), append(tails, safetext.Line(safetext.Clip(strings.Join(notes, "; "), lineBytes)))
		width = max(width, min(len(head), 32))
	}
	for i, head := range heads {
		fmt.Fprintf(b, "  %-*s  %s\n", width, head, tails[i])
	}
	if left > 0 {
		fmt.Fprintf(b, "  … and %d more: %s -- SERVER\n", left, safetext.Line(whole))
	}
}

// placeholder names a property's type as a value: STRING, INTEGER,
// NUMBER, BOOLEAN, JSON for an object (and for what readSchema left
// unread), TYPE... for an array of TYPE.
func placeholder(p *usageSchema) string {
	if p == nil {
		return "JSON"
	}
	t, _ := rawjson.String(p.Type) // a list of types is shown as JSON
	switch t {
	case "string", "integer", "number", "boolean":
		return strings.ToUpper(t)
	case "array":
		return placeholder(p.Items) + "..."
	case "object":
		return "JSON"
	}
	if len(p.Enum) > 0 {
		return "VALUE"
	}
	return "JSON"
}

// toolHelp makes 'call TOOL --help' with a server (given after --, by a
// flag, or by MCPV_URL, MCPV_SERVER or MCPV_SESSION: served) the tool's
// usage block ('list-tools TOOL --usage'); without one it is call's own
// help. The tool's key=value words, those right after it, are left out.
func toolHelp(args []string, served bool) []string {
	i := slices.Index(args, "call")
	if i < 0 || i+1 >= len(args) || strings.HasPrefix(args[i+1], "-") || i > 0 && valueFlags[args[i-1]] {
		return args
	}
	words := args[i+2:]
	for len(words) > 0 && !strings.HasPrefix(words[0], "-") {
		words = words[1:] // the tool's key=value words
	}
	rest := slices.DeleteFunc(slices.Clone(words), func(a string) bool { return a == "--help" || a == "-h" })
	if len(rest) == len(words) || !served && !slices.ContainsFunc(args[:i], serverFlag) && !slices.ContainsFunc(rest, serverFlag) {
		return args
	}
	return append(append(slices.Clone(args[:i]), "list-tools", args[i+1], "--usage"), rest...)
}

// valueFlags are the global flags whose value is the next word.
var valueFlags = map[string]bool{"-u": true, "--url": true, "-s": true, "--server": true, "--session": true, "-H": true, "--header": true, "--timeout": true, "-q": true, "--jq": true, "--config": true}

// serverFlag reports whether a names the server.
func serverFlag(a string) bool {
	name, _, _ := strings.Cut(a, "=")
	return name == "-u" || name == "--url" || name == "-s" || name == "--server" || name == "--session"
}
