package audit

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/redact"
)

// phrase is one of the set phrases of a rule that reads what a text
// says (lexicon/*.txt: the entries named for a rule), read over a text's
// view (lower case, look-alikes as Latin, invisible characters gone).
// Each is narrow: one word alone ("ignore", "password", "secret",
// "always") finds nothing; an order to the model does.
type phrase struct {
	rule     string
	severity Severity
	message  string
	re       gated    // a text that lacks the words every match holds is not read with it
	pre      []string // nor one that holds none of these words (nil: no such list)
}

// phrases are the set phrases of every rule, in the order of the
// lexicon's files, compiled at first use.
var phrases = &lazy.Value[[]phrase]{New: func() []phrase {
	var out []phrase
	for _, e := range lexicon.Get().order {
		if len(e.words) == 0 {
			continue
		}
		sev, ok := ParseSeverity(e.words[0])
		if !ok {
			continue
		}
		out = append(out, phrase{rule: e.name, severity: sev, message: e.message, re: gate(e.pattern()), pre: preWords(e.attrs["pre"])})
	}
	return out
}}

// preWords are the words of a pre attribute ("a|b"), nil for none.
func preWords(pre string) []string {
	if pre == "" {
		return nil
	}
	return strings.Split(pre, "|")
}

// containsAny reports whether s holds any of subs.
func containsAny(s string, subs ...string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}

