// Package audit reads what servers show a model (their tools, prompts,
// resources, templates, instructions and who they say they are) for the
// signs of a server that steers the model it serves: hidden or invisible
// text, instructions aimed at the model rather than at describing the
// tool (to ignore what it was told, keep things from the user, read keys
// and other clients' configs, carry data out through a parameter, send
// copies elsewhere), a tool that tells the model how to use another,
// names that look like others', and secrets left in the surface.
//
// Every rule is deterministic and local: the audit reads a surface (from
// a live server or a file) and sends nothing anywhere. A finding names
// its rule, its severity, the item and field, and quotes the offending
// text made safe for a terminal, with secrets masked.
package audit

import (
	"cmp"
	"slices"

	"github.com/mcpv/mcpv/internal/surface"
)

// Severity is how much a finding matters, from Info to Critical.
type Severity int

// The severities, lowest first.
const (
	Info Severity = iota
	Low
	Medium
	High
	Critical
	// Never is a --fail-on that no finding reaches ("none").
	Never
)

var severityNames = [...]string{"info", "low", "medium", "high", "critical", "none"}

func (s Severity) String() string { return severityNames[s] }

// ParseSeverity reads a severity's name.
func ParseSeverity(name string) (Severity, bool) {
	for i, n := range severityNames {
		if n == name {
			return Severity(i), true
		}
	}
	return 0, false
}

// Finding is one sign found in a surface.
type Finding struct {
	Rule     string // the rule's id
	Severity Severity
	Server   string // the server's name in the audit
	Kind     string // "tool", "prompt", "resource", "resource template", "instructions" or "server"
	Name     string // the item's name, URI or template ("" for instructions and the server)
	Field    string // where in the item: "description", "inputSchema.properties.note.description", "name"
	Message  string // what was found, in a sentence
	// Excerpt is the offending text with some of what is around it, made
	// safe for a terminal (escapes shown, invisible characters named) and
	// with secrets masked.
	Excerpt string
	// Decoded is hidden text the finding decoded (Unicode tags, base64),
	// made safe and masked likewise; "" when there is none.
	Decoded string
	// Source is where the server's surface was read: a file, or "" for a
	// live server; Line is the line in it where the item is, 0 when not
	// known.
	Source string
	Line   int
}

// Item labels the finding's item: `tool "add"`, "instructions".
func (f Finding) Item() string { return label(f.Kind, f.Name) }

// Target is one surface to audit, and where it was read.
type Target struct {
	Surface surface.Server
	// Source is the file the surface was read from (a pin file, a
	// snapshot, a recording), or the config file that names a live
	// server; "" for a live server given by its command line or URL.
	Source string
	// Lines finds the line of an item in Source (0: not known); nil
	// when there is none.
	Lines func(kind, name string) int
}

// Audit runs every rule over each target, and the rules that compare
// servers over all of them together (the same or look-alike names on two
// servers, a description that names another server's tool). The
// findings come by server, item and field, then by severity, highest
// first.
func Audit(targets []Target) []Finding {
	var all []Finding
	for i := range targets {
		all = append(all, place(&targets[i], auditOne(&targets[i]))...)
	}
	all = append(all, acrossServers(targets)...)
	slices.SortStableFunc(all, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Source, b.Source), cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind)),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Field, b.Field), cmp.Compare(b.Severity, a.Severity), cmp.Compare(a.Rule, b.Rule))
	})
	return all
}

// place gives findings of a target's surface its source and their lines.
func place(t *Target, found []Finding) []Finding {
	for i := range found {
		found[i].Source = t.Source
		if t.Lines != nil {
			found[i].Line = t.Lines(found[i].Kind, found[i].Name)
		}
	}
	return found
}

func kindOrder(kind string) int {
	return slices.Index([]string{"server", "instructions", "tool", "prompt", "resource", "resource template"}, kind)
}

// auditOne runs the rules of one server's surface.
func auditOne(t *Target) []Finding {
	s := t.Surface
	var found []Finding
	own := ownNames(s)
	for _, fl := range fieldsOf(s) {
		found = append(found, scanField(s.Name, fl, own)...)
	}
	found = append(found, parameterRules(s)...)
	found = append(found, withinServer(s)...)
	found = append(found, listedTwice(t)...)
	return combine(found)
}

// Counts are how many findings there are of each severity.
func Counts(findings []Finding) [Never]int {
	var n [Never]int
	for _, f := range findings {
		n[f.Severity]++
	}
	return n
}

// Failing reports whether a finding is at or above failOn.
func Failing(findings []Finding, failOn Severity) bool {
	return slices.ContainsFunc(findings, func(f Finding) bool { return f.Severity >= failOn })
}
