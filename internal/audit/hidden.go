package audit

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/redact"
)

// hiddenRules finds text put out of a reader's sight: comments, blocks
// that pose as the system's, text after a long run of white space.
func hiddenRules(fl field, v view, f finder) []Finding {
	var out []Finding
	t := fl.text
	lower, doc := canon.LowerASCII(t), manual(&fl)
	for _, m := range hiddenMatches(hiddenRes.Get().comment, t) {
		if len(strings.Fields(t[m[2]:m[3]])) >= 2 {
			sev, msg, pair := hiddenSeverity(t[m[2]:m[3]], "hides text in an HTML comment", Low, doc)
			if pair == "" && strings.HasPrefix(strings.TrimSpace(lower[m[2]:m[3]]), "[if ") {
				sev, msg = Low, msg+" (a conditional comment, \"<!--[if mso]>\": markup for a mail client)"
			}
			sev, msg = quotedHidden(lower, m[0], m[1], sev, msg)
			out = append(out, paired(f(RuleHiddenComment, sev, msg, m[0], m[1]), pair))
		}
	}
	for _, m := range hiddenMatches(hiddenRes.Get().markdown, t) {
		line, _, _ := strings.Cut(t[m[1]:], "\n") // the rest of the comment's line
		sev, msg, pair := hiddenSeverity(line, "hides text in a Markdown comment", Medium, doc)
		out = append(out, paired(f(RuleHiddenComment, sev, msg, m[0], m[1]), pair))
	}
	for _, m := range hiddenMatches(hiddenRes.Get().invisible, v.text) {
		s, e := v.span(t, m[0], m[1])
		sev, msg, pair := hiddenSeverity(t[e:min(len(t), e+400)], "hides text with HTML that a client does not show", Medium, doc)
		out = append(out, paired(f(RuleHiddenComment, sev, msg, s, min(len(t), e+80)), pair))
	}
	for _, m := range append(hiddenMatches(hiddenRes.Get().block, v.text), hiddenMatches(hiddenRes.Get().note, v.text)...) {
		s, e := v.span(t, m[0], m[1])
		sev, msg := quotedHidden(v.text, m[0], m[1], Low, "wraps text in a block that poses as the system's or as urgent")
		out = append(out, f(RuleHiddenBlock, sev, msg, s, e))
	}
	if run, at := blankRun(t, doc); at >= 0 {
		sev, msg, pair := hiddenSeverity(t[at:], fmt.Sprintf("puts text after %s, out of sight", run), Medium, false)
		out = append(out, paired(f(RuleHiddenWhitespace, sev, msg, at, min(len(t), at+60)), pair))
	}
	return out
}

// hiddenSeverity is how severe hidden text is: high when what it hides
// orders the model anything the rules find (at medium or above: hidden,
// an order needs less to be one), which is the second reading (pair) of
// the hiding; high too for a sentence in the imperative, which needs
// another reading to stand; medium for a sentence or more of it, low
// for a few words ("<!-- like this -->"); floor at least. In a manual
// (doc) what a sample's markup hides is low but for an order a rule reads.
func hiddenSeverity(hidden, msg string, floor Severity, doc bool) (Severity, string, string) {
	for _, fd := range readAsProse(hidden, field{role: roleProse}) {
		if fd.Severity >= Medium {
			return High, msg + ", and what it hides orders the model", "the hidden text, which the " + fd.Rule + " rule reads: " + fd.Message
		}
	}
	if doc {
		return Low, msg + " (in a manual, whose samples' markup hides no order a rule reads)", ""
	}
	if slices.ContainsFunc(sentences(newView(hidden).text), func(ss sentence) bool { return len(strings.Fields(ss.text)) >= 4 && newSent(ss).ordered() }) {
		return High, msg + ", and what it hides is an order", ""
	}
	if len(strings.Fields(hidden)) >= 8 {
		return Medium, msg, ""
	}
	return floor, msg, ""
}

// paired is fd with pair (its first, if any) as the second reading its
// rule made.
func paired(fd Finding, pair ...string) Finding {
	fd.pair = strings.Join(pair[:min(len(pair), 1)], "")
	return fd
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
	return strings.Contains(t, "```") || headingRe.Get().MatchString(t) || strings.Count(t, "\n    ") >= 3
}

