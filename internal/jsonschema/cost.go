package jsonschema

import (
	"context"
	"fmt"
)

// Bounding the cost of a validation.
//
// A validation first runs plainly, as long as it applies no more schemas
// to values than 8 per subschema per value (and a thousand more): what a
// schema that reaches no subschema twice at one place in the value needs.
// Past that, it starts again, keeping verdicts. Most validations never get
// there, and keep nothing: a 100 MB result checked against a schema with
// a shared definition holds no verdict per item.
//
// A schema can apply the same subschema to the same value many times:
// every $ref, $dynamicRef and $recursiveRef to one definition, and every
// level of a chain of anyOf, allOf, oneOf or not whose branches refer to
// the level below. Forty such levels of two references each are 2 KB of
// schema and 2^40 paths. So the verdict of each subschema with children
// (and of each reference target) on each value is kept for the rest of the
// validation, both passes: the first time costs the walk, every later time
// one lookup. The number of walks is then at most the number of subschemas
// times the number of values, whatever the shape of the schema.
//
// One verdict cannot be kept: one reached through a reference that leads
// back, without moving into the value, to a subschema still being
// checked. There the reference fails as a loop (see follow), and so the
// verdict depends on which subschemas were being checked, not on the
// subschema and the value alone. Such verdicts are computed again each
// time; a schema built to make that exponential runs into redoBudget, and
// the validation ends with a *CostError rather than running on. So does
// any validation past 16 steps per byte of schema per byte of value, a
// backstop far above what the memo allows an honest schema to cost.
//
// The dynamic scope decides $recursiveRef and $dynamicRef: in a schema
// that uses them, a verdict is kept per scope signature (see enter), the
// resources of the scope that can change where those references go.

// CostError ends a validation that would take too long: a schema whose
// checks loop back on themselves in exponentially many ways, checked
// again and again.
type CostError struct {
	Steps int64 // the steps taken before giving up
}

func (e *CostError) Error() string {
	return fmt.Sprintf("checking the value against the schema would take more than %d steps", e.Steps)
}

const (
	// redoBudget is how many steps may be spent checking again verdicts
	// that could not be kept (about 0.1 s).
	redoBudget = 1 << 20
	// ctxEvery is how many steps pass between looks at the context.
	ctxEvery = 1 << 10
)

// run is the state that the two passes of one validation share.
type run struct {
	ctx    context.Context
	steps  int64
	calls  int64 // schemas applied to values
	plain  int64 // without keeping verdicts: the calls allowed, 0 for no limit
	redo   int64 // steps taken inside a check done again
	budget int64 // all the steps this validation may take
	look   int64 // the step count at which to look at the context next
	stop   error // errKeep, a *CostError, or the context's cause: the run ends
	keep   bool  // verdicts are kept
	memo   map[memoKey]*verdict
	sigs   map[sigKey]int // scope signatures, interned
}

// errKeep ends a run that does not keep verdicts and has applied more
// schemas to values than a schema with no subschema reached twice can:
// the validation starts again, keeping them.
const errKeep = keepError("keep verdicts")

type keepError string

func (e keepError) Error() string { return string(e) }

type memoKey struct {
	n   *node
	v   *value
	sig int
}

// verdict is a kept verdict, or the mark of one that could not be kept.
type verdict struct {
	ok    bool
	kept  bool   // false: it depended on the subschemas being checked
	marks []bool // with unevaluated*: the members or items evaluated
}

type sigKey struct {
	parent int
	res    *resource
}

// newRun starts a validation: keeping verdicts or not, for a schema of
// nodes subschemas in schemaSize bytes and a value of values values in
// valueSize bytes.
func newRun(ctx context.Context, keep bool, nodes, values, schemaSize, valueSize int) *run {
	r := &run{ctx: ctx, keep: keep, budget: redoBudget + product(16, schemaSize, valueSize)}
	if !keep {
		r.plain = 1024 + product(8, nodes, values)
	}
	return r
}

// product is k*a*b, or a very large number when that overflows.
func product(k, a, b int) int64 {
	if a > 0 && b > 0 && int64(a) > (1<<60)/int64(k)/int64(b) {
		return 1 << 60
	}
	return int64(k) * int64(a) * int64(b)
}

// step counts the steps of checking one schema (one, and one for each
// member of its enum), and says whether the run must stop.
func (r *run) step(n *node, redoing bool) bool {
	if r.stop != nil {
		return true
	}
	cost := int64(1)
	if n.enum != nil {
		cost += int64(len(n.enum.arr))
	}
	r.steps += cost
	r.calls++
	if redoing {
		r.redo += cost
	}
	switch {
	case r.plain > 0 && r.calls > r.plain:
		r.stop = errKeep
	case r.redo > redoBudget || r.steps > r.budget:
		r.stop = &CostError{Steps: r.steps}
	case r.steps >= r.look:
		r.look = r.steps + ctxEvery
		if r.ctx.Err() != nil {
			r.stop = context.Cause(r.ctx)
		}
	}
	return r.stop != nil
}

