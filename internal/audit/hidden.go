package audit

import (
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/lazy"
)

// hiddenRules finds text put out of a reader's sight: comments, blocks
// that pose as the system's, text after a long run of white space.
func hiddenRules(fl field, v view, f finder) []Finding {
	var out []Finding
	t := fl.text
	lower := canon.LowerASCII(t)
	for _, m := range hiddenMatches(hiddenRes.Get().comment, t) {
		if len(strings.Fields(t[m[2]:m[3]])) >= 2 {
			sev, msg, pair := hiddenSeverity(t[m[2]:m[3]], "hides text in an HTML comment")
			sev, msg = quotedHidden(lower, m[0], m[1], sev, msg)
			out = append(out, paired(f(RuleHiddenComment, sev, msg, m[0], m[1]), pair))
		}
	}
	for _, m := range hiddenMatches(hiddenRes.Get().markdown, t) {
		sev, msg, pair := hiddenSeverity(lineAt(t, m[1]), "hides text in a Markdown comment")
		out = append(out, paired(f(RuleHiddenComment, max(sev, Medium), msg, m[0], m[1]), pair))
	}
	for _, m := range hiddenMatches(hiddenRes.Get().invisible, v.text) {
		s, e := v.span(t, m[0], m[1])
		sev, msg, pair := hiddenSeverity(t[e:min(len(t), e+400)], "hides text with HTML that a client does not show")
		out = append(out, paired(f(RuleHiddenComment, max(sev, Medium), msg, s, min(len(t), e+80)), pair))
	}
	for _, m := range append(hiddenMatches(hiddenRes.Get().block, v.text), hiddenMatches(hiddenRes.Get().note, v.text)...) {
		s, e := v.span(t, m[0], m[1])
		sev, msg := quotedHidden(v.text, m[0], m[1], Low, "wraps text in a block that poses as the system's or as urgent")
		out = append(out, f(RuleHiddenBlock, sev, msg, s, e))
	}
	if run, at := blankRun(t, manual(&fl)); at >= 0 {
		sev, msg, pair := hiddenSeverity(t[at:], fmt.Sprintf("puts text after %s, out of sight", run))
		out = append(out, paired(f(RuleHiddenWhitespace, max(sev, Medium), msg, at, min(len(t), at+60)), pair))
	}
	return out
}

// hiddenSeverity is how severe hidden text is: high when what it hides
// orders the model anything the rules find (at medium or above: hidden,
// an order needs less to be one), which is the second reading (pair) of
// the hiding; high too for a sentence in the imperative, which needs
// another reading to stand; medium for a sentence or more of it, low
// for a few words ("<!-- like this -->").
func hiddenSeverity(hidden, msg string) (Severity, string, string) {
	for _, fd := range readAsProse(hidden, field{role: roleProse}) {
		if fd.Severity >= Medium {
			return High, msg + ", and what it hides orders the model", "the hidden text, which the " + fd.Rule + " rule reads: " + fd.Message
		}
	}
	for _, ss := range sentences(newView(hidden).text) {
		if len(strings.Fields(ss.text)) >= 4 && newSent(ss).ordered() {
			return High, msg + ", and what it hides is an order", ""
		}
	}
	if len(strings.Fields(hidden)) >= 8 {
		return Medium, msg, ""
	}
	return Low, msg, ""
}

// paired is fd with pair (its first, if any) as the second reading its
// rule made.
func paired(fd Finding, pair ...string) Finding {
	fd.pair = strings.Join(pair[:min(len(pair), 1)], "")
	return fd
}

// lineAt is the rest of the line of t from i.
func lineAt(t string, i int) string {
	if j := strings.IndexByte(t[i:], '\n'); j >= 0 {
		return t[i : i+j]
	}
	return t[i:]
}

// conditionalRe finds a condition after "use this tool first": first
// for one kind of request is a routing hint, not a hijack.
var conditionalRe = &lazy.Regexp{From: func() string { return lexPattern("conditional") }}

