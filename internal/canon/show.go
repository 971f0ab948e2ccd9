package canon

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/lazy"
)

// Show makes a text safe for a terminal, in a way that shows what is
// there: control characters as Go escapes them (\x1b, \n), and each
// character that shows nothing by its code point and name (⟨U+200B ZERO
// WIDTH SPACE⟩); a run of Unicode tags as the text they spell.
func Show(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case IsTag(r):
			j := RunEnd(s, i, IsTag)
			fmt.Fprintf(&b, "⟨tags: %q⟩", DecodeTags(s[i:j]))
			i = j
			continue
		case Invisible(r) || Bidi(r) || unicode.Is(unicode.Co, r):
			fmt.Fprintf(&b, "⟨%U %s⟩", r, RuneName(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// RunEnd is where the run of characters that in reports, from byte i of
// s, ends.
func RunEnd(s string, i int, in func(rune) bool) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !in(r) {
			break
		}
		i += n
	}
	return i
}

// IsTag reports a Unicode tag character (U+E0000 to U+E007F).
func IsTag(r rune) bool { return r >= 0xE0000 && r <= 0xE007F }

// DecodeTags spells the ASCII that tag characters stand for; a tag with
// no ASCII twin (the language tag, the cancel tag) is left out.
func DecodeTags(s string) string {
	var b strings.Builder
	for _, r := range s {
		if IsTag(r) && r >= 0xE0020 && r <= 0xE007E {
			b.WriteRune(r - 0xE0000)
		}
	}
	return b.String()
}

// Bidi reports a bidirectional control or mark.
func Bidi(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F || r == 0x061C
}

// runeNames names the characters findings name most.
var runeNames = &lazy.Value[map[rune]string]{New: func() map[rune]string {
	return map[rune]string{
		0x00AD: "SOFT HYPHEN", 0x034F: "COMBINING GRAPHEME JOINER", 0x061C: "ARABIC LETTER MARK",
		0x115F: "HANGUL CHOSEONG FILLER", 0x1160: "HANGUL JUNGSEONG FILLER", 0x180E: "MONGOLIAN VOWEL SEPARATOR",
		0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
		0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK",
		0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
		0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE",
		0x2060: "WORD JOINER", 0x2061: "FUNCTION APPLICATION", 0x2062: "INVISIBLE TIMES", 0x2063: "INVISIBLE SEPARATOR", 0x2064: "INVISIBLE PLUS",
		0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE",
		0x3164: "HANGUL FILLER", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE", 0xFFA0: "HALFWIDTH HANGUL FILLER",
	}
}}

// RuneName names a character that shows nothing, as a finding quotes
// it: by its Unicode name for the ones findings meet most, else by its
// kind.
func RuneName(r rune) string {
	switch {
	case runeNames.Get()[r] != "":
		return runeNames.Get()[r]
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return "VARIATION SELECTOR"
	case unicode.Is(unicode.Co, r):
		return "PRIVATE USE"
	case unicode.Is(unicode.Cf, r):
		return "FORMAT CHARACTER"
	}
	return "INVISIBLE CHARACTER"
}
