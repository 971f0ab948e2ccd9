package safetext

import (
	"bytes"
	"strings"
	"testing"
)

func TestLineAndText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, line, text string }{
		{"plain text, café", "plain text, café", "plain text, café"},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"\x1b[2J\x1b]0;title\x07", `\x1b[2J\x1b]0;title\x07`, `\x1b[2J\x1b]0;title\x07`},
		{"cr\roverwrite", `cr\roverwrite`, `cr\roverwrite`},
		{"c1 \u009b31m", `c1 \u009b31m`, `c1 \u009b31m`},
		{"bidi \u202eevil\u202c", `bidi \u202eevil\u202c`, `bidi \u202eevil\u202c`},
		{"isolate \u2066x\u2069 mark \u200f", `isolate \u2066x\u2069 mark \u200f`, `isolate \u2066x\u2069 mark \u200f`},
		{"bom \ufeff{}", `bom \ufeff{}`, `bom \ufeff{}`},
		{"del \x7f bad \xff", `del \x7f bad \xff`, `del \x7f bad \xff`},
		{"ls \u2028mcpv: ps \u2029", `ls \u2028mcpv: ps \u2029`, `ls \u2028mcpv: ps \u2029`},
	} {
		if got := Line(tt.in); got != tt.line {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := Text(tt.in); got != tt.text {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.text)
		}
		if got, want := Safe(tt.in), tt.line == tt.in; got != want {
			t.Errorf("Safe(%q) = %v, want %v", tt.in, got, want)
		}
	}
}

// Prose is a server's sentence on one line: whatever breaks a line, a
// line or paragraph separator too, is a space, and the rest is Line's.
func TestProse(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"one line":                 "one line",
		"a\nmcpv: b\r\nc\rd\te":    "a mcpv: b c d e",
		"a\u2028mcpv: b\u2029c":    "a mcpv: b c",
		"nel\u0085vt\vff\f\x1b[2J": `nel\u0085vt\x0bff\x0c\x1b[2J`,
	} {
		if got := Prose(in); got != want {
			t.Errorf("Prose(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, head, more string }{
		{"short", "short", ""},
		{"abcdefgh", "abcde", "… (3 more bytes)"},
		{"abcdé", "abcd", "… (2 more bytes)"}, // not inside a character
	} {
		if head, more := Cut(tt.in, 5); head != tt.head || more != tt.more {
			t.Errorf("Cut(%q, 5) = %q, %q; want %q, %q", tt.in, head, more, tt.head, tt.more)
		}
		if got := Clip(tt.in, 5); got != tt.head+tt.more {
			t.Errorf("Clip(%q, 5) = %q", tt.in, got)
		}
	}
}

func TestRunes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"", ""}, {"abc", "abc"}, {"ééé", "ééé"}, {"abcd", "abc…"}, {"éééé", "ééé…"}, {"a\xffbc", "a\xffb…"},
	} {
		if got := Runes(tt.in, 3); got != tt.want {
			t.Errorf("Runes(%q, 3) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Colours pass; every other escape is shown escaped, however the text is
// split between writes.
func TestWriter(t *testing.T) {
	t.Parallel()
	in := "\x1b[1;31mred\x1b[0m ok\r\nnext\x1b]52;c;ZXZpbA==\x07 \x1b[2J \u009b \u202e end\rx\xe2\x80"
	want := "\x1b[1;31mred\x1b[0m ok\r\nnext\\x1b]52;c;ZXZpbA==\\x07 \\x1b[2J \\u009b \\u202e end\\rx\\xe2\\x80"
	for split := 1; split <= len(in); split++ {
		var b bytes.Buffer
		w := NewWriter(&b)
		for i := 0; i < len(in); i += split {
			w.Write([]byte(in[i:min(i+split, len(in))]))
		}
		w.Flush()
		// Each write ends in a reset and the next puts the colours again:
		// on a terminal, one run of red.
		if got := strings.ReplaceAll(b.String(), "\x1b[0m\x1b[1;31m", ""); got != want || split == len(in) && b.String() != want {
			t.Fatalf("written in pieces of %d: %q, want %q", split, b.String(), want)
		}
	}
}

// A server's colours end with its write, so that mcpv's own line after it
// is neither coloured, blinking nor hidden (SGR 8), and come back with its
// next write; a server's own reset needs none of mcpv's.
func TestWriterLeavesNoColourBehind(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewWriter(&b)
	for _, step := range []struct{ in, want string }{
		{"starting\x1b[8m", "starting\x1b[8m\x1b[0m"},
		{"more\n", "\x1b[8mmore\n\x1b[0m"},
		{"\x1b[5;31m", "\x1b[8m\x1b[5;31m\x1b[0m"},
		{"\x1b[0mplain\n", "\x1b[8m\x1b[5;31m\x1b[0mplain\n"},
		{"\x1b[32mgreen\x1b[m\n", "\x1b[32mgreen\x1b[m\n"},
	} {
		b.Reset()
		w.Write([]byte(step.in))
		if b.String() != step.want {
			t.Fatalf("%q written as %q, want %q", step.in, b.String(), step.want)
		}
	}
	// What is kept of the colours is bounded, however many a server sends.
	w.Write([]byte(strings.Repeat("\x1b[31m", 10000)))
	b.Reset()
	if w.Write([]byte("x")); b.Len() > 4*maxSGR+16 {
		t.Fatalf("a colour put again as %d bytes", b.Len())
	}
}

// A word the bound falls in is quoted whole or not at all, when it began
// in the last quarter of the bound (up to 256 bytes): a secret cut in two
// is one the masker no longer knows.
func TestCutLeavesNoPartOfAWord(t *testing.T) {
	t.Parallel()
	secret := "ghp_" + strings.Repeat("Z9", 30)
	for _, lead := range []int{990, 980, 960, 999} {
		msg := strings.Repeat("w ", lead/2) + secret + " and more words after it"
		head, more := Cut(msg, 1000)
		if strings.Contains(head, "ghp_") || !strings.HasSuffix(more, " more bytes)") {
			t.Errorf("lead %d: Cut = %q…, %q; want the token left out whole", lead, head[len(head)-20:], more)
		}
		if len(head) < 1000-256 {
			t.Errorf("lead %d: %d bytes quoted, want the words before the token", lead, len(head))
		}
	}
	long := strings.Repeat("x", 2000) // a word longer than the reach: cut at the bound
	if head, _ := Cut(long, 1000); len(head) != 1000 {
		t.Errorf("a 2,000-byte word cut to %d bytes", len(head))
	}
}
