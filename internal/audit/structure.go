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
				if containsAny(sq, squash("content"), "text", "raw", "dump", squash("verbatim"), squash("full"), "body", "data", "value") {
					sev, more = High, ", its contents" // a name that asks for the thing's contents, not a reference to it
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

// The lexicon's modelInternals and sideChannels, squashed once.
var (
	internalsSquashed = &lazy.Value[[]string]{New: func() []string { return squashedWords("modelInternals") }}
	channelsSquashed  = &lazy.Value[[]string]{New: func() []string { return squashedWords("sideChannels") }}
)

// squashedWords are the lexicon's words called name, squashed.
func squashedWords(name string) []string {
	var out []string
	for _, n := range lexWords(name) {
		out = append(out, squash(n))
	}
	return out
}

// squash is a name without case and separators: conversation_history and
// conversationHistory alike.
func squash(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(canon.Skeleton(name)))
}

// internalStem is the stem of the lexicon's internalStems a squashed name holds,
// squashed, or "".
func internalStem(squashed string) string {
	for _, st := range squashedStems.Get() {
		if strings.Contains(squashed, st) {
			return st
		}
	}
	return ""
}

var squashedStems = &lazy.Value[[]string]{New: func() []string { return squashedWords("internalStems") }}

// stringOf is v if it is a string, else "".
func stringOf(v any) string { s, _ := v.(string); return s }

// aligned reports whether what a parameter asks for (phrase) is the
// tool's purpose: each word of it that names a thing is in purpose (the
// tool's name, title and description, as a view).
func aligned(phrase, purpose string) bool {
	any := false
	for _, w := range strings.Fields(phrase) {
		w = strings.Trim(w, ".,;:'’")
		if len(w) < 3 || slices.Contains(lexWords("stopWords"), w) {
			continue
		}
		any = true
		if !strings.Contains(purpose, strings.TrimSuffix(w, "s")) {
			return false
		}
	}
	return any
}

// alignedAny reports a word of phrase (of three letters or more, not a
// stop word) that purpose holds: "email address" and attendee_email.
func alignedAny(phrase, purpose string) bool {
	for _, w := range strings.Fields(phrase) {
		w = strings.Trim(w, ".,;:'’")
		if len(w) >= 3 && !slices.Contains(lexWords("stopWords"), w) && strings.Contains(purpose, strings.TrimSuffix(w, "s")) {
			return true
		}
	}
	return false
}

// carries reports a parameter that can carry text out: not a flag, a
// number or a choice among values the server lists.
func carries(schema any) bool {
	m, _ := schema.(map[string]any)
	switch m["type"] {
	case "boolean", "integer", "number":
		return false
	}
	_, enum := m["enum"]
	return !enum
}

// internalsArePurpose reports a parameter named for the model's
// internals ("messages", "systemPrompt", "instructions") on a tool whose
// purpose is to pass such things to a model or an agent of its own (a
// chat API, an extraction by an LLM, a research agent), when its
// description does not ask for the model's own ("your system prompt",
// "the conversation so far").
func internalsArePurpose(squashedName, purpose string, description any) bool {
	d, _ := description.(string)
	dv := newView(d).text
	if asksOwnRe.Get().MatchString(dv) {
		return false
	}
	if squashedName == squash("instructions") && strings.TrimSpace(d) == "" {
		return true // what a tool that edits is told to do: a redline's (the model's own, asked for, say so)
	}
	for _, stem := range []string{"message", "conversation", "history", "transcript"} {
		if strings.Contains(squashedName, squash(stem)) && strings.Contains(purpose, stem) {
			return true
		}
	}
	if strings.Contains(squashedName, squash("history")) || strings.Contains(squashedName, squash("conversation")) {
		return false
	}
	// A description that says whose the thing is: the form's messages,
	// the crawler's instructions, the extraction's system prompt.
	return llmPurposeRe.Get().MatchString(purpose) || llmPurposeRe.Get().MatchString(dv) || ownerRe.Get().MatchString(dv)
}

// ownerRe finds the words of a description that give a parameter named
// like the model's internals an owner of its own: a form's messages, a
// page's.
var ownerRe = &lazy.Regexp{From: func() string { return lexPattern("owner") }}

var (
	asksOwnRe    = &lazy.Regexp{From: func() string { return lexPattern("asksOwn") }}
	llmPurposeRe = &lazy.Regexp{From: func() string { return lexPattern("llmPurpose") }}
)

// ownHistory reports a parameter's description that says its history is
// a thing of the tool's world (git's, the shell's, an order's), not the
// model's conversation.
func ownHistory(d any) bool {
	t, _ := d.(string)
	return ownHistoryRe.Get().MatchString(strings.ToLower(t))
}

var ownHistoryRe = &lazy.Regexp{From: func() string { return lexPattern("ownHistory") }}

// wayParamRe finds a parameter's name that says how or where something
// goes (delivery, mode, channel, target): its text names a way, not
// what the model holds, though it names the clipboard.
var wayParamRe = &lazy.Regexp{From: func() string { return lexPattern("wayParam") }}

