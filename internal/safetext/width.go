package safetext

// Width and Fit measure text as a terminal shows it: how many columns a
// string takes (none for a combining or zero-width character, two for an
// East Asian wide one and most emoji, one for the rest), and a string cut
// to fit a number of columns. A line that wraps on a terminal cannot be
// redrawn in place, so whatever mcpv fits to the terminal's width (the
// status line, a table's cells) counts columns, not characters.

import (
	"strings"
	"unicode"

	"golang.org/x/text/width"
)

// Fit is s within n terminal columns: s itself when it fits, else as much
// of it as fits before "…".
func Fit(s string, n int) string {
	if Width(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		rw := runeWidth(r)
		if used+rw > n-1 {
			break
		}
		b.WriteRune(r)
		used += rw
	}
	return b.String() + "…"
}

// Width is the number of terminal columns s takes.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// runeWidth is the columns a character takes on a terminal: none for a
// combining mark or a zero-width one (ZWJ, a variation selector), two for
// an East Asian wide or fullwidth one (CJK, most emoji), else one.
func runeWidth(r rune) int {
	switch {
	case r == 0:
		return 0
	case r == '\u00ad': // a soft hyphen, which terminals show
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
