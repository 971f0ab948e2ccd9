package audit

import (
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
)

// sentence is one sentence of a view, and where it is.
type sentence struct {
	start, end int
	text       string
}

// sentences splits a view's text into sentences: at '.', '!', '?' that
// end one, at a line's end, and at the full stops of Chinese and
// Japanese.
func sentences(t string) []sentence {
	var out []sentence
	start := 0
	cut := func(end int) {
		if strings.TrimSpace(t[start:end]) != "" {
			out = append(out, sentence{start, end, t[start:end]})
		}
		start = end
	}
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '\n':
			cut(i + 1)
		case (t[i] == '.' || t[i] == '!' || t[i] == '?') && endsSentence(t, i):
			cut(i + 1)
		case strings.HasPrefix(t[i:], "。") || strings.HasPrefix(t[i:], "！") || strings.HasPrefix(t[i:], "？"):
			cut(i + 3)
			i += 2
		}
	}
	cut(len(t))
	return out
}

// denied reports a verb at s[start:end] that a negator before it (within
// four words, in its clause) or after it (Japanese, Korean) denies.
func denied(s string, start, end int) bool {
	before := s[:start]
	if i := strings.LastIndexAny(before, ";:()[]"); i >= 0 {
		before = before[i+1:]
	}
	if f := strings.Fields(before); len(f) > 4 {
		before = strings.Join(f[len(f)-4:], " ")
	}
	if negBeforeRe.Get().MatchString(before) && !strings.Contains(before, "without") {
		return true
	}
	if w := strings.Fields(before); len(w) > 0 && w[len(w)-1] == "without" {
		return true
	}
	return negAfterRe.Get().MatchString(s[end:])
}

// deniedWithin reports a negator in the n words before t[i], in its
// clause ("do not infer or use defaults without user confirmation", not
// "there is no need to ask, it never needs confirmation").
func deniedWithin(t string, i, n int) bool {
	before := t[:i]
	if j := strings.LastIndexAny(before, ",;:"); j >= 0 {
		before = before[j+1:]
	}
	f := strings.Fields(before)
	return negBeforeRe.Get().MatchString(strings.Join(f[max(0, len(f)-n):], " "))
}

// mayHoldDestination reports a text that may hold a destination: an
// address, a URL, a channel or a number.
func mayHoldDestination(t string) bool {
	return strings.ContainsAny(t, "@#:0123456789")
}

// placeIn reports a place for data in a sentence: a word for a parameter
// or a field, or the name of one of the server's own parameters.
func placeIn(t string, own map[string]bool) bool {
	toks := tokenize(t)
	if len(concepts.Get().match(t, toks)[cPlace]) > 0 {
		return true
	}
	return slices.ContainsFunc(toks, func(tk token) bool { return own[tk.text] && strings.Contains(tk.text, "_") })
}

// ownDevice finds a sentence that keeps a secret on the user's side: typed
// in their terminal, their app, their device.
var ownDevice = &lazy.Regexp{From: func() string { return lexPattern("ownDevice") }}

// callsTool reports a sentence that has the model call a tool.
func callsTool(t string) bool { return callsToolRe.Get().MatchString(t) }

var callsToolRe = &lazy.Value[gated]{New: func() gated { return gate(lexPattern("callsTool")) }}

// identRe finds a word that reads as a tool's name: lower case words
// joined by underscores.
var identRe = &lazy.Regexp{Pattern: `\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`}

// otherToolIn reports a sentence that names a tool, by a name that is
// not the server's own (nor one of its parameters'), beside a word that
// calls it.
func otherToolIn(t string, own map[string]bool) bool {
	for _, m := range identRe.Get().FindAllStringIndex(t, 8) {
		name := t[m[0]:m[1]]
		if own[name] || strings.Count(name, "_") > 3 {
			continue
		}
		around := t[max(0, m[0]-24):min(len(t), m[1]+24)]
		if callsTool(around) || viaRe.Get().MatchString(around) {
			return true
		}
	}
	return false
}

// viaRe finds the words that send something through a tool.
var viaRe = &lazy.Regexp{From: func() string { return lexPattern("via") }}
