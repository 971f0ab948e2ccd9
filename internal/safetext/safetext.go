// Package safetext makes text that a server controls safe to show on a
// terminal. A server's log messages, progress and task status messages,
// error messages and data, HTTP error bodies and stderr could otherwise
// carry escape sequences (to move the cursor, rewrite what mcpv printed,
// set the window title or the clipboard), C1 control characters that some
// terminals obey as escapes, or bidirectional overrides that make text read
// other than it is. Every such character is shown escaped instead, as Go
// writes it in a string literal: \x1b, \u202e.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s made safe to show as (part of) one line: every control
// character, newlines included, and every bidirectional control is shown
// escaped; so is a byte that is not UTF-8.
func Line(s string) string { return escape(s, false) }

// Text is Line, but newlines (and tabs) stay as they are: for text shown on
// lines of its own, such as a log message.
func Text(s string) string { return escape(s, true) }

// spaces turns line breaks and tabs into spaces: Unicode's line and
// paragraph separators too.
var spaces = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ", "\u2028", " ", "\u2029", " ")

// Prose is Line for a sentence a server wrote (a message, a description):
// its line breaks and tabs become spaces rather than escapes.
func Prose(s string) string { return Line(spaces.Replace(s)) }

func escape(s string, keepLines bool) string {
	if clean(s, keepLines) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unsafe(r):
			if r < 0x80 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Safe reports whether Line shows s as it is: no character in it to
// escape. It allocates nothing.
func Safe(s string) bool { return clean(s, false) }

// clean reports whether s needs no escaping, without allocating.
func clean(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return false
		case keepLines && (r == '\n' || r == '\t'):
		case r < 0x20 || unsafe(r):
			return false
		}
		i += size
	}
	return true
}

// unsafe reports a character a terminal may act on, or that changes how
// the text around it reads: C0 and C1 controls, DEL, the bidirectional
// marks, embeddings, overrides and isolates, the byte order mark
// (U+FEFF), which shows as nothing where it may be the whole defect, and
// the line and paragraph separators (U+2028, U+2029), which end a line
// where an editor, a log viewer or JavaScript reads it.
func unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
}

// Clip bounds a server's text quoted in a message: s cut to at most n
// bytes (at a character boundary) and, when cut, the count of what was
// left out. A line about a failure stays a line whatever the server sent.
func Clip(s string, n int) string {
	head, more := Cut(s, n)
	return head + more
}

// Runes is s cut to n characters, with "…" where it was cut.
func Runes(s string, n int) string {
	for i := range s {
		if n--; n < 0 {
			return s[:i] + "…"
		}
	}
	return s
}

// Cut is Clip in two parts, for a message that quotes the text and then
// says what was left out: s cut to at most n bytes, before the word the
// bound falls in when that word began in the last quarter of the bound (a
// secret cut in two is one the masker no longer knows: a token up to 256
// bytes long is quoted whole or not at all), and "… (N more bytes)" when
// cut, else "".
func Cut(s string, n int) (head, more string) {
	if len(s) <= n {
		return s, ""
	}
	cut := n
	if word := strings.LastIndexFunc(s[n-min(n/4, 256):n+1], unicode.IsSpace); word >= 0 {
		cut = n - min(n/4, 256) + word
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}
