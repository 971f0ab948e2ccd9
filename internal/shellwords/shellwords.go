// Package shellwords splits a line into words as a POSIX shell quotes
// them, and quotes words so that they split back the same; nothing is
// expanded. Batch lines and the steps of test files are written so.
package shellwords

import (
	"fmt"
	"strings"
)

// Split splits a line the way a POSIX shell would, for quoting only:
// single quotes, double quotes (with \" \\ \$ \` escapes) and backslashes.
// Nothing is expanded.
func Split(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Quote is s as a shell word: as it is when it needs no quoting, else in
// single quotes, so that Split (or a POSIX shell) gives s back.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return SingleQuote(s)
}

// SingleQuote is s in single quotes, whatever it holds: a POSIX shell
// gives s back.
func SingleQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Join quotes each word, so that Split gives words back.
func Join(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = SingleQuote(w)
	}
	return strings.Join(quoted, " ")
}
