// Package uritemplate reads RFC 6570 URI templates (levels 1 to 4, as
// MCP's resource templates use them) and tells whether a URI is an
// expansion of one, and of which values.
//
// Parse holds a template to the grammar of RFC 6570 section 2: literals
// without the characters a URI cannot hold (nor an unencoded %; an
// apostrophe is taken, as the RFC's errata and the JSON Schema test
// suite take it),
// expressions of an optional operator (section 2.2; the operators the RFC
// reserves are refused) and variables, each with a prefix length of 1 to
// 9999 or an explode. Match reads a URI back into the variables' values by
// the expansion rules of section 3.2, through a regular expression of Go's
// regexp, which runs in time linear in the URI whatever the template: a
// template of adjacent expressions ({a}{b}{c}...) that would send a
// backtracking matcher into exponential time costs nothing more here.
package uritemplate

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/safetext"
)

// Template is a parsed URI template.
type Template struct {
	text  string
	parts []part

	once    sync.Once // makes matcher
	matcher *matcher  // nil when the template is too large to match
}

// part is a literal (exp nil) or an expression.
type part struct {
	lit string
	exp *expression
}

type expression struct {
	op   byte // 0 for a simple string expansion, else one of +#./;?&
	vars []variable
}

type variable struct {
	name    string
	prefix  int // 0: none
	explode bool
}

// Error is how a template breaks the grammar: Msg says what, at which
// byte, as "has a { at byte 8 that is never closed".
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Parse reads a template, or says how it breaks RFC 6570's grammar.
func Parse(s string) (*Template, error) {
	if !utf8.ValidString(s) {
		return nil, &Error{0, "is not valid UTF-8"}
	}
	t := &Template{text: s}
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '}':
			return nil, &Error{i, fmt.Sprintf("has a } at byte %d with no { before it", i)}
		case '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, &Error{i, fmt.Sprintf("has a { at byte %d that is never closed", i)}
			}
			inside := s[i+1 : i+end]
			e, msg := parseExpression(inside)
			if msg != "" {
				return nil, &Error{i, fmt.Sprintf("has an expression {%s} that %s", quoteText(inside), msg)}
			}
			t.parts = append(t.parts, part{exp: e})
			i += end + 1
		default:
			j := i
			for j < len(s) && s[j] != '{' && s[j] != '}' {
				if msg := literalProblem(s, j); msg != "" {
					return nil, &Error{j, msg}
				}
				j++
			}
			t.parts = append(t.parts, part{lit: s[i:j]})
			i = j
		}
	}
	return t, nil
}

// literalProblem says what is wrong with the byte at i of a literal
// (RFC 6570 section 2.1), or "".
func literalProblem(s string, i int) string {
	c := s[i]
	switch {
	case c == '%':
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return fmt.Sprintf("has a %% at byte %d not followed by two hexadecimal digits", i)
		}
	case c < 0x21 || c == 0x7f || strings.IndexByte(`"<>\^`+"`|", c) >= 0:
		return fmt.Sprintf("holds %q outside an expression, which a template cannot", rune(c))
	}
	return ""
}

// parseExpression reads what is between an expression's braces: an
// operator, then variables, each with a prefix (:N) or explode (*)
// modifier (RFC 6570 section 2.2 to 2.4).
func parseExpression(e string) (*expression, string) {
	if e == "" {
		return nil, "is empty"
	}
	x := &expression{}
	switch c := e[0]; {
	case strings.IndexByte("=,!@|", c) >= 0:
		return nil, fmt.Sprintf("starts with %q, an operator RFC 6570 reserves", c)
	case strings.IndexByte("+#./;?&", c) >= 0:
		x.op, e = c, e[1:]
	}
	for spec := range strings.SplitSeq(e, ",") {
		name, mod := spec, ""
		if i := strings.IndexAny(spec, ":*"); i >= 0 {
			name, mod = spec[:i], spec[i:]
		}
		if msg := nameProblem(name); msg != "" {
			return nil, msg
		}
		v := variable{name: name}
		switch {
		case mod == "":
		case mod == "*":
			v.explode = true
		case mod[0] == ':':
			n := mod[1:]
			if n == "" || len(n) > 4 || n[0] == '0' || strings.Trim(n, "0123456789") != "" {
				return nil, fmt.Sprintf("has a prefix modifier %q that is not 1 to 9999", mod)
			}
			fmt.Sscan(n, &v.prefix)
		default:
			return nil, fmt.Sprintf("has a modifier %q that RFC 6570 does not have", mod)
		}
		x.vars = append(x.vars, v)
	}
	return x, ""
}

// nameProblem checks a variable's name: varchar *( ["."] varchar ), a
// varchar being a letter, a digit, _ or a percent-encoded octet.
func nameProblem(name string) string {
	if name == "" {
		return "has a variable without a name"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case c == '.' && i > 0 && i+1 < len(name) && name[i+1] != '.':
		case c == '%' && i+2 < len(name) && isHex(name[i+1]) && isHex(name[i+2]):
			i += 2
		default:
			return fmt.Sprintf("has a variable name %q with %q, which RFC 6570 does not allow", quoteText(name), c)
		}
	}
	return ""
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// quoteText is text of a template (a server's, a file's) made safe and
// short for a message.
func quoteText(s string) string { return safetext.Line(safetext.Clip(s, 100)) }

// String is the template as written.
func (t *Template) String() string { return t.text }

// Names are the template's variables, in order, each once.
func (t *Template) Names() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range t.parts {
		if p.exp == nil {
			continue
		}
		for _, v := range p.exp.vars {
			if !seen[v.name] {
				seen[v.name] = true
				out = append(out, v.name)
			}
		}
	}
	return out
}