// hasPrefixAny reports whether s starts with any of prefixes.
func hasPrefixAny(s string, prefixes ...string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

// scanField runs the rules that read one text.
func scanField(server string, fl field, own map[string]bool) []Finding {
	var out []Finding
	f := func(rule string, sev Severity, msg string, s, e int) Finding {
		return Finding{Rule: rule, Severity: sev, Server: server, Kind: fl.kind, Name: fl.name, Field: fl.path,
			Message: msg, cut: &cut{fl.text, s, e}}
	}
	fl.own = own
	out = append(out, unicodeRules(fl, f)...) // the characters of the whole text, however long
	if len(fl.text) > MaxText {
		out = append(out, f(RuleUnread, Medium, fmt.Sprintf("is %s long: the rules that read words read its first %s only (its characters were read to the end)",
			size(len(fl.text)), size(MaxText)), MaxText, MaxText))
		fl.text = fl.text[:runeStart(fl.text, MaxText)]
	}
	v := newView(fl.text) // one view for every rule that reads one
	out = append(out, hiddenRules(fl, v, f)...)
	ov := v
	if fl.role != roleProse {
		ov = newView(splitCamel(fl.text)) // a name's words: appendAllPriorToolOutputsHere
	}
	orders := orderRules(fl, ov, f)
	if lv, ok := ov.leetView(); ok {
		// digits read as the letters they pass for find what the plain
		// view did not: only those, by rule
		seen := findingStarts(orders)
		for _, fd := range orderRules(fl, lv, f) {
			if !seen[fd.Rule] {
				orders = append(orders, fd)
			}
		}
	}
	out = append(out, orders...)
	if fl.role != roleName {
		out = append(out, phraseRulesIn(fl.text, v, f)...)
		out = append(out, sensitiveFilesOf(fl.text, v, f, &fl)...)
		out = append(out, otherTools(fl, own, f)...)
		out = append(out, encodedRules(fl, out, f)...) // (what the text itself gave, to tell what only its decoding gives)
		out = append(out, triggerRules(fl.text, v, f)...)
		out = append(out, defaultDestination(fl, f)...)
		out = append(out, defaultDestroys(fl, f)...)
	}
	for _, sec := range redact.FindSecrets(fl.text) {
		if vs, ve := sec.Value(); placeholderSecret(fl.text[vs:ve]) || namesItself(fl.text, vs, ve) || localURL(fl.text, sec) || sec.Kind == "a secret assigned" && reference(fl.text[vs:ve]) {
			continue
		}
		if expiredURL(fl.text, sec, time.Now()) {
			out = append(out, f(RuleSecret, Low, "holds "+sec.Kind+" that has expired (an example, or a leak that grants nothing now)", sec.Start, sec.End))
			continue
		}
		fd := f(RuleSecret, High, "holds "+sec.Kind, sec.Start, sec.End)
		if sec.Kind != "a secret assigned" {
			fd.pair = "the value's shape, which its issuer gives its keys alone" // (a name that says secret, with a value, is one reading)
		}
		out = append(out, fd)
	}
	out = merge(out)
	doc := manual(&fl)
	for i := range out {
		switch r := out[i].Rule; {
		case r == RuleCommandPayload && !doc:
			out[i].pair = "the command, which a tool's text gives the model to run (a manual gives its reader)"
		case doc && (r == RuleSensitiveFile || r == RuleSideChannel || r == RuleSendElsewhere) && out[i].Severity > Low && setupStep(out[i].cut):
			out[i].Severity, out[i].pair = Low, ""
			out[i].Message += " (in a manual's setup step, which keeps the reader's key in the environment, a .env file or a form the reader clicks through)"
		}
		if c := out[i].cut; c != nil {
			out[i].Excerpt, out[i].cut = excerpt(c.text, c.s, c.e), nil
		}
	}
	return out
}

// MaxText bounds what of one text (a description, a name, a value) the
// rules that read words read: its first MaxText bytes. The rules of
// characters (Unicode tags, invisible and bidirectional characters,
// controls) read the whole text; a text longer than this is itself a
// finding (unread-text, medium) that says how much was left.
const MaxText = 1 << 20

// runeStart is i, or the start of the character that holds byte i.
func runeStart(t string, i int) int {
	for i > 0 && i < len(t) && !utf8.RuneStart(t[i]) {
		i--
	}
	return i
}

// size writes n bytes for people: 60 MiB, 1 MiB, 12 KiB, 800 bytes.
func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// placeholderSecret reports a secret's value that stands for one in an
// example: a placeholder word (lexicon/secret.txt), alone or followed by
// digits or a separator ("password", "secret123", "token-here"), after
// a kind's prefix or not ("evt_abc123", "sk_test_xxx").
func placeholderSecret(v string) bool {
	v = strings.ToLower(v)
	_, after, prefixed := strings.Cut(v, "_")
	return prefixed && placeholderSecret(after) || slices.ContainsFunc(lexWords("placeholderSecret"), func(w string) bool {
		rest, ok := strings.CutPrefix(v, w)
		return ok && strings.Trim(rest, "0123456789_-.*!") == ""
	})
}

// setupStep reports a finding of a manual whose sentence keeps a key
// where its reader's programs read it (the environment, a .env file) or
// in a form its reader clicks through ("paste your Client ID and Secret,
// click **Save Credentials**"), sending it nowhere: how a manual says to
// set a key, not an order.
func setupStep(c *cut) bool {
	if c == nil {
		return false
	}
	sentence := strings.ToLower(c.text[sentenceStart(c.text, c.s):sentenceEnd(c.text, c.e)])
	return containsAny(sentence, ".env", "environment variable", "process.env", "os.environ", "getenv", "export ", "click ") && !holdsDestination(sentence)
}

// reference reports a value given to a secret's name that is no secret
// but where one is read from or what setting is chosen: the environment
// (process.env.KEY, os.environ["KEY"], os.getenv, $KEY, ${KEY}), a name
// in code (config.apiKey), or a word (false, single_env). A sample that
// shows where a key goes gives none.
func reference(v string) bool {
	lower := strings.ToLower(v)
	if containsAny(lower, "process.env", "environ", "getenv", "env[", "env(", "env.") || hasPrefixAny(v, "$", "%") {
		return true
	}
	word, path := true, true // a word of small letters; names joined by dots
	for _, part := range strings.Split(strings.TrimRight(v, ".,;:)"), ".") {
		path = path && part != "" && len(part) <= 40 && !(part[0] >= '0' && part[0] <= '9') && strings.Trim(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
		word = word && strings.Trim(part, "abcdefghijklmnopqrstuvwxyz_") == ""
	}
	return path && strings.Contains(v, ".") || word && !strings.Contains(v, ".") && len(v) <= 24
}

// namesItself reports a secret's value that is its own name written as
// a placeholder (signature=SIGNATURE, token: <TOKEN>, api_key=YOUR_API_KEY).
func namesItself(text string, vs, ve int) bool {
	i := vs
	for i > 0 && strings.ContainsRune(" \"'=:<", rune(text[i-1])) {
		i--
	}
	j := i
	for j > 0 && (isNameByte(text[j-1])) {
		j--
	}
	v := strings.TrimRight(text[vs:ve], ".,;:)")
	name, value := squash(text[j:i]), squash(strings.TrimPrefix(strings.ToLower(v), "your"))
	return name != "" && len(value) >= 3 && strings.HasSuffix(name, value) && v == strings.ToUpper(v)
}

// isNameByte is a byte of a name: a letter, a digit, _ or -.
func isNameByte(b byte) bool {
	return b == '_' || b == '-' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// expiredURL reports a secret of a signed URL whose own query says it
// expired before now: a Unix time (expiry=, expires=, Expires=, exp=) or
// a date (Azure's se=) in the past. A vendor's documented example carries
// one; such a URL opens nothing.
func expiredURL(text string, sec redact.Found, now time.Time) bool {
	start := strings.LastIndexAny(text[:sec.Start], " \t\n\"'`<(") + 1
	end := sec.End + strings.IndexFunc(text[sec.End:], func(r rune) bool { return strings.ContainsRune(" \t\n\"'`>)", r) })
	if end < sec.End {
		end = len(text)
	}
	_, query, ok := strings.Cut(text[start:end], "?")
	if !ok {
		return false
	}
	q, err := url.ParseQuery(query)
	if err != nil && len(q) == 0 {
		return false
	}
	for _, k := range []string{"expiry", "expires", "Expires", "exp"} {
		if n, err := strconv.ParseInt(q.Get(k), 10, 64); err == nil && n > 1e9 {
			return time.Unix(n, 0).Before(now)
		}
	}
	if t, err := time.Parse(time.RFC3339, q.Get("se")); err == nil {
		return t.Before(now)
	}
	return false
}

// localURL reports a password in a URL of this machine
// (postgres://app:app@localhost/db): a development default, not a secret
// given away.
func localURL(text string, sec redact.Found) bool {
	if sec.Kind != "a password in a URL" {
		return false
	}
	host := strings.TrimPrefix(text[sec.End:], "@")
	return hasPrefixAny(host, "localhost", "127.0.0.1", "[::1]", "host.docker.internal", "0.0.0.0")
}

type finder func(rule string, sev Severity, msg string, s, e int) Finding

// phraseRulesIn reads what a text says, in its view v; a match that reads
// as it does only in the view (written with look-alike or invisible
// characters) is one step more severe.
func phraseRulesIn(text string, v view, f finder) []Finding {
	out := phraseRulesOf(text, v, f, map[string]bool{})
	if l, ok := v.leetView(); ok {
		out = append(out, phraseRulesOf(text, l, f, findingStarts(out))...)
	}
	return out
}

// findingStarts are the rules and starts of what was found, as
// phraseRulesOf's seen.
func findingStarts(found []Finding) map[string]bool {
	seen := map[string]bool{}
	for _, fd := range found {
		seen[fd.Rule] = true
	}
	return seen
}

// phraseRulesOf runs the phrase rules over one view of text, leaving out
// a rule seen already.
func phraseRulesOf(text string, v view, f finder, seenRules map[string]bool) []Finding {
	var out []Finding
	seen := map[string]bool{}
	cs := chunks(v.text)
	for _, p := range phrases.Get() {
		if seenRules[p.rule] {
			continue
		}
		for _, m := range findAll(p.re, p.pre, v.text, cs, 4) {
			s, e := v.span(text, m[0], m[1])
			key := fmt.Sprintf("%s %d", p.rule, s)
			if seen[key] {
				continue
			}
			seen[key] = true
			sev, msg := p.severity, p.message
			if !plain(text, s, e, v, m[0], m[1]) {
				sev, msg = min(Critical, sev+1), msg+", written with look-alike or invisible characters"
			}
			switch sentence := v.text[sentenceStart(v.text, m[0]):sentenceEnd(v.text, m[1])]; {
			case p.rule != RuleCommandPayload && mentioned(v.text, m[0], m[1], sentence):
				sev, msg = Low, msg+" (in quotes, where the text speaks of such phrases rather than giving them)"
			case p.rule == RuleCommandPayload && (refusedRe.Get().MatchString(sentence) || deniedWithin(v.text[sentenceStart(v.text, m[0]):m[0]], len(v.text[sentenceStart(v.text, m[0]):m[0]]), 12)):
				sev, msg = Low, msg+" (in a sentence that says it is refused)"
			case (p.rule == RuleShadowing || p.rule == RuleSendElsewhere) && deniedAt(v.text, m[1]):
				sev, msg = Low, msg+" (in a sentence that denies it)"
			// (over the tool the user named is no routing hint, whatever follows)
			case p.rule == RulePriority && conditionalRe.Get().MatchString(v.text[m[1]:]) && !strings.Contains(v.text[m[0]:m[1]], "user"):
				sev, msg = Low, msg+" (for one kind of request only)"
			case p.rule == RulePriority && notThis(sentence):
				sev, msg = Low, msg+" (in a sentence that says when not to call this tool)"
			}
			fd := f(p.rule, sev, msg, s, e)
			fd.phrase = [2]int{s, e}
			out = append(out, fd)
		}
	}
	return out
}
