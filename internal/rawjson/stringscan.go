package rawjson

import "unicode/utf8"

// StringScan checks a JSON string literal read in pieces (a data file's
// long string, as it is read and as it is sent): its quotes, its escapes,
// no raw control byte, and whether it is valid UTF-8, with what it has
// read of an escape or a rune carried from one piece to the next.
type StringScan struct {
	state   uint8 // scanOpen, scanBody, scanEscape, scanHex+k (k hex digits read), scanDone
	part    [utf8.UTFMax]byte
	np      int  // bytes of a rune in part
	BadUTF8 bool // some bytes are not valid UTF-8 (encoding/json reads each as U+FFFD)
}

const (
	scanOpen = iota
	scanBody
	scanEscape
	scanDone
	scanHex // and scanHex+1 to scanHex+3
)

// Scan reads p, the literal's next bytes: n of them are the literal's, up
// to its closing quote (the rest follow it); ok is false at a byte no
// JSON string holds there.
func (s *StringScan) Scan(p []byte) (n int, ok bool) {
	for i, c := range p {
		switch {
		case s.state == scanOpen:
			if c != '"' {
				return i, false
			}
			s.state = scanBody
		case s.state == scanDone:
			return i, true
		case s.state == scanEscape:
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.state = scanBody
			case 'u':
				s.state = scanHex
			default:
				return i, false
			}
		case s.state >= scanHex:
			if !isHex(c) {
				return i, false
			}
			if s.state++; s.state == scanHex+4 {
				s.state = scanBody
			}
		case s.np > 0 && c >= 0x80:
			s.part[s.np] = c
			if s.np++; utf8.FullRune(s.part[:s.np]) {
				s.rune()
			}
		case c >= 0x80:
			if s.part[0], s.np = c, 1; utf8.FullRune(s.part[:1]) {
				s.rune() // a byte no rune starts with
			}
		default:
			if s.np > 0 { // a rune cut short
				s.BadUTF8, s.np = true, 0
			}
			switch {
			case c == '"':
				s.state = scanDone
			case c == '\\':
				s.state = scanEscape
			case c < 0x20:
				return i, false
			}
		}
	}
	return len(p), true
}

// rune checks the rune read whole in part.
func (s *StringScan) rune() {
	if r, size := utf8.DecodeRune(s.part[:s.np]); r == utf8.RuneError && size == 1 {
		s.BadUTF8 = true
	}
	s.np = 0
}

// Between reports whether what was read ends between two runes or
// escapes of the string's text.
func (s *StringScan) Between() bool { return s.state == scanBody && s.np == 0 }

// Done reports whether the closing quote was read.
func (s *StringScan) Done() bool { return s.state == scanDone }