// validate checks v against n as check does, keeping the verdict of a
// subschema worth keeping and taking a kept one.
func (vd *validator) validate(n *node, v *value, ev *evaluated, via string) *ValidationError {
	if vd.run.step(n, vd.redoing > 0) {
		return vd.fail("", func() string { return "stopped" })
	}
	if !vd.run.keep || !n.shared || n.empty || n.never {
		return vd.check(n, v, ev, via)
	}
	key := memoKey{n, v, vd.sig()}
	got := vd.run.memo[key]
	if got != nil && got.kept && (got.ok || vd.quiet) {
		if !got.ok {
			return vd.fail("", nil)
		}
		ev.merge(&evaluated{marks: got.marks})
		return nil
	}
	if got != nil && !got.kept {
		vd.redoing++
		defer func() { vd.redoing-- }()
	}
	// The verdict can be kept when no loop met on the way reached back to
	// a reference followed before this check began.
	outer, low := len(vd.refs), vd.loopLow
	vd.loopLow = outer
	var mine *evaluated // what n evaluates, whether or not ev wants it
	if vd.tracked {
		mine = newEvaluated(v)
	}
	err := vd.check(n, v, mine, via)
	pure := vd.loopLow >= outer && vd.run.stop == nil
	vd.loopLow = min(low, vd.loopLow)
	if err == nil {
		ev.merge(mine)
	}
	switch {
	case got != nil:
	case pure:
		vd.keep(key, &verdict{ok: err == nil, kept: true, marks: marksOf(mine)})
	default:
		vd.keep(key, &verdict{})
	}
	return err
}

func (vd *validator) keep(k memoKey, v *verdict) {
	if vd.run.memo == nil {
		vd.run.memo = map[memoKey]*verdict{}
	}
	vd.run.memo[k] = v
}

func marksOf(e *evaluated) []bool {
	if e == nil {
		return nil
	}
	return e.marks
}

// loopAt notes that a loop reached back to the reference followed at
// index i of refs.
func (vd *validator) loopAt(i int) {
	vd.loopLow = min(vd.loopLow, i)
}

// sig is the signature of the dynamic scope: 0 in a schema with no
// $recursiveRef or $dynamicRef to resolve through it.
func (vd *validator) sig() int {
	if !vd.dynamic || len(vd.sigs) == 0 {
		return 0
	}
	return vd.sigs[len(vd.sigs)-1]
}

// enter pushes the resource r onto the dynamic scope, and its signature:
// the same as before unless r can redirect a dynamic reference and is not
// in the scope yet (the outermost such resource wins).
func (vd *validator) enter(r *resource) {
	vd.scope = append(vd.scope, r)
	if !vd.dynamic {
		return
	}
	parent := vd.sig()
	if !r.recursiveAnchor && len(r.dynamic) == 0 || vd.inScope(r) {
		vd.sigs = append(vd.sigs, parent)
		return
	}
	if vd.run.sigs == nil {
		vd.run.sigs = map[sigKey]int{}
	}
	k := sigKey{parent, r}
	id, ok := vd.run.sigs[k]
	if !ok {
		id = len(vd.run.sigs) + 1
		vd.run.sigs[k] = id
	}
	vd.sigs = append(vd.sigs, id)
}

func (vd *validator) inScope(r *resource) bool {
	for _, s := range vd.scope[:len(vd.scope)-1] {
		if s == r {
			return true
		}
	}
	return false
}

func (vd *validator) leave() {
	vd.scope = vd.scope[:len(vd.scope)-1]
	if vd.dynamic {
		vd.sigs = vd.sigs[:len(vd.sigs)-1]
	}
}

// markShared marks the subschemas whose verdicts are worth keeping: those
// with subschemas of their own, and the targets of references.
func markShared(nodes map[*value]*node, resources []*resource) {
	target := func(t *node) {
		if t != nil {
			t.shared = true
		}
	}
	for _, n := range nodes {
		target(n.ref)
		target(n.recursiveRef)
		target(n.dynamicRef)
		if n.ref != nil || n.recursiveRef != nil || n.dynamicRef != nil || n.not != nil || n.ifSchema != nil ||
			len(n.allOf)+len(n.anyOf)+len(n.oneOf)+len(n.prefixItems)+len(n.properties)+len(n.patternProperties)+
				len(n.dependentSchemas)+len(n.dependencies) > 0 ||
			n.items != nil || n.contains != nil || n.additionalProperties != nil || n.propertyNames != nil ||
			n.thenSchema != nil || n.elseSchema != nil || n.unevaluatedItems != nil || n.unevaluatedProperties != nil {
			n.shared = true
		}
	}
	for _, r := range resources {
		target(r.root)
		for _, d := range r.dynamic {
			target(d)
		}
	}
}
