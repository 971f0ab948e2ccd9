package audit

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/redact"
)

// encodedRules decodes base64 and hex blocks, and a text that speaks of
// ROT13, and reads what they say: an order hidden so. met are the
// findings the text itself gave.
func encodedRules(fl field, met []Finding, f finder) []Finding {
	var out []Finding
	text := fl.text
	found := func(decoded string, s, e int, code string) {
		inner := slices.DeleteFunc(readAsProse(decoded, fl), func(fd Finding) bool { return fd.Rule == RuleEncoded })
		if len(inner) == 0 {
			return
		}
		fd := f(RuleEncoded, High, fmt.Sprintf("hides text in %s that the %s rule finds", code, inner[0].Rule), s, e)
		fd.pair = "the decoded text, which the " + inner[0].Rule + " rule reads: " + inner[0].Message
		fd.Decoded = canon.Show(redact.MaskSecrets(clip(decoded, maxExcerpt)))
		out = append(out, fd)
	}
	for _, m := range base64Blocks(text, 8) {
		block := strings.TrimRight(text[m[0]:m[1]], "=")
		raw, err := base64.RawStdEncoding.DecodeString(block)
		if err != nil {
			raw, err = base64.RawURLEncoding.DecodeString(block)
		}
		if err == nil && printable(raw) {
			found(string(raw), m[0], m[1], "base64")
		}
	}
	for _, m := range percentBlocks.Get().FindAllStringIndex(text, min(8, strings.Count(text, "%")/8)) {
		if raw, err := url.PathUnescape(text[m[0]:m[1]]); err == nil && printable([]byte(raw)) {
			found(raw, m[0], m[1], "percent-encoding")
		}
	}
	for _, m := range base32Blocks.Get().FindAllStringIndex(text, 8) {
		block := text[m[0]:m[1]]
		if pad := len(strings.TrimRight(block, "=")) % 8; pad != 0 {
			block = strings.TrimRight(block, "=") + strings.Repeat("=", 8-pad)
		}
		if raw, err := base32.StdEncoding.DecodeString(block); err == nil && printable(raw) {
			found(string(raw), m[0], m[1], "base32")
		}
	}
	for _, m := range spacedBlocks.Get().FindAllStringIndex(text, min(8, spacedRun(text)/12)) {
		found(unspace(text[m[0]:m[1]]), m[0], m[1], "letters spaced apart")
	}
	start := 0
	for line := range strings.Lines(text) {
		if l := strings.TrimSuffix(line, "\n"); reversed(l) {
			found(reverse(l), start, start+len(l), "text written backwards")
		}
		start += len(line)
	}
	for _, m := range hexBlocks(text, 8) {
		if raw, err := hex.DecodeString(text[m[0]:m[1]]); err == nil && printable(raw) {
			found(string(raw), m[0], m[1], "hex")
		}
	}
	if lower := strings.ToLower(text); strings.Contains(lower, "rot13") || strings.Contains(lower, "rot-13") || strings.Contains(lower, "rot 13") {
		found(rot13(text), 0, len(text), "ROT13")
	}
	return append(out, undoneRules(fl, met, f)...)
}

