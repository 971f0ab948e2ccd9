package audit

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/redact"
)

// encodedRules decodes base64 and hex blocks, and a text that speaks of
// ROT13, and reads what they say: an order hidden so.
func encodedRules(text string, f finder) []Finding {
	var out []Finding
	found := func(decoded string, s, e int, code string) {
		quiet := func(rule string, sev Severity, msg string, s, e int) Finding { return Finding{Rule: rule} }
		inner := append(phraseRules(decoded, quiet), sensitiveFiles(decoded, quiet)...)
		inner = append(inner, orderRules(field{text: decoded, role: roleProse}, newView(decoded), quiet)...)
		inner = slices.DeleteFunc(inner, func(fd Finding) bool { return fd.Rule == RuleEncoded })
		if len(inner) == 0 {
			return
		}
		fd := f(RuleEncoded, High, fmt.Sprintf("hides text in %s that the %s rule finds", code, inner[0].Rule), s, e)
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
	return out
}

// percentBlocks, base32Blocks and spacedBlocks find text in those
// encodings: eight or more percent-escapes in a row; 32 or more base32
// letters; twelve or more characters each followed by a space.
var (
	percentBlocks = &lazy.Regexp{Pattern: `(?:%[0-9A-Fa-f]{2}){8,}`}
	base32Blocks  = &lazy.Regexp{Pattern: `\b[A-Z2-7]{32,}={0,6}`}
	spacedBlocks  = &lazy.Regexp{Pattern: `(?:\S {1,2}){12,}\S`}
)

// spacedRun is the length of the longest run of characters each followed
// by one or two spaces: spacedBlocks is worth running past twelve.
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
		case "the", "and", "to", "of", "from", "file", "that", "this", "in", "it":
			forward++
		case "eht", "dna", "ot", "fo", "morf", "elif", "taht", "siht", "ni", "ti":
			back++
		case "a":
			forward++
			back++
		}
	}
	return back >= 4 && back > 2*forward
}

// reverse is s read from its end.
func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// hexBlocks are the first n runs of 40 or more hex digits, of even length.
func hexBlocks(text string, n int) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(text) && len(out) < n; i++ {
		if i < len(text) && (text[i] >= '0' && text[i] <= '9' || text[i] >= 'a' && text[i] <= 'f' || text[i] >= 'A' && text[i] <= 'F') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= 40 {
			end := i - (i-start)%2
			out = append(out, [2]int{start, end})
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
	var out [][2]int
	start := -1
	for i := 0; i <= len(text) && len(out) < n; i++ {
		if i < len(text) && isBase64(text[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= minBase64 {
			end := i
			for end < len(text) && end < i+2 && text[end] == '=' {
				end++
			}
			out = append(out, [2]int{start, end})
		}
		start = -1
	}
	return out
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
}

// printable reports bytes that are mostly text: UTF-8, with few controls.
func printable(b []byte) bool {
	if len(b) < 12 || !utf8.Valid(b) {
		return false
	}
	bad := 0
	for _, r := range string(b) {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			bad++
		}
	}
	return bad == 0
}
