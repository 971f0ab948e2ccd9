package canon

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpv/mcpv/internal/lazy"
)

// Skeleton is what a name looks like to a reader, whatever it is made of:
// its compatibility form (NFKC: full-width and mathematical letters as the
// letters they show), without the characters that show nothing (format
// characters, variation selectors, tags), each letter of another script
// that looks like a Latin one as that letter (Cyrillic а, Greek ο), in
// lower case, with the shapes a reader takes one for another made one
// (0 and o; 1, i, I, | and l; rn and m; vv and w; cl and d), and -, _, . and
// white space as _. Two names with one skeleton look alike: a new tool
// "read_fiIe" beside a pinned "read_file", or a tool named on two servers
// of one config "send_email" and "send_emaіl".
func Skeleton(name string) string {
	var b strings.Builder
	for _, r := range norm.NFKC.String(name) {
		if Invisible(r) {
			continue
		}
		if l, ok := Confusable(r); ok {
			r = l
		}
		r = unicode.ToLower(r)
		switch r {
		case 'i', '|', '1', 'ǀ':
			r = 'l'
		case '0':
			r = 'o'
		case '-', '.', ' ', '\t':
			r = '_'
		}
		b.WriteRune(r)
	}
	return pairs.Replace(b.String())
}

// pairs are the letter pairs a reader takes for one letter.
var pairs = strings.NewReplacer("rn", "m", "vv", "w", "cl", "d")

// LookAlike reports whether two different names look alike.
func LookAlike(a, b string) bool { return a != b && Skeleton(a) == Skeleton(b) }

// Invisible reports a character that shows nothing where a reader would
// see it but that a program, or a model, reads: format characters
// (zero-width spaces and joiners, bidirectional controls, the word
// joiner, the BOM, Unicode tags), variation selectors, and the other
// default-ignorable code points.
func Invisible(r rune) bool {
	switch {
	case unicode.Is(unicode.Cf, r):
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF: // variation selectors
		return true
	case r == 0x034F, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5, r == 0x3164, r == 0xFFA0, r == 0x180B, r == 0x180C, r == 0x180D, r == 0x180F:
		// combining grapheme joiner, Hangul fillers, Khmer inherent
		// vowels, Mongolian free variation selectors
		return true
	case r >= 0xE0000 && r <= 0xE0FFF: // tags and the rest of plane 14's default-ignorables
		return true
	}
	return false
}

// Confusable is the Latin letter a letter of another script is taken
// for, when it is one a reader takes for a Latin letter (Unicode's
// confusables, for the scripts whose letters are used for it).
func Confusable(r rune) (rune, bool) {
	if r < 0x80 {
		return 0, false
	}
	l, ok := confusables.Get()[r]
	return l, ok
}

// confusables maps letters of Cyrillic, Greek, Armenian, Cherokee and
// Latin's own extensions to the ASCII letter they look like.
var confusables = &lazy.Value[map[rune]rune]{New: func() map[rune]rune {
	return map[rune]rune{
		// Cyrillic, small
		0x0430: 'a', 0x0435: 'e', 0x043E: 'o', 0x0440: 'p', 0x0441: 'c', 0x0443: 'y', 0x0445: 'x',
		0x0456: 'i', 0x0458: 'j', 0x0455: 's', 0x0501: 'd', 0x051B: 'q', 0x051D: 'w', 0x04BB: 'h',
		0x04CF: 'l', 0x0475: 'v', 0x0491: 'r', 0x044C: 'b', 0x0261: 'g', 0x043A: 'k', 0x0442: 't',
		0x043F: 'n', 0x0433: 'r', 0x0457: 'i', 0x0450: 'e', 0x0451: 'e',
		// Cyrillic, capital
		0x0410: 'A', 0x0412: 'B', 0x0415: 'E', 0x041A: 'K', 0x041C: 'M', 0x041D: 'H', 0x041E: 'O',
		0x0420: 'P', 0x0421: 'C', 0x0422: 'T', 0x0425: 'X', 0x0423: 'Y', 0x0406: 'I', 0x0408: 'J',
		0x0405: 'S', 0x04AE: 'Y', 0x04C0: 'I', 0x0500: 'D', 0x051A: 'Q', 0x051C: 'W', 0x04BA: 'H',
		0x0417: '3', 0x0474: 'V', 0x0407: 'I', 0x0400: 'E', 0x0401: 'E',
		// Greek, small
		0x03B1: 'a', 0x03BF: 'o', 0x03BD: 'v', 0x03C1: 'p', 0x03B9: 'i', 0x03BA: 'k', 0x03C5: 'u',
		0x03C7: 'x', 0x03F2: 'c', 0x03F3: 'j', 0x03B3: 'y', 0x03C4: 't', 0x03B5: 'e', 0x03C9: 'w',
		0x03B7: 'n', 0x03BC: 'u', 0x0251: 'a',
		// Greek, capital
		0x0391: 'A', 0x0392: 'B', 0x0395: 'E', 0x0396: 'Z', 0x0397: 'H', 0x0399: 'I', 0x039A: 'K',
		0x039C: 'M', 0x039D: 'N', 0x039F: 'O', 0x03A1: 'P', 0x03A4: 'T', 0x03A5: 'Y', 0x03A7: 'X',
		0x03F9: 'C', 0x037F: 'J', 0x03DC: 'F',
		// Armenian
		0x0585: 'o', 0x057D: 'u', 0x0570: 'h', 0x0578: 'n', 0x0566: 'q', 0x0581: 'g', 0x0575: 'j',
		0x0562: 'p', 0x0555: 'O', 0x054D: 'U', 0x054F: 'S', 0x053C: 'L',
		// Cherokee
		0x13AA: 'A', 0x13AC: 'E', 0x13BB: 'H', 0x13AB: 'J', 0x13E6: 'K', 0x13B7: 'M', 0x13E2: 'P',
		0x13DA: 'S', 0x13A2: 'T', 0x13B3: 'W', 0x13C3: 'Z', 0x13A1: 'R', 0x13DF: 'C', 0x13BE: 'O',
		0x13A0: 'D', 0x13C0: 'G', 0x13D9: 'V', 0x13DE: 'L', 0x13F4: 'B',
		// Latin's own look-alikes that NFKC keeps
		0x0131: 'i', 0x0269: 'i', 0x026A: 'i', 0x1D00: 'a', 0x0299: 'b', 0x1D04: 'c', 0x1D05: 'd',
		0x1D07: 'e', 0x0262: 'g', 0x029C: 'h', 0x1D0A: 'j', 0x1D0B: 'k', 0x029F: 'l', 0x1D0D: 'm',
		0x0274: 'n', 0x1D0F: 'o', 0x1D18: 'p', 0x0280: 'r', 0x1D1B: 't', 0x1D1C: 'u', 0x1D20: 'v',
		0x1D21: 'w', 0x028F: 'y', 0x1D22: 'z', 0x0183: 'b', 0x018D: 'g', 0x01C0: 'l', 0x0196: 'l',
		0x0237: 'j', 0x0252: 'a', 0x1E9F: 'd', 0xA731: 's', 0xA76A: '3',
	}
}}