// undoneRules reads a text with what was written to pass a reader
// undone in place (escapes, letters separated by dots or dashes, ROT13
// lines, leetspeak): a finding of medium or above that only the undone
// text has is a finding of its own, which shows both texts; met are the
// findings of the text itself.
func undoneRules(fl field, met []Finding, f finder) []Finding {
	var out []Finding
	for _, u := range undo(fl.text) {
		for _, fd := range readAsProse(u.text, fl) {
			if fd.Severity >= Medium && !slices.ContainsFunc(met, func(m Finding) bool { return m.Rule == fd.Rule }) && fd.Rule != RuleEncoded {
				d := f(RuleEncoded, High, fmt.Sprintf("hides text in %s that the %s rule finds", u.how, fd.Rule), u.s, u.e)
				d.pair = "the text undone, which the " + fd.Rule + " rule reads: " + fd.Message
				from := min(u.s, len(u.text))
				for from > 0 && u.text[from-1] != ' ' && u.text[from-1] != '\n' { // from the word's start
					from--
				}
				d.Decoded = canon.Show(redact.MaskSecrets(clip(u.text[from:], maxExcerpt)))
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// readAsProse runs the rules that read what a text says, with their
// severities, and nothing else: text read in fl's place (a parameter's
// description, with the tool's names beside it).
func readAsProse(text string, fl field) []Finding {
	quiet := func(rule string, sev Severity, msg string, s, e int) Finding {
		return Finding{Rule: rule, Severity: sev, Message: msg}
	}
	fl.text, fl.role = text, roleProse // (a default's decoded text is prose, not a name's words)
	v := newView(text)
	out := append(phraseRulesIn(text, v, quiet), sensitiveFilesOf(text, v, quiet, &fl)...)
	return append(out, orderRules(fl, v, quiet)...)
}

// undone is a text with one way of hiding undone, and where in the
// original the hidden part starts and ends.
type undone struct {
	how  string
	text string
	s, e int
}

// undo is text with each way of hiding that it shows undone: three or
// more escapes (\x72, \u0072, \162, &#114;, &#x72;), letters separated
// by dots, dashes or the like (r.e.a.d), lines written in ROT13, and
// leetspeak with two or more letters changed.
func undo(text string) []undone {
	var out []undone
	if ms := escapes.Get().FindAllStringIndex(text, -1); len(ms) >= 3 {
		var b []byte
		last := 0
		for _, m := range ms {
			b = append(b, text[last:m[0]]...)
			b = appendEscape(b, text[m[0]:m[1]])
			last = m[1]
		}
		out = append(out, undone{"escape sequences", strings.ToValidUTF8(string(append(b, text[last:]...)), "\uFFFD"), ms[0][0], ms[len(ms)-1][1]})
	}
	if joined, s, e := joinSeparated(text); s >= 0 {
		out = append(out, undone{"letters separated by signs", joined, s, e})
	}
	var rot []byte
	start, first, end := 0, -1, 0
	for line := range strings.Lines(text) {
		if rot13Line(line) {
			if rot == nil {
				rot = []byte(text)
			}
			copy(rot[start:], rot13(line))
			if first < 0 {
				first = start
			}
			end = start + len(line)
		}
		start += len(line)
	}
	if rot != nil {
		out = append(out, undone{"ROT13", string(rot), first, end})
	}
	if l := unleet(text); l != text {
		s, e, n := -1, 0, 0
		for i := range len(l) {
			if l[i] != text[i] {
				if s < 0 {
					s = i
				}
				e, n = i+1, n+1
			}
		}
		if n >= 2 {
			out = append(out, undone{"leetspeak", l, s, e})
		}
	}
	return out
}

// escapes are the escape sequences of C, JSON, JavaScript, Python and
// HTML that write a character by its number, and HTML's names for the
// signs a path or a tag is written with.
var escapes = &lazy.Regexp{Pattern: `\\x[0-9A-Fa-f]{2}|\\u\{[0-9A-Fa-f]{1,6}\}|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}|\\[0-7]{3}|&#[0-9]{1,7};|&#[xX][0-9A-Fa-f]{1,6};|&(?:lt|gt|amp|quot|apos|nbsp|sol|colon|period|lowbar|commat|tilde);`}

// appendEscape appends what one escape stands for: \x as a byte (a run of
// them spells UTF-8), the others as a character.
func appendEscape(b []byte, esc string) []byte {
	var digits string
	base := 16
	switch {
	case strings.HasPrefix(esc, "&#x"), strings.HasPrefix(esc, "&#X"):
		digits = esc[3 : len(esc)-1]
	case strings.HasPrefix(esc, "&#"):
		digits, base = esc[2:len(esc)-1], 10
	case strings.HasPrefix(esc, "\\u{"):
		digits = esc[3 : len(esc)-1]
	case esc[1] >= '0' && esc[1] <= '7':
		digits, base = esc[1:], 8
	default:
		digits = esc[2:]
	}
	if esc[0] == '&' && esc[1] != '#' {
		return append(b, html.UnescapeString(esc)...) // a named entity
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return append(b, esc...)
	}
	if esc[1] == 'x' || base == 8 {
		return append(b, byte(n))
	}
	return utf8.AppendRune(b, rune(n))
}

// separatedLetters are words written a letter at a time, the letters
// apart by a dot, dash, underscore or the like: r.e.a.d, s-e-n-d, d-o.
var separatedLetters = &lazy.Regexp{Pattern: `\b(?:\pL[.\-_*·|/+~•])+\pL\b`}

// joinSeparated is text with each run of such words joined up, and
// where the first and last run are (-1 for none): a run is two or more
// words of six or more letters in all, or one of four or more, with only
// spaces between (e-mail, a-z and e.g. are no run).
func joinSeparated(text string) (string, int, int) {
	var b strings.Builder
	last, first, end := 0, -1, 0
	ms := separatedLetters.Get().FindAllStringIndex(text, -1)
	for i := 0; i < len(ms); {
		j, letters := i, 0
		for ; j < len(ms) && (j == i || strings.TrimSpace(text[ms[j-1][1]:ms[j][0]]) == ""); j++ {
			letters += utf8.RuneCountInString(text[ms[j][0]:ms[j][1]])/2 + 1
		}
		if j-i >= 2 && letters >= 6 || letters >= 4 {
			for _, m := range ms[i:j] {
				b.WriteString(text[last:m[0]])
				b.WriteString(strings.Map(func(r rune) rune {
					if unicode.IsLetter(r) {
						return r
					}
					return -1
				}, text[m[0]:m[1]]))
				last = m[1]
			}
			if first < 0 {
				first = ms[i][0]
			}
			end = ms[j-1][1]
		}
		i = j
	}
	if first < 0 {
		return text, -1, -1
	}
	b.WriteString(text[last:])
	return b.String(), first, end
}

// rot13Line reports a line that reads as English in ROT13 and not as it
// stands.
func rot13Line(s string) bool {
	forward, back := 0, 0
	for _, w := range strings.Fields(strings.ToLower(s)) {
		switch strings.Trim(w, ".,:;()'\"") {
		case "the", "and", "to", "of", "you", "this", "all", "file", "send", "read", "user", "with":
			forward++
		case "gur", "naq", "gb", "bs", "lbh", "guvf", "nyy", "svyr", "fraq", "ernq", "hfre", "jvgu":
			back++
		}
	}
	return back >= 3 && back > 2*forward
}

// percentBlocks, base32Blocks and spacedBlocks find text in those encodings: eight or more
// percent-escapes in a row, or a word of them and words (Before%20verifying%2C, not a URL's
// query); 32 or more base32 letters; twelve or more characters each followed by one to three spaces.
var (
	percentBlocks = &lazy.Regexp{Pattern: `(?:%[0-9A-Fa-f]{2}){8,}|(?:^|\s)(?:[\w.~-]*%[0-9A-Fa-f]{2}){8,}[\w.~-]*`}
	base32Blocks  = &lazy.Regexp{Pattern: `\b[A-Z2-7]{32,}={0,6}`}
	spacedBlocks  = &lazy.Regexp{Pattern: `(?:\S {1,3}){12,}\S`}
)

// spacedRun is the length of the longest run of characters each followed
// by one to three spaces: spacedBlocks is worth running past twelve.
func spacedRun(s string) int {
	best, n := 0, 0
	for i := 0; i < len(s); {
		switch {
		case s[i] != ' ' && i+1 < len(s) && s[i+1] == ' ' && (i == 0 || s[i-1] == ' '):
			n++
			best = max(best, n)
			i += 2
			for i < len(s) && s[i] == ' ' {
				i++
			}
		default:
			n = 0
			i++
		}
	}
	return best
}

// unspace joins letters spaced apart: a single space is none, two are a
// space between words.
func unspace(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(s, "  ", "\x00"), " ", ""), "\x00", " ")
}

// reversed reports a line written backwards: more of the commonest words
// read backwards than forwards, by far.
func reversed(s string) bool {
	// the words of s read backwards are s's words each reversed: counted
	// as they stand, in one pass, without reversing s
	forward, back := 0, 0
	for _, w := range strings.Fields(s) {
		switch strings.ToLower(strings.Trim(w, ".,:;()")) {
		case "the", "and", "to", "of", "from", "file", "that", "this", "in", "it", "you", "your", "all", "send", "user", "with", "read", "key":
			forward++
		case "eht", "dna", "ot", "fo", "morf", "elif", "taht", "siht", "ni", "ti", "uoy", "ruoy", "lla", "dnes", "resu", "htiw", "daer", "yek":
			back++
		case "a":
			forward++
			back++
		}
	}
	return back >= 3 && back > 2*forward
}

// reverse is s read from its end.
func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// hexBlocks are the first n runs of 40 or more hex digits, of even length.
func hexBlocks(text string, n int) [][2]int {
	hex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	return runs(text, n, 40, hex, func(start, end int) int { return end - (end-start)%2 })
}

// runs are the first n runs of bytes that in holds for, least or more
// long, each ended where end says.
func runs(text string, n, least int, in func(byte) bool, end func(start, end int) int) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(text) && len(out) < n; i++ {
		if i < len(text) && in(text[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= least {
			out = append(out, [2]int{start, end(start, i)})
		}
		start = -1
	}
	return out
}

// rot13 turns each ASCII letter 13 places.
func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// minBase64 is the shortest run of base64 read as a block.
const minBase64 = 24

// base64Blocks are the first n runs of base64's characters (either
// alphabet) of minBase64 or more, with their padding.
func base64Blocks(text string, n int) [][2]int {
	b64 := func(c byte) bool {
		return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
	}
	return runs(text, n, minBase64, b64, func(_, end int) int {
		pad := text[end:min(len(text), end+2)]
		return end + len(pad) - len(strings.TrimLeft(pad, "="))
	})
}

// printable reports bytes that are mostly text: UTF-8, with few controls.
func printable(b []byte) bool {
	return len(b) >= 12 && utf8.Valid(b) && !bytes.ContainsFunc(b, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' })
}
