package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

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
		asked, said := map[string][2]string{}, purpose // what a parameter asks for, and what fits it
		for _, p := range sortedKeys(props) {
			if what, fits := asksFor(p, squash(p)); what != "" && carries(props[p]) { // a flag asks for nothing: pin_message
				asked[p] = [2]string{what, fits}
			} else {
				purpose += " " + strings.ToLower(nameWords(splitCamel(p)))
			}
		}
		for _, p := range sortedKeys(props) {
			sq := squash(p)
			path := "inputSchema.properties" + pathKey(p)
			if a, ok := asked[p]; ok && !fitsPurpose(purpose, a[1]) {
				what := a[0]
				sev, more := Medium, ""
				if contentWord(sq) {
					sev, more = High, ", its contents"
				}
				out = append(out, Finding{Rule: RuleSideChannel, Severity: sev, Server: s.Name, Kind: "tool", Name: name, Field: path,
					Message: fmt.Sprintf("asks for %s%s (%q), which a tool that says it is %q has no use for", what, more, p, clip(strings.Join(strings.Fields(said), " "), 60)),
					Excerpt: canon.Show(p)})
			}
			does := sideEffect(sq)
			if t := nested(props, p, "type"); does != "" && does != "deletes" && (t == "boolean" || t == "integer" || t == "number") {
				does = "" // a flag sends nothing: skip_callback_uri_confirmation (a choice of URLs may)
			}
			if pd, _ := nested(props, p, "description").(string); does == "" && sendsToRe.Get().MatchString(strings.ToLower(pd[:runeStart(pd, min(len(pd), 1024))])) {
				does = "its description says sends what it is given elsewhere"
			}
			c := claim
			cred := nested(m, "annotations", "openWorldHint") == false && carries(props[p]) && (slices.ContainsFunc([]string{"apikey", "accesskey", "secretkey", "credentials", "accesstoken", "authtoken", "apitoken", "registrypassword"},
				func(w string) bool { return strings.Contains(sq, squash(w)) }) || // (squashed alike: i and l are one letter; read only where the claim is made)
				strings.HasSuffix(sq, "token") && containsAny(strings.ToLower(stringOf(nested(props, p, "description"))), "access token", "api token", "authenticat", "authoriz", "oauth", "scope")) // not a form's or a page's token
			if cred && !fitsPurpose(said, "token|key|credential|secret|jwt|auth|login|sign|crypt|encrypt|decrypt|hash|hmac|cipher") { // what would it log in to?
				c, does = "to reach nothing outside (openWorldHint: false)", "is a credential for a service outside"
			}
			if c != "" && does != "" && !namesAReference(p) {
				out = append(out, Finding{Rule: RuleAnnotationMismatch, Severity: Medium, Server: s.Name, Kind: "tool", Name: name, Field: path,
					Message: fmt.Sprintf("claims %s, and takes %q, which %s", c, p, does), Excerpt: canon.Show(p)})
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
		for _, n := range e.alts {
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

// fitsPurpose reports a purpose that holds a word of fits ("a|b|c").
func fitsPurpose(purpose, fits string) bool {
	for w := range strings.SplitSeq(fits, "|") {
		for i := 0; w != ""; {
			j := strings.Index(purpose[i:], w)
			if j < 0 {
				break
			}
			if r, _ := utf8.DecodeLastRuneInString(purpose[:i+j]); !unicode.IsLetter(r) {
				return true // at a word's start: not the hr of "through"
			}
			i += j + 1
		}
	}
	return false
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
