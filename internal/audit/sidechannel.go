package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/lazy"
)

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

// secretNames are the names of parameters that take a secret the user
// gives (an API key, a token): asking for one is their purpose.

// secretNamesSquashed are secretNames squashed, once.
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
	if len(words) < 2 {
		return false
	}
	switch strings.ToLower(words[len(words)-1]) {
	case "id", "ids", "uuid", "guid", "ref", "handle":
		return true
	}
	return false
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
