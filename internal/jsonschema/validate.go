package jsonschema

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Validate checks the JSON value instance against the schema: nil, a
// *ValidationError for the first violation, or a *SyntaxError when
// instance is not JSON.
//
// The first violation is the one met first when the keywords of a schema
// are checked in this order: type, const, enum, format, $ref; then the
// keywords of the value's type (for objects min/maxProperties, required,
// dependencies, then each member in the value's order against properties,
// patternProperties and additionalProperties, then propertyNames and the
// dependent keywords; for arrays min/maxItems, uniqueItems, then each item,
// then contains); then $recursiveRef, $dynamicRef, not, allOf, anyOf,
// oneOf, if/then/else, and last the unevaluated keywords. A violation
// inside allOf, anyOf or oneOf is that of the first subschema that fails.
//
// Its cost is bounded: see CostError.
func (s *Schema) Validate(instance []byte) error {
	return s.ValidateContext(context.Background(), instance)
}

// ValidateContext is Validate, ending early with the cause of ctx when ctx
// ends, or with a *CostError when the check would take too long.
func (s *Schema) ValidateContext(ctx context.Context, instance []byte) error {
	v, err := parse(instance)
	if err != nil {
		return err
	}
	return s.run(newRun(ctx, s.nodes), &v)
}

// run validates v in run r.
func (s *Schema) run(r *run, v *value) error {
	// Most values are valid: check quietly, building no messages, and
	// only for an invalid one check again to say where.
	vd := s.validator(r, true)
	if vd.validate(s.root, v, nil, "") == nil || r.stop != nil {
		return r.stop
	}
	vd = s.validator(r, false)
	if e := vd.validate(s.root, v, nil, ""); e != nil && r.stop == nil {
		return e
	}
	return r.stop
}

func (s *Schema) validator(r *run, quiet bool) validator {
	return validator{quiet: quiet, tracked: s.tracked, dynamic: s.dynamic, run: r, loopLow: math.MaxInt}
}

// validator is the state of one validation.
type validator struct {
	path    []token     // where in the value
	scope   []*resource // the dynamic scope, outermost first
	refs    []followed  // references followed, to stop a cycle
	quiet   bool        // only the verdict matters, not the message
	tracked bool        // annotations are collected for unevaluated*
	failed  *ValidationError
	dynamic bool  // the schema has dynamic references: verdicts are kept per scope
	sigs    []int // the scope's signatures, beside scope
	run     *run
	redoing int // checks being done again, whose verdicts could not be kept
	loopLow int // the lowest index in refs a loop has reached back to
}

// token is one step of a JSON pointer: a member name, or an index when
// index >= 0.
type token struct {
	name  string
	index int
}

type followed struct {
	n     *node
	depth int
}

// evaluated records which members or items of one value the schemas
// applied to it have evaluated (successfully), for unevaluatedProperties
// and unevaluatedItems.
type evaluated struct {
	marks []bool // by member or item index
}

func newEvaluated(v *value) *evaluated {
	switch v.kind {
	case kindObject:
		return &evaluated{marks: make([]bool, len(v.obj))}
	case kindArray:
		return &evaluated{marks: make([]bool, len(v.arr))}
	}
	return nil
}

func (e *evaluated) mark(i int) {
	if e != nil {
		e.marks[i] = true
	}
}

func (e *evaluated) markFrom(i int) {
	if e != nil {
		for ; i < len(e.marks); i++ {
			e.marks[i] = true
		}
	}
}

func (e *evaluated) merge(o *evaluated) {
	if e != nil && o != nil {
		for i, m := range o.marks {
			if m {
				e.marks[i] = true
			}
		}
	}
}

// pointer is the JSON pointer of the current place in the value.
func (vd *validator) pointer() string {
	var b strings.Builder
	for _, t := range vd.path {
		b.WriteByte('/')
		if t.index >= 0 {
			b.WriteString(strconv.Itoa(t.index))
		} else {
			b.WriteString(escapeToken(t.name))
		}
	}
	return b.String()
}

// fail returns a violation here; in quiet mode one shared value, with no
// message built.
func (vd *validator) fail(keyword string, message func() string) *ValidationError {
	if vd.quiet {
		if vd.failed == nil {
			vd.failed = &ValidationError{}
		}
		return vd.failed
	}
	return &ValidationError{Pointer: vd.pointer(), Keyword: keyword, Message: message()}
}

func (vd *validator) failf(keyword, format string, args ...any) *ValidationError {
	return vd.fail(keyword, func() string { return fmt.Sprintf(format, args...) })
}

// quietly runs fn with messages off.
func (vd *validator) quietly(fn func() *ValidationError) bool {
	was := vd.quiet
	vd.quiet = true
	err := fn()
	vd.quiet = was
	return err == nil
}

// check checks v against n. ev, when not nil, receives the members or
// items n evaluates; via is the keyword that applied n, for a false
// schema's violation.
func (vd *validator) check(n *node, v *value, ev *evaluated, via string) *ValidationError {
	if n.empty {
		return nil
	}
	if n.never {
		if via == "" {
			return vd.failf("false", "the schema allows no value")
		}
		return vd.failf(via, "not allowed")
	}
	if len(vd.scope) == 0 || vd.scope[len(vd.scope)-1] != n.res {
		vd.enter(n.res)
		defer vd.leave()
	}
	if n.refOnly {
		return vd.follow(n.ref, v, ev, "$ref")
	}
	own := ev
	if vd.tracked && (n.unevaluatedProperties != nil || n.unevaluatedItems != nil) {
		own = newEvaluated(v)
	}
	if err := vd.assertions(n, v); err != nil {
		return err
	}
	if n.ref != nil {
		if err := vd.follow(n.ref, v, own, "$ref"); err != nil {
			return err
		}
	}
	var err *ValidationError
	switch v.kind {
	case kindObject:
		err = vd.object(n, v, own)
	case kindArray:
		err = vd.array(n, v, own)
	case kindString:
		err = vd.string(n, v)
	case kindNumber:
		err = vd.number(n, v)
	}
	if err != nil {
		return err
	}
	if err := vd.applicators(n, v, own); err != nil {
		return err
	}
	if own != ev {
		if err := vd.unevaluated(n, v, own); err != nil {
			return err
		}
		ev.merge(own)
	}
	return nil
}

