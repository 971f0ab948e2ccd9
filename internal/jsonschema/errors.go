package jsonschema

import (
	"cmp"
	"errors"
	"fmt"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/safetext"
)

// SchemaError is a schema that is not valid in its dialect: a keyword's
// value of the wrong type or out of range, a pattern that does not
// compile, a reference that resolves nowhere in the document.
type SchemaError struct {
	Pointer string // JSON pointer into the schema to the offending value, "" for the whole schema
	Keyword string // the keyword whose value is wrong, "" when it is the schema itself
	Message string
}

func (e *SchemaError) Error() string {
	where := cmp.Or(e.Pointer, "/")
	if e.Keyword == "" {
		return fmt.Sprintf("%s: %s", where, e.Message)
	}
	return fmt.Sprintf("%s: %s (%s)", where, e.Message, e.Keyword)
}

// pointer is a JSON pointer into the schema, kept as a chain of tokens:
// written out only for an error, so that deep schemas do not cost the
// square of their depth in pointer text. nil is the whole document.
type pointer struct {
	parent *pointer
	token  string // as the name is, not escaped
}

func (p *pointer) child(token string) *pointer { return &pointer{p, token} }

func (p *pointer) String() string {
	var tokens []string
	for ; p != nil; p = p.parent {
		tokens = append(tokens, "/"+escapeToken(p.token))
	}
	slices.Reverse(tokens)
	return strings.Join(tokens, "")
}

// plus writes p with more tokens.
func (p *pointer) plus(tokens ...string) string {
	s := p.String()
	for _, t := range tokens {
		s += "/" + escapeToken(t)
	}
	return s
}

// ValidationError is the first place where a value breaks its schema.
type ValidationError struct {
	Pointer string // JSON pointer into the value, "" for the whole value
	Keyword string // the keyword broken, e.g. "type", "required", "maximum"
	Message string // what is wrong, without naming the keyword
	// Missing lists the names absent, for "required" (and "dependentRequired",
	// "dependencies").
	Missing []string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("%s: %s (%s)", cmp.Or(e.Pointer, "/"), e.Message, e.Keyword)
}

// quote writes s in single quotes, escaped as Go would.
func quote(s string) string {
	// A message is one line a user reads: a long string (a value, a
	// server's 1 MB pattern) is shown in part, with the count of the rest.
	s, more := safetext.Cut(s, maxQuoted)
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, "'", `\'`) + "'" + more
}

// maxQuoted bounds the bytes of one string a message quotes.
const maxQuoted = 200

// regexpError is a pattern's compile error, quoting no more of the
// pattern than a message quotes of any string.
func regexpError(err error) string {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	expr, more := safetext.Cut(se.Expr, maxQuoted)
	return "error parsing regexp: " + string(se.Code) + ": `" + expr + "`" + more
}

func quoteAll(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = quote(n)
	}
	return strings.Join(quoted, ", ")
}

// display writes a value from a schema in a message: a string quoted, a
// number or literal as written, "value" for an array or object.
func display(v *value) string {
	switch v.kind {
	case kindString:
		return quote(v.str)
	case kindNumber:
		return v.str
	case kindArray, kindObject:
		return "value"
	}
	return [...]string{kindNull: "null", kindFalse: "false", kindTrue: "true"}[v.kind]
}
