package cost

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers split text into the pieces byte-pair encoding works
// on, as the regular expressions OpenAI publishes with each encoding
// split it (leftmost alternative first, each quantifier greedy and given
// back as a backtracking engine gives it back). They are written out
// rather than compiled, so that nothing is built at start-up and a piece
// costs time linear in its length.
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+

// valid is s with each byte that is not part of a UTF-8 sequence made
// U+FFFD, as a reader of runes reads it.
func valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+len(s)/2)
	for _, c := range s {
		b = utf8.AppendRune(b, c) // an invalid byte ranges as utf8.RuneError, width 1
	}
	return string(b)
}

// ascii is the classes of each ASCII character, a bit each (a constant,
// so that nothing is built at start-up).
const ascii = "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x24\x04\x04\x24\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x00\x00\x00\x00\x00\x00\x00\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x09\x00\x00\x00\x00\x00\x00\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x00\x00\x00\x00\x00"

const (
	letter = 1 << iota
	number
	space
	upper
	lower
	newline
)

// class reports c in the class bit of ascii, or, past ASCII, in what
// in reports.
func class(c rune, bit byte, in func(rune) bool) bool {
	if c < utf8.RuneSelf {
		return ascii[c]&bit != 0
	}
	return in(c)
}

func isLetter(c rune) bool { return class(c, letter, unicode.IsLetter) }
func isNumber(c rune) bool { return class(c, number, unicode.IsNumber) }
func isSpace(c rune) bool  { return class(c, space, unicode.IsSpace) }

func isNewline(c rune) bool { return c == '\r' || c == '\n' }

// isPrefix is [^\r\n\p{L}\p{N}].
func isPrefix(c rune) bool {
	if c < utf8.RuneSelf {
		return ascii[c]&(newline|letter|number) == 0
	}
	return !isLetter(c) && !isNumber(c)
}

// isOther is [^\s\p{L}\p{N}].
func isOther(c rune) bool {
	if c < utf8.RuneSelf {
		return ascii[c]&(space|letter|number) == 0
	}
	return !isSpace(c) && !isLetter(c) && !isNumber(c)
}

// isUpperish is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func isUpperish(c rune) bool { return class(c, upper, upperish) }
func upperish(c rune) bool {
	return unicode.In(c, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// isLowerish is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isLowerish(c rune) bool { return class(c, lower, lowerish) }
func lowerish(c rune) bool   { return unicode.In(c, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M) }

// at is the rune at byte i of s and its width; 0, 0 at the end.
func at(s string, i int) (rune, int) {
	if i >= len(s) {
		return 0, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// is says whether the rune at i is one in holds.
func is(s string, i int, in func(rune) bool) bool {
	c, n := at(s, i)
	return n > 0 && in(c)
}

// contraction is the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or 0.
// Case is folded as the regular expression folds it: 'ſ' is an s.
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' {
		return 0
	}
	next := func(j int) (rune, int) {
		c, n := at(s, j)
		switch {
		case c == 'ſ':
			return 's', n
		case 'A' <= c && c <= 'Z':
			return c + 'a' - 'A', n
		}
		return c, n
	}
	c, n := next(i + 1)
	switch c {
	case 's', 't', 'm', 'd':
		return 1 + n
	case 'r', 'v':
		if e, _ := next(i + 2); e == 'e' {
			return 3
		}
	case 'l':
		if l, _ := next(i + 2); l == 'l' {
			return 3
		}
	}
	return 0
}

// run is the end of the run of runes from i that in holds.
func run(s string, i int, in func(rune) bool) int {
	for {
		c, n := at(s, i)
		if n == 0 || !in(c) {
			return i
		}
		i += n
	}
}

// spaces matches \s*[\r\n]+, then \s+(?!\S), then \s+ at i, returning
// the end, or i when none matches.
func spaces(s string, i int) int {
	end := run(s, i, isSpace)
	if end == i {
		return i
	}
	for k := end; k > i; { // \s*[\r\n]+: up to the run's last newline
		c, n := utf8.DecodeLastRuneInString(s[:k])
		if isNewline(c) {
			return k
		}
		k -= n
	}
	_, last := utf8.DecodeLastRuneInString(s[:end])
	if end == len(s) || end-last == i { // \s+(?!\S) takes it all, or \s+ takes the one
		return end
	}
	return end - last // \s+(?!\S): all but the last, which goes with what follows
}

// numbers matches \p{N}{1,3} at i.
func numbers(s string, i int) int {
	for range 3 {
		c, n := at(s, i)
		if n == 0 || !isNumber(c) {
			break
		}
		i += n
	}
	return i
}

// others matches " ?[^\s\p{L}\p{N}]+" then a run of tail at i, or
// returns i.
func others(s string, i int, tail func(rune) bool) int {
	j := i
	if s[j] == ' ' && is(s, j+1, isOther) {
		j++
	}
	if !is(s, j, isOther) {
		return i
	}
	return run(s, run(s, j, isOther), tail)
}

// split calls piece with each piece of s, which at finds.
func split(s string, at func(string, int) int, piece func(string)) {
	s = valid(s)
	for i := 0; i < len(s); {
		end := at(s, i)
		if end == i { // nothing matches here: a search moves on, and leaves the rune out
			_, n := utf8.DecodeRuneInString(s[i:])
			i += n
			continue
		}
		piece(s[i:end])
		i = end
	}
}

// cl100kAt is the end of cl100k_base's piece at i.
func cl100kAt(s string, i int) int {
	if n := contraction(s, i); n > 0 {
		return i + n
	}
	c, n := at(s, i)
	if isPrefix(c) && is(s, i+n, isLetter) {
		return run(s, i+n, isLetter)
	}
	if isLetter(c) {
		return run(s, i, isLetter)
	}
	if isNumber(c) {
		return numbers(s, i)
	}
	if end := others(s, i, isNewline); end > i {
		return end
	}
	return spaces(s, i)
}

// o200kAt is the end of o200k_base's piece at i.
func o200kAt(s string, i int) int {
	c, n := at(s, i)
	// [^\r\n\p{L}\p{N}]?U*L+C? then [^\r\n\p{L}\p{N}]?U+L*C?, each first
	// with the prefix rune and then without.
	prefixed := isPrefix(c) && i+n < len(s)
	if prefixed {
		if end := lowerWord(s, i+n); end > 0 {
			return end
		}
	}
	if end := lowerWord(s, i); end > 0 {
		return end
	}
	if prefixed {
		if end := upperWord(s, i+n); end > 0 {
			return end
		}
	}
	if end := upperWord(s, i); end > 0 {
		return end
	}
	if isNumber(c) {
		return numbers(s, i)
	}
	if end := others(s, i, isNewlineOrSlash); end > i {
		return end
	}
	return spaces(s, i)
}

func isNewlineOrSlash(c rune) bool { return isNewline(c) || c == '/' }

// lowerWord matches U*L+C? at i, returning its end or 0. U* is greedy
// and gives back one rune at a time until L+ can start.
func lowerWord(s string, i int) int {
	j := run(s, i, isUpperish)
	for k := j; ; {
		if is(s, k, isLowerish) {
			end := run(s, k, isLowerish)
			return end + contraction(s, end)
		}
		if k == i {
			return 0
		}
		_, n := utf8.DecodeLastRuneInString(s[:k])
		k -= n
	}
}

// upperWord matches U+L*C? at i, returning its end or 0.
func upperWord(s string, i int) int {
	j := run(s, i, isUpperish)
	if j == i {
		return 0
	}
	end := run(s, j, isLowerish)
	return end + contraction(s, end)
}