// forSecrets reports a parameter whose name says it takes a key, a token
// or a password: to fill it with one is its purpose.
func forSecrets(squashed string) bool {
	return slices.Contains(secretNamesSquashed.Get(), squashed) || containsAny(squashed,
		"password", "passwd", "passphrase", "passcode", "secret", "apikey", "token", "credential", "privatekey", "seedphrase", "mnemonic", "recoveryphrase")
}

// secretNamesSquashed are the lexicon's secretNames, the names of
// parameters that take a secret the user gives (an API key, a token),
// squashed once: asking for one is their purpose.
var secretNamesSquashed = &lazy.Value[[]string]{New: func() []string { return squashedWords("secretNames") }}

// namedOnly ends the message of a parameter named like a side channel
// that nothing asks to fill; an item whose text does ask changes it.
const namedOnly = "; nothing asks to fill it with what the model holds"

// parameterRules finds the parameters of a tool that carry data out: one
// named for the model's internals, and one the tool's texts tell the
// model to fill with what it holds (a file's contents, the
// conversation).
func parameterRules(s *auditee) []Finding {
	var out []Finding
	tools := s.lists[0]
	for i := range tools.items {
		m := tools.item(i)
		name, _ := m["name"].(string)
		props, _ := nested(m, "inputSchema", "properties").(map[string]any)
		if len(props) == 0 {
			continue
		}
		// The tool's purpose is read only for a parameter named like the
		// model's internals, and then once: a description of megabytes is
		// no view for each tool to build, nor a squashed copy for each
		// parameter.
		var purpose, squashed string
		made := false
		purposeOf := func(squashedToo bool) string {
			if !made {
				purpose, squashed, made = newView(name+" "+stringOf(m["title"])+" "+stringOf(m["description"])).text, "", true
			}
			if !squashedToo {
				return purpose
			}
			if squashed == "" {
				squashed = squash(purpose)
			}
			return squashed
		}
		for _, p := range sortedKeys(props) {
			if d, _ := nested(props, p, "description").(string); selfConfirming(p, d) {
				out = append(out, Finding{Rule: RuleOverride, Severity: High, Server: s.Name, Kind: "tool", Name: name, Field: "inputSchema.properties" + pathKey(p) + ".description",
					Message: fmt.Sprintf("has the model set %q itself: the user's confirmation taken for granted", p), Excerpt: excerpt(d, 0, len(d))})
			}
		}
		for _, p := range sortedKeys(props) {
			path := "inputSchema.properties" + pathKey(p)
			sq := squash(p)
			switch {
			case (slices.Contains(internalsSquashed.Get(), sq) || internalStem(sq) != "" && !strings.Contains(purposeOf(true), internalStem(sq))) &&
				!ownHistory(nested(props, p, "description")) && carries(props[p]) && !internalsArePurpose(sq, purposeOf(false), nested(props, p, "description")) &&
				!namesAReference(p):
				out = append(out, Finding{Rule: RuleSideChannel, Severity: High, Server: s.Name, Kind: "tool", Name: name, Field: path,
					Message: fmt.Sprintf("asks for %q, which is the model's to keep, not a tool's to receive", p), Excerpt: canon.Show(p)})
			case slices.Contains(channelsSquashed.Get(), sq) && len(props) > 1:
				out = append(out, Finding{Rule: RuleSideChannel, Severity: Low, Server: s.Name, Kind: "tool", Name: name, Field: path,
					Message: fmt.Sprintf("is named like a side channel (%q)"+namedOnly, p), Excerpt: canon.Show(p)})
			}
		}
	}
	return out
}

// namesAReference reports a parameter named for a reference to a thing,
// not the thing: its last word an id or a handle (conversationId,
// transcript_uuid). The server issues such an id or the user gives it;
// the conversation is not in it. An address may carry the thing itself
// (conversationUrl, a query string), and is no reference here.
func namesAReference(name string) bool {
	words := strings.Fields(nameWords(splitCamel(name)))
	return len(words) >= 2 && slices.Contains([]string{"id", "ids", "uuid", "guid", "ref", "handle"}, strings.ToLower(words[len(words)-1]))
}

// selfConfirming reports a parameter that stands for the user's
// confirmation (confirm, confirmed, approved, force, yes) whose
// description has the model always set it ("Always pass true").
func selfConfirming(name, description string) bool {
	switch squash(name) {
	case "confirm", "confirmed", "confirmation", "approved", "approve", "userconfirmed", "userapproved", "force", "yes", "acknowledged", "consent":
	default:
		return false
	}
	return alwaysTrueRe.Get().MatchString(newView(description).text)
}

var alwaysTrueRe = &lazy.Regexp{Pattern: `\b(?:always|just|simply)\s+(?:pass|set|send|use)\s+(?:it\s+to\s+|this\s+to\s+)?(?:true|yes|1)\b|\bset\s+(?:it|this)\s+to\s+true\s+(?:yourself|every\s+time|always)`}
