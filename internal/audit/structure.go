package audit

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/lazy"
)

// structureRules read what each tool is, not how it is worded: what its
// parameters' names ask for against what the tool says it is (its name,
// title and first sentence), and what they say it does against what its
// annotations and words claim. A weather tool with a parameter for
// aws_credentials, or one that claims to be read-only and takes a
// webhook, says which.
func structureRules(s *auditee) []Finding {
	var out []Finding
	tools := s.lists[0]
	for i := range tools.items {
		m := tools.item(i)
		props, _ := nested(m, "inputSchema", "properties").(map[string]any)
		if len(props) == 0 {
			continue
		}
		name, _ := m["name"].(string)
		desc := stringOf(m["description"])
		desc = desc[:runeStart(desc, min(len(desc), 4096))] // what a tool says it is, it says first
		purpose := strings.ToLower(name + " " + stringOf(m["title"]) + " " + cmp.Or(firstSentence(desc), desc))
		claim := claimsNoSideEffects(m, desc)
		// what the tool's other parameters take is its purpose too: a
		// lookup of a person by name, birth date and address has a use
		// for their national id; not the parameters that ask for such things
		asked, said := map[string]bool{}, purpose
		for _, p := range sortedKeys(props) {
			if what, _ := asksFor(p, squash(p)); what != "" {
				asked[p] = true
			} else {
				purpose += " " + strings.ToLower(nameWords(splitCamel(p)))
			}
		}
		for _, p := range sortedKeys(props) {
			sq := squash(p)
			path := "inputSchema.properties" + pathKey(p)
			if what, fits := asksFor(p, sq); asked[p] && !fitsPurpose(purpose, fits) {
				sev, more := Medium, ""
				if contentWord(sq) {
					sev, more = High, ", its contents"
				}
				out = append(out, Finding{Rule: RuleSideChannel, Severity: sev, Server: s.Name, Kind: "tool", Name: name, Field: path,
					Message: fmt.Sprintf("asks for %s%s (%q), which a tool that says it is %q has no use for", what, more, p, clip(strings.Join(strings.Fields(said), " "), 60)),
					Excerpt: canon.Show(p)})
			}
			does := sideEffect(sq)
			if does != "" && does != "deletes" && !carries(props[p]) {
				does = "" // a flag sends nothing: skip_callback_uri_confirmation
			}
			if pd, _ := nested(props, p, "description").(string); does == "" && sendsToRe.Get().MatchString(strings.ToLower(pd[:runeStart(pd, min(len(pd), 1024))])) {
				does = "its description says sends what it is given elsewhere"
			}
			if claim != "" && does != "" && !namesAReference(p) {
				out = append(out, Finding{Rule: RuleAnnotationMismatch, Severity: Medium, Server: s.Name, Kind: "tool", Name: name, Field: path,
					Message: fmt.Sprintf("claims %s, and takes %q, which %s", claim, p, does), Excerpt: canon.Show(p)})
			}
		}
	}
	return out
}

// asksFor is the kind of thing a squashed parameter name asks for, of
// the lexicon's asks entries, and the words of a purpose that fits it.
func asksFor(name, squashed string) (string, string) {
	var words []string // the name's words, read for a name of "=word"
	for _, e := range lexicon.Get().byName["asks"] {
		for n := range askNames(e) {
			if w, whole := strings.CutPrefix(n, "="); whole {
				if words == nil {
					words = strings.Fields(strings.ToLower(nameWords(splitCamel(name))))
				}
				if slices.Contains(words, w) {
					return e.message, e.attrs["fits"]
				}
			} else if strings.Contains(squashed, squash(n)) { // squashed alike: i and l are one letter
				return e.message, e.attrs["fits"]
			}
		}
	}
	return "", ""
}

// askNames are the names of an asks entry, its lines' names apart at "|".
func askNames(e *lexEntry) iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, line := range e.alts {
			for n := range strings.SplitSeq(line, "|") {
				if !yield(n) {
					return
				}
			}
		}
	}
}

// fitsPurpose reports a purpose that holds a word of fits ("a|b|c").
func fitsPurpose(purpose, fits string) bool {
	return fits != "" && containsAny(purpose, strings.Split(fits, "|")...)
}

// contentWord reports a name that asks for the thing's contents, not a
// reference to it.
func contentWord(squashed string) bool {
	return containsAny(squashed, squash("content"), "text", "raw", "dump", squash("verbatim"), squash("full"), "body", "data", "value")
}

// sideEffect is what a squashed parameter name says the tool does beyond
// reading ("" for nothing): sends what it is given elsewhere, or deletes.
func sideEffect(squashed string) string {
	switch {
	case containsAny(squashed, squashedWords("sendsOut")...):
		return "sends what it is given elsewhere"
	case hasPrefixAny(squashed, squash("delete"), "purge", "wipe", "destroy", "erase"): // (remove_duplicates trims a result)
		return "deletes"
	}
	return ""
}

// sendsToRe finds a parameter's description that says what the tool is
// given goes to the address the parameter holds: "Also posts the text to
// this URL".
var sendsToRe = &lazy.Regexp{Pattern: `\b(?:posts?|sends?|uploads?|forwards?|mirrors?|copies|relays?|submits?|pushes)\b[^.;\n]{0,40}\bto\s+(?:this|the\s+given|that|the)\s+(?:url|address|endpoint|webhook|server|host|inbox)\b`}

// claimsNoSideEffects is what a tool claims that a parameter which sends
// out contradicts ("" for nothing): readOnlyHint, openWorldHint: false,
// or "no side effects" in its description.
func claimsNoSideEffects(m map[string]any, desc string) string {
	switch lower := strings.ToLower(desc); {
	case nested(m, "annotations", "readOnlyHint") == true:
		return "to be read-only (readOnlyHint)"
	case nested(m, "annotations", "openWorldHint") == false:
		return "to reach nothing outside (openWorldHint: false)"
	case containsAny(lower, "no side effects", "no side-effects", "without side effects", "read-only", "read only", "never sends", "sends nothing"):
		return "no side effects in its description"
	}
	return ""
}