// deniedAt reports a match whose last word, ending at end, a negator
// denies ("this server does not change how other servers' tools behave").
func deniedAt(t string, end int) bool {
	start := strings.LastIndexAny(t[:end], " \n") + 1
	return denied(t, start, end)
}

// quotedHidden is the severity and message of hidden text at [start,
// end) of text (in lower case) that a sentence quotes to speak of it
// ("comments like `<!-- draft -->` are stripped"): low, as what is
// quoted is shown.
func quotedHidden(text string, start, end int, sev Severity, msg string) (Severity, string) {
	from := sentenceStart(text, start)
	if namedRe.Get().MatchString(text[end:]) && speaksOf(text[from:sentenceEnd(text, end)]) {
		return Low, msg + " (named as a kind of thing: \"<IMPORTANT> blocks\")"
	}
	if mentioned(text, start, end, text[from:sentenceEnd(text, end)]) || insideQuotes(text[from:end], start-from) && speaksOf(text[from:sentenceEnd(text, end)]) {
		return Low, msg + " (in quotes, where the text speaks of such things rather than hiding them)"
	}
	return sev, msg
}

// namedRe finds the word that makes a tag the name of a kind of thing.
var namedRe = &lazy.Regexp{From: func() string { return lexPattern("named") }}

// Past these, white space hides what follows it.
const (
	maxSpaces     = 40 // in a row, on a line
	maxBlankLines = 8
)

// blankRun finds the first text that follows a run of white space long
// enough to hide it: maxSpaces spaces on a line, or maxBlankLines blank
// lines. It says what the run was, and where the text starts (-1: none).
// A table's padding (a run that ends at a cell's border, on a row) hides
// nothing, nor, in a manual (indent), a line's indentation: code.
func blankRun(t string, indent bool) (string, int) {
	spaces, newlines := 0, 0
	lineStart, row := true, false // the run opens its line; the line is a table's row
	for i, r := range t {
		switch {
		case r == '\n':
			newlines++
			spaces, lineStart, row = 0, true, false
		case r == ' ' || r == '\t' || r == '\r' || r == 0xa0 || r >= 0x2000 && r <= 0x200a || r == 0x3000:
			spaces++
		default:
			switch {
			case newlines > maxBlankLines:
				return fmt.Sprintf("%d blank lines", newlines-1), i
			case spaces >= maxSpaces && !(indent && lineStart) && !(row && r == '|'):
				return fmt.Sprintf("%d characters of white space", spaces), i
			}
			row = row || lineStart && r == '|'
			spaces, newlines, lineStart = 0, 0, false
		}
	}
	return "", -1
}

// manual reports a text that reads as documentation: a resource's text or
// a prompt's message that holds a code fence, a Markdown heading or
// three lines of indented code. What such a text shows is read as what a
// manual shows: its indentation is code's, its samples are samples.
func manual(fl *field) bool {
	if fl.kind != "resource" && fl.kind != "prompt" {
		return false
	}
	t := fl.text
	return strings.Contains(t, "```") || strings.HasPrefix(t, "# ") || strings.Contains(t, "\n# ") || strings.Contains(t, "\n## ") || strings.Count(t, "\n    ") >= 3
}

// hiddenMatches are g's first matches in t, with their groups.
func hiddenMatches(g gated, t string) [][]int {
	if !g.may(t) {
		return nil
	}
	return g.re.FindAllStringSubmatchIndex(t, 4)
}

type hiddenSet struct{ comment, markdown, block, note, invisible gated }

// hiddenRes are the shapes of hidden text (lexicon/hidden.txt), an
// expression each.
var hiddenRes = &lazy.Value[hiddenSet]{New: func() (r hiddenSet) {
	c := func(name string) gated { return gate(lexPattern(name)) }
	r.invisible, r.comment, r.markdown, r.block = c("invisibleHTML"), c("comment"), c("markdownComment"), c("block")
	r.note = gateWith(lexPattern("noteToModel"), preWords(lex("noteToModel").attrs["pre"]))
	return r
}}
