package rawjson

import (
	"testing"
	"unicode/utf8"
)

// StringScan, fed a literal in pieces of any size, finds what ScanString
// finds in it whole: the same end, the same verdict, and says whether its
// bytes are valid UTF-8, with an escape or a rune cut across two pieces.
func FuzzStringScan(f *testing.F) {
	for _, s := range []string{`"abc"x`, `"a\"b\\c\/\u00e9\n"`, `"中文 😀"`, "\"\xff\"", "\"\xe4\xb8\"", `"a\x"`, "\"a\nb\"", `"\u12"`, `"\ud83d\ude00"`, `x`, `"abc`, "\"\xe4\"\xb8\""} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, lit []byte, piece uint8) {
		end := -1
		if len(lit) > 0 && lit[0] == '"' {
			end, _, _ = ScanString(lit, 0)
		}
		var s StringScan
		got := -1
		for i := 0; i < len(lit); i += max(1, int(piece)) {
			p := lit[i:min(len(lit), i+max(1, int(piece)))]
			k, ok := s.Scan(p)
			if !ok {
				break
			}
			if s.Done() {
				got = i + k
				break
			}
		}
		if got != end {
			t.Fatalf("%q in pieces of %d: end %d, want %d", lit, piece, got, end)
		}
		if end > 0 && s.BadUTF8 == utf8.Valid(lit[:end]) {
			t.Fatalf("%q: bad UTF-8 %v", lit, s.BadUTF8)
		}
	})
}
