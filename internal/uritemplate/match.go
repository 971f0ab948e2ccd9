package uritemplate

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
)

// Bounds of matching: a template of more variables than MaxVars is not
// matched against (Matchable says so), nor is a URI longer than MaxURI.
// A match takes time linear in the URI and in the size of the template's
// expression: at these bounds, the worst template against the longest
// URI takes tens of milliseconds (BenchmarkMatchWorst).
const (
	MaxVars = 64
	MaxURI  = 8 << 10
)

// The characters a value may hold unencoded (RFC 6570 section 1.5): the
// unreserved, and for + and # the reserved too; percent-encoded octets;
// and, as clients send IRIs too, any character beyond ASCII.
const (
	unreserved = `[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2}|[^\x00-\x7F]`
	reserved   = `[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2}|[^\x00-\x7F]`
	// a label's value, beside others: no dot, the separator of labels
	label = `[A-Za-z0-9\-_~]|%[0-9A-Fa-f]{2}|[^\x00-\x7F]`
)

// operator is how an expression expands (RFC 6570 appendix A): what
// comes before its first value and between values, whether values are
// named (name=value), and which characters they hold unencoded.
type operator struct {
	first, sep byte // 0: nothing
	named      bool
	reserved   bool
}

var operators = &lazy.Value[map[byte]operator]{New: func() map[byte]operator {
	return map[byte]operator{
		0:   {sep: ','},
		'+': {sep: ',', reserved: true},
		'.': {first: '.', sep: '.'},
		'/': {first: '/', sep: '/'},
		';': {first: ';', sep: ';', named: true},
		'?': {first: '?', sep: '&', named: true},
		'&': {first: '&', sep: '&', named: true},
		'#': {first: '#', sep: ',', reserved: true},
	}
}}

// matcher is a template as a regular expression, and which of its
// groups hold each variable's value.
type matcher struct {
	re   *regexp.Regexp
	vars []capture
}

// capture is where a variable is in the expression's groups: present
// (its name was there, for a named variable) and value; -1 for none.
type capture struct {
	v              variable
	op             operator
	present, value int
}

// Matchable says why t cannot be matched against (too many variables),
// or nil.
func (t *Template) Matchable() error {
	if n := t.count(); n > MaxVars {
		return fmt.Errorf("has %d variables: a URI is matched against templates of at most %d", n, MaxVars)
	}
	return nil
}

func (t *Template) count() int {
	n := 0
	for _, p := range t.parts {
		if p.exp != nil {
			n += len(p.exp.vars)
		}
	}
	return n
}

// Match reports whether uri is an expansion of t, and if so the values
// of its variables: a string, or for an exploded variable a list of
// strings (or an object, when each of its items is name=value),
// percent-decoded. A variable the URI leaves out is absent. Where the
// URI could be read more than one way (two variables side by side), the
// earlier variable takes the most it can.
func (t *Template) Match(uri string) (map[string]any, bool) {
	if len(uri) > MaxURI {
		return nil, false
	}
	t.once.Do(func() { t.matcher, _ = t.compile() })
	if t.matcher == nil {
		return nil, false
	}
	m := t.matcher.re.FindStringSubmatchIndex(uri)
	if m == nil {
		return nil, false
	}
	group := func(i int) (string, bool) {
		if i < 0 || m[2*i] < 0 {
			return "", false
		}
		return uri[m[2*i]:m[2*i+1]], true
	}
	out := map[string]any{}
	for _, c := range t.matcher.vars {
		if _, seen := out[c.v.name]; seen {
			continue // the first place a variable is named gives its value
		}
		raw, ok := group(c.value)
		if _, there := group(c.present); c.present >= 0 && there && !ok {
			raw, ok = "", true // ;name, with no value
		}
		if !ok {
			continue
		}
		if c.v.explode {
			out[c.v.name] = items(raw, c)
		} else {
			out[c.v.name] = decode(raw)
		}
	}
	return out, true
}

// compile makes the template's regular expression.
func (t *Template) compile() (*matcher, error) {
	if err := t.Matchable(); err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(`^`)
	m := &matcher{}
	group := 0
	next := func() int { group++; return group }
	for _, p := range t.parts {
		if p.exp == nil {
			b.WriteString(regexp.QuoteMeta(p.lit))
			continue
		}
		op := operators.Get()[p.exp.op]
		class := unreserved
		if op.reserved {
			class = reserved
		}
		for i, v := range p.exp.vars {
			lead := ""
			switch {
			case op.first != 0:
				lead = "[" + regexp.QuoteMeta(string(op.first)+string(op.sep)) + "]"
			case i > 0:
				lead = ",?" // the first value defined has no separator before it
			}
			c := capture{v: v, op: op, present: -1, value: -1}
			value := class
			switch {
			case len(p.exp.vars) == 1:
				value += "|," // a list's items, joined by commas
			case p.exp.op == '.':
				value = label // X{.x,y}: X.1024.768
			}
			switch {
			case v.explode && op.named:
				// name=a&name=b, or k=v&k2=v2: the whole run.
				c.value = next()
				pair := `(?:` + unreserved + `)+(?:=(?:` + class + `|,)*)?`
				fmt.Fprintf(&b, `(?:%s(%s(?:[%s]%s)*))?`, lead, pair, regexp.QuoteMeta(string(op.sep)), pair)
			case v.explode:
				c.value = next()
				fmt.Fprintf(&b, `(?:%s((?:%s|%s|=)*))?`, lead, class, regexp.QuoteMeta(string(op.sep)))
			case op.named:
				c.present = next()
				c.value = next()
				fmt.Fprintf(&b, `(%s%s(?:=((?:%s)*))?)?`, lead, regexp.QuoteMeta(v.name), value)
			default:
				c.value = next()
				fmt.Fprintf(&b, `(?:%s((?:%s)*))?`, lead, value)
			}
			m.vars = append(m.vars, c)
		}
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, errors.New("cannot be matched against: " + err.Error())
	}
	m.re = re
	return m, nil
}

// items reads an exploded variable's run: its items, separated by the
// operator's separator; for a named operator each is name=value, and a
// run whose names are not all the variable's is an object.
func items(raw string, c capture) any {
	sep := string(c.op.sep)
	if c.op.named {
		raw = strings.TrimLeft(raw, string(c.op.first)+sep)
	}
	pieces := strings.Split(raw, sep)
	if c.op.named {
		list := make([]any, 0, len(pieces))
		obj := map[string]any{}
		named := true
		for _, p := range pieces {
			k, v, _ := strings.Cut(p, "=")
			obj[decode(k)] = decode(v)
			list = append(list, decode(v))
			named = named && decode(k) == c.v.name
		}
		if named {
			return list
		}
		return obj
	}
	list := make([]any, 0, len(pieces))
	obj := map[string]any{}
	pairs := true
	for _, p := range pieces {
		list = append(list, decode(p))
		k, v, ok := strings.Cut(p, "=")
		pairs = pairs && ok
		obj[decode(k)] = decode(v)
	}
	if pairs && !c.op.reserved {
		return obj
	}
	return list
}

// decode is a value with its percent-encoded octets decoded; one that
// does not decode (a lone %) stays as it is.
func decode(s string) string {
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	return s
}
