package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/safetext"
)

const (
	cutToken   = "ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5f6G7h8" // 40 bytes
	splitToken = "SecretTokenValue1234abcd"                 // 24: a piece is 12 or more
)

// A message clipped inside a secret shows none of it, wherever the clip
// falls and whichever helper clips: the beginning left before the cut
// mark is masked. (Before, 39 of 40 bytes showed.)
func TestMaskClippedSecret(t *testing.T) {
	s := NewScrubber(nil)
	s.Add(cutToken)
	clips := map[string]func(string) string{
		"Clip":  func(m string) string { return safetext.Clip(m, 1024) },
		"Runes": func(m string) string { return safetext.Runes(m, 300) },
		"%q":    func(m string) string { return fmt.Sprintf("%q… (%d more bytes)", m[:200], len(m)-200) },
	}
	for name, clip := range clips {
		for pad := 150; pad < 1030; pad++ {
			msg := "server error -1: " + strings.Repeat("x", pad) + cutToken + strings.Repeat("y", 3000)
			if got := string(s.Mask([]byte(clip(msg)))); strings.Contains(got, cutToken[:MinLength]) {
				t.Fatalf("%s, the token %d bytes in: %q shows", name, pad, got[max(0, strings.Index(got, "ghp_")-5):])
			}
		}
	}
}

// A secret sent in two messages (two log lines, two progress messages)
// is masked in both: the beginning that ends one and the end that
// begins the other, each half the secret or more, where the text breaks
// off. Shorter pieces, and pieces that run on into a word, are honest
// text.
func TestMaskSecretInPieces(t *testing.T) {
	checkMask(t, []string{splitToken, cutToken}, map[string]string{
		`{"data":"part one SecretTokenV"}`:     `{"data":"part one ***"}`,
		`{"data":"alue1234abcd part two"}`:     `{"data":"*** part two"}`,
		"server[error]: part one SecretTokenV": "server[error]: part one ***",
		"SecretTokenVal\nValue1234abcd":        "***\n***",
		`x "ghp_A1b2C3"… (9 more bytes)`:       `x "***"… (9 more bytes)`,
		// honest text
		"SecretTokenVault, Xalue1234abcd":     "SecretTokenVault, Xalue1234abcd",
		`{"data":"SecretToken and 1234abcd"}`: `{"data":"SecretToken and 1234abcd"}`,
		"ghp… and ghp_A1b2 alone":             "ghp… and ghp_A1b2 alone",
	})
}

// On a stream, a piece is masked when what follows it breaks it off,
// in this write or the next, or nothing follows (Flush); not when it
// runs on into a word, in the write before or the next.
func TestWriterMasksPieces(t *testing.T) {
	var b strings.Builder
	s := NewScrubber(&b)
	s.Add(splitToken)
	for _, part := range []string{"one SecretTokenV", "\ntwo alue1234abcd 3\n", "xx", "alue1234abcd SecretTokenVa", "lid\nend SecretTokenVal"} {
		s.Write([]byte(part))
	}
	s.Flush()
	if got, want := b.String(), "one ***\ntwo *** 3\nxxalue1234abcd SecretTokenValid\nend ***"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
