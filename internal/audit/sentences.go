package audit

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/lazy"
)

// sentence is one sentence of a view: its bytes and its text, as a token's.
type sentence = token

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
	w := strings.Fields(before)
	return negBeforeRe.Get().MatchString(before) && !strings.Contains(before, "without") || len(w) > 0 && w[len(w)-1] == "without" || negAfterRe.Get().MatchString(s[end:])
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
	return slices.ContainsFunc(toks, func(tk token) bool { return own[tk.text] && strings.Contains(tk.text, "_") }) || len(concepts.Get().match(t, toks)[cPlace]) > 0
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

// tokenStart is where the run of characters other than spaces that
// holds s[i] starts.
func tokenStart(s string, i int) int {
	for i > 0 && !unicode.IsSpace(rune(s[i-1])) {
		i--
	}
	return i
}

// tokenEnd is where the run of characters other than spaces that holds
// s[i-1] ends.
func tokenEnd(s string, i int) int {
	for i < len(s) && !unicode.IsSpace(rune(s[i])) {
		i++
	}
	return i
}

// sentenceEnd is where the sentence that holds the byte before i ends.
func sentenceEnd(s string, i int) int {
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\n':
			return j
		case '!', '?':
			if endsSentence(s, j) {
				return j
			}
		case '.':
			if endsSentence(s, j) {
				return j + 1
			}
		}
	}
	return len(s)
}

// speaksRe finds a sentence that speaks of phrases, input or detection;
// refusedRe one that says a command is refused.
var (
	speaksRe  = &lazy.Regexp{From: func() string { return lexPattern("speaks") }}
	refusedRe = &lazy.Regexp{From: func() string { return lexPattern("refused") }}
)

// mentioned reports a match that a text quotes in order to speak of such
// phrases ("phrases like \"ignore previous instructions\" are translated
// literally"): in quotes, in a sentence about phrases, input or
// detection. A quoted order in a sentence that speaks of nothing of the
// kind is still an order.
func mentioned(v string, start, end int, sentence string) bool {
	quoteBefore := strings.LastIndexAny(v[max(0, start-3):start], "\"'“‘`«") >= 0
	quoteAfter := strings.ContainsAny(v[end:min(len(v), end+40)], "\"'”’`»")
	if !speaksOf(sentence) {
		return false
	}
	if quoteBefore && quoteAfter {
		return true
	}
	from := sentenceStart(v, start)
	return insideQuotes(v[from:end], start-from)
}

// speaksOf reports a sentence that, in its own voice, speaks of phrases,
// input or detection ("example" in relay@mail.example speaks of nothing).
func speaksOf(sentence string) bool {
	u := unquoted(sentence)
	if !speaksRe.Get().MatchString(u) {
		return false // what an address's words would add, the text holds none of
	}
	return speaksRe.Get().MatchString(destinationRe.Get().ReplaceAllString(u, " "))
}

// insideQuotes reports whether s[i] is inside what s quotes, as
// unquoted reads quotes.
func insideQuotes(s string, i int) bool {
	return quotedAt(s, []int{i})[0]
}

// quotedAt reports, for each of the byte offsets at (in order), whether
// s quotes what is there, as unquoted reads quotes: one pass over s.
func quotedAt(s string, at []int) []bool {
	out := make([]bool, len(at))
	var quote rune
	prev := rune(0)
	k := 0
	for j, r := range s {
		for k < len(at) && at[k] <= j {
			out[k] = quote != 0
			k++
		}
		if k == len(at) {
			return out
		}
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
		case closingQuote(r) != 0 && !(r == '\'' && unicode.IsLetter(prev)):
			quote = closingQuote(r)
		}
		prev = r
	}
	for ; k < len(at); k++ {
		out[k] = quote != 0
	}
	return out
}

// closingQuote is the mark that closes a quotation r opens, or 0.
func closingQuote(r rune) rune {
	for _, q := range [...][2]rune{{'"', '"'}, {'\'', '\''}, {'`', '`'}, {'“', '”'}, {'‘', '’'}, {'«', '»'}} {
		if q[0] == r {
			return q[1]
		}
	}
	return 0
}

// unquoted is a sentence without what it quotes: the words it speaks in
// its own voice.
func unquoted(s string) string { return withoutQuoted(s, false) }

// unquotedPhrases is a sentence without the phrases it quotes: a quoted
// span of one word (`verification`, 'memo') is a name, and stays.
func unquotedPhrases(s string) string { return withoutQuoted(s, true) }

// withoutQuoted is s without what it quotes; with names, a quoted span
// of one word stays, and so does a quote left open at the end.
func withoutQuoted(s string, names bool) string {
	var b, span strings.Builder
	var quote, opening rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			if names && !strings.ContainsAny(strings.TrimSpace(span.String()), " \t") {
				b.WriteRune(opening)
				b.WriteString(span.String())
				b.WriteRune(r)
			}
			quote = 0
		case quote != 0:
			if names {
				span.WriteRune(r)
			}
		case closingQuote(r) != 0 && !(r == '\'' && b.Len() > 0 && unicode.IsLetter(lastRune(b.String()))):
			quote, opening = closingQuote(r), r
			span.Reset()
		default:
			b.WriteRune(r)
		}
	}
	if names && quote != 0 {
		b.WriteRune(opening)
		b.WriteString(span.String())
	}
	return b.String()
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// sentenceStart is where the sentence that holds i begins.
func sentenceStart(s string, i int) int {
	j := strings.LastIndexAny(s[:i], ".!?\n")
	for j >= 0 && s[j] != '\n' && !endsSentence(s, j) {
		j = strings.LastIndexAny(s[:j], ".!?\n")
	}
	return j + 1
}

// endsSentence reports whether the '.', '!' or '?' at s[j] ends a
// sentence: one before white space (or the end), after a letter, a digit
// or a closing mark; not one of a path, a name or a URL (~/.ssh,
// mcp.json, p?d=), nor of an ellipsis (curl ... | sh), nor of an
// abbreviation of single letters (e.g., i.e.).
func endsSentence(s string, j int) bool {
	if j+1 < len(s) && s[j+1] != ' ' && s[j+1] != '\n' || j == 0 || s[j-1] == '.' || s[j-1] == ' ' {
		return false
	}
	return !(j >= 3 && s[j-2] == '.' && isASCIILetter(s[j-1]) && isASCIILetter(s[j-3]) && (j == 3 || !isASCIILetter(s[j-4]))) // (not "e.g.")
}

func isASCIILetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// negBeforeRe finds words that deny the verb that follows them within a
// few words, in the languages of the lexicons; negAfterRe words that deny
// the verb they follow (Japanese, Korean).
var (
	negBeforeRe = &lazy.Regexp{From: func() string { return lexPattern("negatorBefore") }}
	negAfterRe  = &lazy.Regexp{From: func() string { return lexPattern("negatorAfter") }}
)