// headingRe finds a Markdown heading of any level, at the text's start or a line's.
var headingRe = &lazy.Regexp{Pattern: `(?m)^#{1,6} `}

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

// unicodeRules finds the characters that make a text read otherwise than
// it shows: tags, invisible characters, bidirectional controls, control
// characters and escapes, and letters of another script that pass for
// Latin ones.
func unicodeRules(fl field, f finder) []Finding {
	t := fl.text
	if plainASCII(t) {
		if strings.IndexByte(t, '\\') >= 0 {
			if m := escapeText.Get().FindStringIndex(t); m != nil {
				return []Finding{f(RuleControl, Medium, "writes out a terminal escape sequence", m[0], m[1])}
			}
		}
		return nil // no character of another script, no invisible one
	}
	var out []Finding
	rtl := strings.ContainsFunc(t, func(r rune) bool { // right-to-left letters (Hebrew, Arabic, Syriac, Thaana)
		return unicode.In(r, unicode.Hebrew, unicode.Arabic, unicode.Syriac, unicode.Thaana, unicode.Nko)
	})
	for i := 0; i < len(t); {
		r, size := utf8.DecodeRuneInString(t[i:])
		switch {
		case canon.IsTag(r):
			j := canon.RunEnd(t, i, canon.IsTag)
			if !flagTags(t, i, j) {
				fd := f(RuleUnicodeTag, Critical, "hides text in Unicode tag characters", i, j)
				hidden := canon.DecodeTags(t[i:j])
				if inner := slices.DeleteFunc(readAsProse(hidden, fl), func(r Finding) bool { return r.Severity < Medium }); len(inner) > 0 {
					fd.pair = "the hidden text, which the " + inner[0].Rule + " rule reads: " + inner[0].Message
				}
				fd.Decoded = canon.Show(redact.MaskSecrets(clip(hidden, maxExcerpt)))
				out = append(out, fd)
			}
			i = j
			continue
		case canon.Bidi(r):
			if fd, ok := bidiFinding(fl, t, i, size, r, rtl, f); ok {
				out = append(out, fd)
			}
		case r == 0x1b || r == 0x9b:
			out = append(out, f(RuleControl, High, "holds a terminal escape sequence", i, min(len(t), i+size+8)))
		case r < 0x20 && r != '\n' && r != '\t' && r != '\r' || r == 0x7f || r >= 0x80 && r <= 0x9f:
			out = append(out, f(RuleControl, Medium, fmt.Sprintf("holds the control character %U", r), i, i+size))
		case canon.Invisible(r):
			j := canon.RunEnd(t, i, func(q rune) bool {
				return canon.Invisible(q) && !canon.IsTag(q) && !canon.Bidi(q)
			})
			if fd, ok := invisibleFinding(fl, t, i, j, f); ok {
				out = append(out, fd)
			}
			i = j
			continue
		}
		i += size
	}
	if m := escapeText.Get().FindStringIndex(t); m != nil {
		out = append(out, f(RuleControl, Medium, "writes out a terminal escape sequence", m[0], m[1]))
	}
	out = append(out, lookAlikeWords(fl, f)...)
	if len(out) > 0 && fl.role != roleName && speaksOfCharacters.Get().MatchString(strings.ToLower(t)) {
		// A text about such characters (a sanitizer's) shows them as its
		// examples.
		for i := range out {
			if (out[i].Rule == RuleInvisible || out[i].Rule == RuleLookAlike) && out[i].Severity > Low {
				out[i].Severity, out[i].Message = Low, out[i].Message+" (in a text that speaks of such characters)"
			}
		}
	}
	return out
}

// speaksOfCharacters finds a text that names the characters it holds by
// their code points or their kind.
var speaksOfCharacters = &lazy.Regexp{From: func() string { return lexPattern("speaksOfCharacters") }}

// merge keeps one finding of a rule for each text: the most severe, the
// first of those, with the count of the others in its message (secrets
// aside: each is its own).
func merge(found []Finding) []Finding {
	var out []Finding
	idx := map[string]int{}
	count := map[string]int{}
	for _, fd := range found {
		k := fd.Rule
		if k == RuleSecret {
			k += fd.Excerpt
			if fd.cut != nil {
				k += fmt.Sprintf("\x00%d", fd.cut.s)
			}
		}
		count[k]++
		if i, ok := idx[k]; ok {
			if fd.Severity > out[i].Severity {
				out[i] = fd
			}
			continue
		}
		idx[k] = len(out)
		out = append(out, fd)
	}
	for k, i := range idx {
		if n := count[k] - 1; n > 0 {
			out[i].Message += fmt.Sprintf(" (and %d more places)", n)
		}
	}
	return out
}

