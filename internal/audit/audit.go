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
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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

// MarshalText writes a severity as its name, in a report's JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseSeverity reads a severity's name.
func ParseSeverity(name string) (Severity, bool) {
	i := slices.Index(severityNames[:], name)
	return Severity(max(i, 0)), i >= 0
}

// Finding is one sign found in a surface.
type Finding struct {
	Rule     string   `json:"rule"` // the rule's id
	Severity Severity `json:"severity"`
	Server   string   `json:"server"`         // the server's name in the audit
	Kind     string   `json:"kind"`           // "tool", "prompt", "resource", "resource template", "instructions" or "server"
	Name     string   `json:"name,omitempty"` // the item's name, URI or template ("" for instructions and the server)
	Field    string   `json:"field"`          // where in the item: "description", "inputSchema.properties.note.description", "name"
	Message  string   `json:"message"`        // what was found, in a sentence
	// Excerpt is the offending text with some of what is around it, made
	// safe for a terminal (escapes shown, invisible characters named) and
	// with secrets masked.
	Excerpt string `json:"excerpt,omitempty"`
	// Decoded is hidden text the finding decoded (Unicode tags, base64),
	// made safe and masked likewise; "" when there is none.
	Decoded string `json:"decoded,omitempty"`
	// Source is where the server's surface was read: a file, or "" for a
	// live server; Line is the line in it where the item is, 0 when not
	// known.
	Source string `json:"source,omitempty"`
	Line   int    `json:"line,omitempty"`
	// Evidence is what a finding of high or above stands on besides its
	// own reading: the second thing its rule read, or another rule's
	// finding in the same item that agrees (see evidence).
	Evidence []Reading `json:"evidence,omitempty"`
	// pair is the second reading a rule made of the same text itself (a
	// destination beside the order that sends to it), "" for none; phrase
	// is where in its field a set phrase matched (zero for no phrase).
	pair   string
	phrase [2]int
	// cut is the text and the span the excerpt is to quote, while the
	// rules of one text run: it is quoted once the findings of the text
	// are merged, not for each place found.
	cut *cut
}

// cut is the text of a finding and where in it.
type cut struct {
	text string
	s, e int
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
	// Unread are the server's lists that were not read in full: each is
	// a finding (unread-list), so that a gate that asks for it fails.
	Unread []Unread
}

// Unread is a list of a server's that was not read in full: its method,
// and what happened ("answered an error (-32603 ...): its items were not
// audited").
type Unread struct{ Method, Message string }

// Audit runs every rule over each target, and the rules that compare
// servers over all of them together (the same or look-alike names on two
// servers, a description that names another server's tool). The
// findings come by server, item and field, then by severity, highest
// first.
//
// Audit reads each target's items once, and lets their bytes go once it
// has (the lists of targets[i].Surface are emptied): a large surface is
// held once, as its texts, while the rules read it.
func Audit(targets []Target) []Finding {
	var all []Finding
	decoded := make([]*auditee, len(targets))
	for i := range targets {
		decoded[i] = decodeServer(targets[i].Surface)
		s := &targets[i].Surface
		s.Tools, s.Prompts, s.Resources, s.ResourceTemplates = nil, nil, nil, nil
		all = append(all, place(&targets[i], auditOne(decoded[i]))...)
		for _, u := range targets[i].Unread {
			all = append(all, place(&targets[i], []Finding{{Rule: RuleUnreadList, Severity: Low, Server: decoded[i].Name, Kind: "server", Field: u.Method, Message: u.Message}})...)
		}
	}
	all = evidence(append(all, acrossServers(targets, decoded)...))
	Sort(all)
	return all
}

// Sort puts findings in the order Audit gives them: by server, item and
// field, then by severity, highest first.
func Sort(findings []Finding) {
	kinds := []string{"server", "instructions", "tool", "prompt", "resource", "resource template"}
	slices.SortStableFunc(findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Source, b.Source), cmp.Compare(slices.Index(kinds, a.Kind), slices.Index(kinds, b.Kind)),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Field, b.Field), cmp.Compare(b.Severity, a.Severity), cmp.Compare(a.Rule, b.Rule))
	})
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

// auditOne runs the rules of one server's surface.
func auditOne(s *auditee) []Finding {
	found := slices.Concat(parameterRules(s), withinServer(s), structureRules(s), s.costly, listedTwice(s))
	fields, unread := fieldsOf(s)
	pairs, byLower := combinations(s, fields)
	s.keep(fields)
	found = combine(wholeOnly(slices.Concat(found, pairs, serverWhole(s, fields), unread, scanFields(s.Name, fields, s.own))))
	return append(found, partners(s.Name, byLower, found)...)
}

// wholeRules are the rules an item's whole text is read by: those of
// orders a sentence gives, which a sentence split across fields still
// gives. The others read what a field is (a parameter, a comment, an
// encoding), which the joined text is not.
var wholeRules = []string{RuleOverride, RuleConceal, RuleSendElsewhere, RuleSensitiveFile, RuleShadowing, RuleCoercion, RulePriority, RuleSideChannel}

// wholeOnly keeps a finding of an item's whole text (wholePrefix) only by
// wholeRules, one of the server's (serverWholePrefix) by those and the
// side channels its sentences give, and where no one field of the item
// was found so by the same rule at that severity or above.
func wholeOnly(found []Finding) []Finding {
	type key struct{ kind, name, rule string }
	best := map[key]Severity{}
	for _, f := range found {
		if k := (key{f.Kind, f.Name, f.Rule}); !strings.HasPrefix(f.Field, wholePrefix) && !strings.HasPrefix(f.Field, serverWholePrefix) {
			best[k] = max(best[k], f.Severity)
		}
	}
	return slices.DeleteFunc(found, func(f Finding) bool {
		s, ok := best[key{f.Kind, f.Name, f.Rule}]
		whole, server := strings.HasPrefix(f.Field, wholePrefix), strings.HasPrefix(f.Field, serverWholePrefix)
		return (whole || server) && (!slices.Contains(wholeRules, f.Rule) && !(server && f.Rule == RuleSideChannel) || ok && s >= f.Severity)
	})
}

// scanFields runs the rules that read one text over each of fields, on
// as many goroutines as the machine runs at once: the findings come in
// the fields' order.
func scanFields(server string, fields []field, own map[string]bool) []Finding {
	per := make([][]Finding, len(fields))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(fields)/64))
	var next atomic.Int64 // the next field to read
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { // audit workers: each reads the next text until none is left
			for {
				k := int(next.Add(1)) - 1
				if k >= len(fields) {
					return
				}
				per[k] = scanField(server, fields[k], own)
			}
		})
	}
	wg.Wait()
	return slices.Concat(per...)
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