// follow validates v against the target of a reference, refusing to follow
// the same reference again without moving into the value: that would
// never end.
func (vd *validator) follow(target *node, v *value, ev *evaluated, keyword string) *ValidationError {
	depth := len(vd.path)
	for i := len(vd.refs) - 1; i >= 0 && vd.refs[i].depth == depth; i-- {
		if vd.refs[i].n == target {
			vd.loopLow = min(vd.loopLow, i) // a loop reached back to the reference followed at i
			return vd.failf(keyword, "the reference to %s leads back to itself without moving into the value", pointerOrRoot(target.ptr.String()))
		}
	}
	vd.refs = append(vd.refs, followed{target, depth})
	err := vd.validate(target, v, ev, keyword)
	vd.refs = vd.refs[:len(vd.refs)-1]
	return err
}

// at validates a member or an item of the current value.
func (vd *validator) at(n *node, v *value, t token, via string) *ValidationError {
	if n.empty {
		return nil
	}
	vd.path = append(vd.path, t)
	err := vd.validate(n, v, nil, via)
	vd.path = vd.path[:len(vd.path)-1]
	return err
}

// assertions checks the keywords that apply to any value.
func (vd *validator) assertions(n *node, v *value) *ValidationError {
	if n.types != 0 && !n.types.has(v) {
		return vd.fail("type", func() string {
			return fmt.Sprintf("got %s, want %s", v.typeName(), strings.Join(n.typeNames, " or "))
		})
	}
	if n.constVal != nil && !equal(v, n.constVal) {
		return vd.fail("const", func() string {
			if n.constVal.kind == kindArray || n.constVal.kind == kindObject {
				return "value differs from the constant"
			}
			return "value must be " + display(n.constVal)
		})
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum.arr, func(e value) bool { return equal(v, &e) }) {
		return vd.fail("enum", func() string { return enumMessage(n.enum.arr) })
	}
	if n.format != nil && v.kind == kindString {
		if err := n.format(v.str); err != nil {
			return vd.fail("format", func() string {
				return fmt.Sprintf("%s is not valid %s: %v", quote(v.str), n.formatStr, err)
			})
		}
	}
	return nil
}

func enumMessage(values []value) string {
	list := make([]string, len(values))
	for i := range values {
		if values[i].kind == kindArray || values[i].kind == kindObject {
			return "value is not one of those listed"
		}
		list[i] = display(&values[i])
	}
	if len(list) == 1 {
		return "value must be " + list[0]
	}
	return "value must be one of " + strings.Join(list, ", ")
}

// has reports whether v is of one of the types; an integer is a number
// with no fraction, 1.0 included.
func (t typeSet) has(v *value) bool {
	switch v.kind {
	case kindNull:
		return t&typeNull != 0
	case kindTrue, kindFalse:
		return t&typeBoolean != 0
	case kindString:
		return t&typeString != 0
	case kindArray:
		return t&typeArray != 0
	case kindObject:
		return t&typeObject != 0
	}
	if t&typeNumber != 0 {
		return true
	}
	if t&typeInteger == 0 || !strings.ContainsAny(v.str, ".eE") {
		return t&typeInteger != 0
	}
	d, _ := parseDecimal(v.str)
	return d.isInt()
}

func (vd *validator) string(n *node, v *value) *ValidationError {
	if n.minLength >= 0 || n.maxLength >= 0 {
		count := utf8.RuneCountInString(v.str)
		if n.minLength >= 0 && count < n.minLength {
			return vd.failf("minLength", "got %d characters, want at least %d", count, n.minLength)
		}
		if n.maxLength >= 0 && count > n.maxLength {
			return vd.failf("maxLength", "got %d characters, want at most %d", count, n.maxLength)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(v.str) {
		return vd.failf("pattern", "%s does not match pattern %s", quote(v.str), quote(n.pattern.String()))
	}
	return nil
}

func (vd *validator) number(n *node, v *value) *ValidationError {
	if n.minimum == nil && n.maximum == nil && n.exclusiveMinimum == nil && n.exclusiveMaximum == nil && n.multipleOf == nil {
		return nil
	}
	d, _ := parseDecimal(v.str)
	switch {
	case n.minimum != nil && d.cmp(*n.minimum) < 0:
		return vd.failf("minimum", "got %s, want at least %s", d.plain(), n.minimum.plain())
	case n.maximum != nil && d.cmp(*n.maximum) > 0:
		return vd.failf("maximum", "got %s, want at most %s", d.plain(), n.maximum.plain())
	case n.exclusiveMinimum != nil && d.cmp(*n.exclusiveMinimum) <= 0:
		return vd.failf("exclusiveMinimum", "got %s, want more than %s", d.plain(), n.exclusiveMinimum.plain())
	case n.exclusiveMaximum != nil && d.cmp(*n.exclusiveMaximum) >= 0:
		return vd.failf("exclusiveMaximum", "got %s, want less than %s", d.plain(), n.exclusiveMaximum.plain())
	case n.multipleOf != nil && !d.multipleOf(*n.multipleOf):
		return vd.failf("multipleOf", "got %s, want a multiple of %s", d.plain(), n.multipleOf.plain())
	}
	return nil
}