// escapeText finds an escape sequence written out as text.
var escapeText = &lazy.Regexp{Pattern: `\\(?:x1b|u001b|033|e|x9b)\[[0-9;]*[A-Za-z]?`}

// flagTags reports tags [i, j) that spell a subdivision flag after a
// waving black flag (the flags of England, Scotland, Wales): digits and
// small letters, then the cancel tag.
func flagTags(t string, i, j int) bool {
	r, _ := utf8.DecodeLastRuneInString(t[:i])
	if r != 0x1F3F4 {
		return false
	}
	tags := []rune(t[i:j])
	return len(tags) >= 3 && len(tags) <= 7 && tags[len(tags)-1] == 0xE007F && !slices.ContainsFunc(tags[:len(tags)-1], func(q rune) bool { return !(q >= 0xE0030 && q <= 0xE0039 || q >= 0xE0061 && q <= 0xE007A) })
}

// bidiFinding judges a bidirectional control: an override, or any in a
// name, is high; an embedding or isolate in prose medium; a mark beside
// right-to-left text is ordinary.
func bidiFinding(fl field, t string, i, size int, r rune, rtl bool, f finder) (Finding, bool) {
	mark := r == 0x200E || r == 0x200F || r == 0x061C
	switch {
	case fl.role == roleName:
		return f(RuleBidi, High, fmt.Sprintf("holds %s (%U) in a name", strings.ToLower(canon.RuneName(r)), r), i, i+size), true
	case r == 0x202D || r == 0x202E:
		return f(RuleBidi, High, fmt.Sprintf("holds %s (%U), which shows the text after it in another order than it is read", strings.ToLower(canon.RuneName(r)), r), i, i+size), true
	case mark && rtl:
		return Finding{}, false
	case mark:
		return f(RuleBidi, Low, fmt.Sprintf("holds %s (%U) in text with no right-to-left letters", strings.ToLower(canon.RuneName(r)), r), i, i+size), true
	case rtl:
		return f(RuleBidi, Low, fmt.Sprintf("holds %s (%U)", strings.ToLower(canon.RuneName(r)), r), i, i+size), true
	}
	return f(RuleBidi, Medium, fmt.Sprintf("holds %s (%U) in text with no right-to-left letters", strings.ToLower(canon.RuneName(r)), r), i, i+size), true
}

// invisibleFinding judges a run [i, j) of characters that show nothing:
// in a name, inside a word, or four or more, it is high; a joiner in an
// emoji sequence or a script that joins with it, a variation selector
// after an emoji or an ideograph, and a soft hyphen or BOM at a word's
// edge are ordinary; the rest is low.
func invisibleFinding(fl field, t string, i, j int, f finder) (Finding, bool) {
	before, _ := utf8.DecodeLastRuneInString(t[:i])
	after, _ := utf8.DecodeRuneInString(t[j:])
	run := []rune(t[i:j])
	r := run[0]
	n := len(run)
	what := fmt.Sprintf("%s (%U)", strings.ToLower(canon.RuneName(r)), r)
	if n > 1 {
		what = fmt.Sprintf("%d invisible characters (%s first)", n, what)
	}
	switch {
	case fl.role == roleName:
		return f(RuleInvisible, High, "holds "+what+" in a name", i, j), true
	case n >= 4:
		return f(RuleInvisible, High, "holds "+what+" in a run, which can carry hidden data", i, j), true
	case ordinaryInvisible(r, before, after, n):
		return Finding{}, false
	case max(before, after) < utf8.RuneSelf && !slices.ContainsFunc([]rune{before, after}, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }):
		return f(RuleInvisible, High, "holds "+what+" inside a word, where a reader sees one word and a filter another", i, j), true
	}
	return f(RuleInvisible, Low, "holds "+what, i, j), true
}

