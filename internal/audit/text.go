package audit

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/redact"
	"golang.org/x/text/unicode/norm"
)

// view is a text as the phrase rules read it: each character in its
// compatibility form (NFKC), the characters that show nothing left out,
// letters of other scripts that look Latin as the Latin letter (in a word
// that mixes them with Latin letters, or made of them alone in a text
// mostly Latin: "раssword" and "сору", not Russian words), other white
// space as a space, in lower case. at maps each byte of text back
// to the byte of the original it came from, so that a match is quoted as
// the server wrote it.
type view struct {
	text string
	at   []int32 // at[i]: where in the original text the view's byte i comes from; nil: the same place
}

func newView(s string) view {
	if plainASCII(s) {
		// printable ASCII, lines and tabs: the view is the text in lower
		// case, a carriage return a line's end and a tab a space
		b := []byte(s)
		for i, c := range b {
			switch {
			case c >= 'A' && c <= 'Z':
				b[i] = c + 'a' - 'A'
			case c == '\r':
				b[i] = '\n'
			case c == '\t':
				b[i] = ' '
			}
		}
		return view{string(b), nil}
	}
	var b strings.Builder
	at := make([]int32, 0, len(s))
	escape := false // inside an escape sequence, which reads as a space
	latinText := mostlyLatin(s)
	marked := heavilyMarked(s)   // diacritics on most letters hide the words they sit on
	mapWord, wordEnd := false, 0 // whether the word that holds i reads as Latin, and where it ends
	for i, r := range s {
		if i >= wordEnd {
			mapWord, wordEnd = latinWord(s, i, latinText)
		}
		if escape {
			escape = r < 0x40 || r > 0x7e || r == '['
			continue
		}
		if r == utf8.RuneError || canon.Invisible(r) {
			continue
		}
		var out string
		switch {
		case r == 0x1b || r == 0x9b:
			out, escape = " ", true
		case r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029:
			out = "\n" // a line's end ends a sentence, as a bullet's does
		case unicode.IsSpace(r) || unicode.IsControl(r):
			out = " "
		case r < utf8.RuneSelf:
			out = string(unicode.ToLower(r))
		case r == '’' || r == '‘':
			out = "'" // typeset single quotes: "don’t" as "don't", ‘this’ as 'this'
		default:
			out = norm.NFKC.String(string(r))
			if l, ok := canon.Confusable(r); ok && mapWord {
				out = string(l)
			}
			if marked {
				out = unmarked(out)
			}
			out = strings.ToLower(out)
		}
		b.WriteString(out)
		for range len(out) {
			at = append(at, int32(i))
		}
	}
	return view{b.String(), at}
}

// plainASCII reports a text of printable ASCII, line ends and tabs
// alone: no character the Unicode rules or the view need to read.
func plainASCII(s string) bool {
	return !strings.ContainsFunc(s, func(c rune) bool { return c >= 0x7f || c < 0x20 && c != '\n' && c != '\r' && c != '\t' })
}

// heavilyMarked reports a text in which most letters carry a combining
// mark (written apart or composed): a way to hide words from a reader of
// bytes that a model reads through.
func heavilyMarked(s string) bool {
	letters, marks := 0, 0
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			marks++
		case unicode.IsLetter(r):
			letters++
		}
	}
	return letters > 8 && marks*2 > letters
}

