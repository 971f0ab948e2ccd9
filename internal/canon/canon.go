// Package canon gives the names and URIs a guard matches (mcpv serve's
// --allow-*, --deny-*, a config entry's guard:) in the one form each
// stands for, so that a client cannot walk around a pattern by writing
// the same thing another way: URIs normalised as RFC 3986 normalises
// them, names folded as a lenient server might fold them. What cannot be
// normalised without guessing how the server reads it (an encoded slash,
// a ".." left over, a look-alike of a delimiter, a NUL) is refused. Show
// (show.go) quotes a text the other side wrote so that what would hide in
// it on a terminal is seen. LowerASCII is the lower case to search for
// an ASCII word in, where the index found is used on the text.
package canon

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// AmbiguousError is a name or URI refused because it may mean more than
// one thing.
type AmbiguousError struct {
	What   string // as given
	Reason string
}

func (e *AmbiguousError) Error() string { return fmt.Sprintf("%q is ambiguous: %s", e.What, e.Reason) }

func ambiguous(what, format string, args ...any) error {
	return &AmbiguousError{What: what, Reason: fmt.Sprintf(format, args...)}
}

// Name checks a tool's or a prompt's name: one that holds a control
// character (NUL above all, which a server in C ends the name at), an
// invisible format character, white space at either end or white space
// other than the space is refused, as a server may drop or trim it and
// run a name the guard hides.
func Name(name string) error {
	if !utf8.ValidString(name) {
		return ambiguous(name, "it is not valid UTF-8")
	}
	if strings.TrimSpace(name) != name {
		return ambiguous(name, "it has white space at an end")
	}
	for _, r := range name {
		if what := odd(r); what != "" {
			return ambiguous(name, "it holds %s %U", what, r)
		}
	}
	return nil
}

// odd names what r is when a server may drop it, stop at it or trim it:
// a control character, an invisible one, white space other than the
// space; "" for any other.
func odd(r rune) string {
	switch {
	case unicode.IsControl(r):
		return "the control character"
	case unicode.Is(unicode.Cf, r):
		return "the invisible character"
	case unicode.IsSpace(r) && r != ' ':
		return "the white space"
	}
	return ""
}

// Fold is a name as a lenient server might read it: its compatibility
// form (full-width and other look-alike letters as the letters they
// look like, NFKC) in lower case. A deny pattern matches a name when it
// matches its fold too; an allow pattern matches the name as sent.
func Fold(name string) string {
	// NFKC again after the lower case: a lower-case letter may compose
	// with a mark its capital did not (T̈ stays two characters, ẗ is one).
	return norm.NFKC.String(strings.ToLower(norm.NFKC.String(name)))
}

// LowerASCII is text with its ASCII letters in lower case and every other
// byte as it was: the same length, so that an index into it is one into
// text. Where what is looked for is ASCII, it is the lower case to search
// in: strings.ToLower changes the length of some letters (Ⱥ grows from
// two bytes to three, the Kelvin sign shrinks from three to one).
func LowerASCII(text string) string {
	b := []byte(text)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