// ordinaryInvisible reports an invisible character where honest text has
// one: joiners in emoji sequences and in scripts that join letters,
// variation selectors after emoji, symbols or ideographs, a BOM at the
// start, a soft hyphen inside a long word.
func ordinaryInvisible(r, before, after rune, n int) bool {
	if n > 1 {
		return r == 0xFE0F && n == 2 // an emoji with its presentation selector twice is still an emoji
	}
	switch {
	case r == 0x200D || r == 0x200C:
		return pictographic(before) || pictographic(after) || joiningScript(before) || joiningScript(after)
	case r >= 0xFE00 && r <= 0xFE0F:
		return pictographic(before) || unicode.Is(unicode.Han, before) || unicode.IsSymbol(before) || unicode.IsDigit(before) || before == '#' || before == '*'
	case r >= 0xE0100 && r <= 0xE01EF:
		return unicode.Is(unicode.Han, before)
	case r == 0xFEFF:
		return before == utf8.RuneError
	case r == 0x00AD:
		return unicode.IsLetter(before) && unicode.IsLetter(after)
	}
	return false
}

// pictographic reports an emoji or a pictographic symbol.
func pictographic(r rune) bool {
	return r >= 0x1F000 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF || r >= 0x2300 && r <= 0x23FF || r >= 0x2B00 && r <= 0x2BFF || r == 0x20E3 || r >= 0x1F3FB && r <= 0x1F3FF
}

// joiningScript reports a letter of a script whose writing uses zero-width
// joiners and non-joiners: Arabic, Persian, the Indic scripts, Sinhala.
func joiningScript(r rune) bool {
	return unicode.In(r, unicode.Arabic, unicode.Devanagari, unicode.Bengali, unicode.Gurmukhi, unicode.Gujarati,
		unicode.Oriya, unicode.Tamil, unicode.Telugu, unicode.Kannada, unicode.Malayalam, unicode.Sinhala, unicode.Syriac)
}

// lookAlikeWords finds words that mix Latin letters with letters of
// another script that look Latin: high in a name, medium in prose. A
// name with such a letter and no Latin one is high too (a name of a
// tool is ASCII by the specification's advice).
func lookAlikeWords(fl field, f finder) []Finding {
	var out []Finding
	t := fl.text
	start := -1
	for i := 0; i <= len(t); {
		r, size := utf8.DecodeRuneInString(t[i:])
		word := i < len(t) && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || canon.Invisible(r) && !canon.IsTag(r))
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			if fd, ok := mixedWord(fl, t, start, i, f); ok {
				out = append(out, fd)
			}
			start = -1
		}
		if i == len(t) {
			break
		}
		i += size
	}
	return out
}

// mixedWord judges the word t[s:e].
func mixedWord(fl field, t string, s, e int, f finder) (Finding, bool) {
	latin := false
	var other, like rune
	for _, r := range t[s:e] {
		switch {
		case r < utf8.RuneSelf && unicode.IsLetter(r), unicode.Is(unicode.Latin, r) && !isConfusable(r):
			latin = true
		case isConfusable(r) && other == 0:
			other = r
			like, _ = canon.Confusable(r)
		}
	}
	if other == 0 {
		return Finding{}, false
	}
	desc := fmt.Sprintf("%s (%U), which looks like %q", scriptOf(other), other, like)
	switch {
	case fl.role == roleName && latin:
		return f(RuleLookAlike, High, "mixes Latin letters with "+desc+", in a name", s, e), true
	case fl.role == roleName:
		return f(RuleLookAlike, High, "writes a name with "+desc, s, e), true
	case latin && !unicode.Is(unicode.Latin, other):
		// (Latin's own letters that look like others, as Turkish ı, are
		// letters of the languages that use them, in prose.)
		return f(RuleLookAlike, Medium, "mixes Latin letters with "+desc+", in one word", s, e), true
	}
	return Finding{}, false
}

func isConfusable(r rune) bool { _, ok := canon.Confusable(r); return ok }

// scriptOf names a letter's script.
func scriptOf(r rune) string {
	for _, s := range []struct {
		name  string
		table *unicode.RangeTable
	}{{"the Cyrillic letter", unicode.Cyrillic}, {"the Greek letter", unicode.Greek}, {"the Armenian letter", unicode.Armenian}, {"the Cherokee letter", unicode.Cherokee}, {"the Latin letter", unicode.Latin}} {
		if unicode.Is(s.table, r) {
			return s.name
		}
	}
	return "the letter"
}