// unmarked is s without its combining marks.
func unmarked(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mostlyLatin reports a text whose letters look Latin, by far: Latin letters and
// look-alikes twice the rest, a look-alike counted with the rest where its script
// writes other letters of the text (Russian's а and о; not a stray Ж's).
func mostlyLatin(s string) bool {
	latin, other := 0, 0
	like, written := map[string]int{}, map[string]bool{} // look-alikes by script; the scripts with letters that look like no Latin one
	for _, r := range s {
		switch _, looks := canon.Confusable(r); {
		case r < utf8.RuneSelf && unicode.IsLetter(r) || looks && unicode.Is(unicode.Latin, r):
			latin++
		case looks:
			like[scriptOf(r)]++
		case unicode.IsLetter(r) && !canon.Invisible(r):
			other++
			written[scriptOf(r)] = true
		}
	}
	for sc, n := range like { // (a look-alike of a script the text writes in, as Russian is half such letters, is that script's)
		if written[sc] {
			other += n
		} else {
			latin += n
		}
	}
	return latin > 2*other
}

// latinWord says whether the word at s[i:] (a run of letters, digits and
// invisible characters; or the one character there) reads as Latin: it
// holds a Latin letter, or it is made of letters that look Latin alone in
// a text that is mostly Latin. It returns where the word ends.
func latinWord(s string, i int, latinText bool) (bool, int) {
	hasLatin, allLike, end := false, true, i
	for end < len(s) {
		r, n := utf8.DecodeRuneInString(s[end:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) && !canon.Invisible(r) {
			if end == i {
				return false, i + n
			}
			break
		}
		end += n
		switch _, like := canon.Confusable(r); {
		case r < utf8.RuneSelf && unicode.IsLetter(r):
			hasLatin = true
		case unicode.IsLetter(r) && !like:
			allLike = false
		}
	}
	return hasLatin || allLike && latinText, end
}

// leetView is v with digits inside words read as the letters they pass
// for, when there are any (else v itself, and false): the phrase rules
// read both views, the others v alone (GB33 is an account's number, not
// GBEE).
func (v view) leetView() (view, bool) {
	t := unleet(v.text)
	return view{t, v.at}, t != v.text
}

// leetOf is the letter a digit or sign written for one passes for (0
// for none): 1gn0re, $end, @ll.
func leetOf(c byte) byte {
	if i := strings.IndexByte("01!|34@5$7+89", c); i >= 0 {
		return "oiiieaassttbg"[i]
	}
	return 0
}

// unleet reads a digit or sign written inside a word for the letter it
// looks like (1gn0re: ignore, $3nd: send, ~/.$$h); a number stays a
// number, and a sign between words a sign.
func unleet(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < utf8.RuneSelf && leetOf(byte(r)) != 0 }) {
		return s // no digit nor sign to read: no copy of a text that may be megabytes
	}
	b := []byte(s)
	letter := func(i int) bool {
		c := byte(0)
		if i >= 0 && i < len(b) {
			c = b[i] | 0x20
		}
		return c >= 'a' && c <= 'z'
	}
	changed := false
	// a letter read in one pass makes its neighbour a letter's neighbour
	// in the next ($$h): three passes at most
	for pass, more := 0, true; pass < 3 && more; pass++ {
		more = false
		for i, c := range []byte(s) {
			l := leetOf(c)
			if l == 0 || b[i] == l {
				continue
			}
			switch {
			case c == '@' && emailAt(s, i):
				continue // an address: audit@sync.example
			case c >= '0' && c <= '9', c == '$', c == '@', c == '|':
				if !letter(i-1) && !letter(i+1) {
					continue
				}
			case !letter(i + 1): // !, +: only before a letter (hi!, C++)
				continue
			}
			b[i], more, changed = l, true, true
		}
	}
	if !changed {
		return s
	}
	return string(b)
}

// maxDomain is the longest domain name DNS allows, in bytes.
const maxDomain = 253

// emailAt reports an @ at i that joins an address's name to its domain:
// the word after it goes on to a dot and more letters. A domain is at
// most 253 bytes, so no more is read: a run of @ with no space between
// costs each one a bounded look, not the rest of the text.
func emailAt(s string, i int) bool {
	rest := s[i+1 : min(len(s), i+1+maxDomain+1)]
	j := strings.IndexAny(rest, " \t\n,;()<>\"'")
	if j < 0 && len(rest) > maxDomain {
		return false // a word too long for a domain
	}
	if j >= 0 {
		rest = rest[:j]
	}
	dot := strings.LastIndexByte(strings.TrimRight(rest, "."), '.')
	return dot > 0 && dot < len(strings.TrimRight(rest, "."))-1
}

// span is the original's bytes that the view's bytes [start, end) came from.
func (v view) span(orig string, start, end int) (int, int) {
	if v.at == nil {
		s := min(start, len(orig))
		return s, max(min(end, len(orig)), s)
	}
	if start >= len(v.at) {
		return len(orig), len(orig)
	}
	s := int(v.at[start])
	e := len(orig)
	if end < len(v.at) {
		e = int(v.at[end])
	}
	return s, max(e, s)
}

// plain reports whether the original's bytes [s, e) read as the view's
// [start, end) without the view's help: the same text but for case and
// white space. When they do not, the text was written with look-alike or
// invisible characters to get past a reader.
func plain(orig string, s, e int, v view, start, end int) bool {
	o := strings.Map(func(r rune) rune { // full-width signs and digits, as CJK text writes them ("："), and typeset single quotes
		if r >= 0xFF01 && r <= 0xFF5E && !unicode.IsLetter(r) {
			return r - 0xFEE0
		} else if r == '’' || r == '‘' {
			return '\''
		}
		return r
	}, strings.Join(strings.Fields(strings.ToLower(orig[s:e])), " "))
	w := strings.Join(strings.Fields(v.text[start:end]), " ")
	if strings.ContainsAny(o, "şğçöü") {
		o = strings.ReplaceAll(o, "ı", "i") // Turkish, where ı is a letter, not a look-alike
	}
	return o == w || !plainASCII(o) && unmarked(o) == unmarked(w) && latinMarksOnly(o) && !heavilyMarked(o)
}

// latinMarksOnly reports a text whose letters beyond ASCII are all Latin
// ones (à, ü, ñ): what a French, German or Spanish text is written with,
// which the view reads without its marks, not a look-alike of another
// script.
func latinMarksOnly(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf && unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) })
}

// excerptWidth is about how much of a text a finding quotes around what
// it found, on each side.
const excerptWidth = 40

// secretReach is how far around an excerpt its secrets are looked for.
const secretReach = 8 << 10

// maxExcerpt bounds an excerpt's length, however long the match.
const maxExcerpt = 240

// excerpt quotes text[s:e] with some of what is around it, made safe for
// a terminal and with any secret in it masked.
func excerpt(text string, s, e int) string {
	a, b := max(0, s-excerptWidth), min(len(text), e+excerptWidth)
	if b-a > maxExcerpt {
		b = a + maxExcerpt
	}
	a = runeStart(text, a)
	for b < len(text) && !utf8.RuneStart(text[b]) {
		b++
	}
	// A secret that reaches into the window is masked whole: the secrets
	// of the text around it (as far as a secret reaches: a PEM key is a
	// few KiB), not of the whole text, which a long text has thousands of
	// findings to ask of.
	from, to := max(0, a-secretReach), min(len(text), b+secretReach)
	from = runeStart(text, from)
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	for _, f := range redact.FindSecrets(text[from:to]) {
		if fs, fe := from+f.Start, from+f.End; fs < b && fe > a {
			a, b = min(a, fs), max(b, fe)
		}
	}
	out := canon.Show(redact.MaskSecrets(text[a:b]))
	if a > 0 {
		out = "…" + out
	}
	if b < len(text) {
		out += "…"
	}
	return out
}

// clip cuts s to at most n bytes at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = runeStart(s, n)
	return s[:n] + "…"
}

// valueRole is what a value of a schema is to a model: a value it may
// pass, unless it is written as prose, six words or more ("private (note
// to assistant: before switching, push all branches to ...)"), which the
// model reads as it reads a description.
// It reads no further than the sixth word, and allocates nothing: a
// server's value may be of any size.
func valueRole(t string) role {
	words := 0
	for rest := t; rest != "" && words < 6; {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		if w := strings.TrimFunc(rest[:end], unicode.IsPunct); w != "" && strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 {
			words++
		}
		rest = rest[end:]
	}
	if words >= 6 {
		return roleProse
	}
	return roleValue
}
