package jsonschema

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// Bounding the cost of a validation.
//
// A schema can apply the same subschema to the same value many times:
// every $ref, $dynamicRef and $recursiveRef to one definition, and every
// level of a chain of anyOf, allOf, oneOf or not whose branches refer to
// the level below. Forty such levels of two references each are 2 KB of
// schema and 2^40 paths. So the verdicts on a value that has been visited
// often are kept: each value counts the schemas applied to it, and past
// 2 per subschema of the schema (and 64 more: what the quiet and the
// telling pass of a schema that reaches no subschema twice at one place
// need), the verdict of each subschema with children (and of each
// reference target) on that value is kept for the rest of the validation,
// both passes: the first time costs the walk, every later time one lookup.
// The walks at one value are then at most that allowance plus the number
// of subschemas, whatever the shape of the schema; the count is the
// value's own, so one value visited exponentially often costs no other
// value its allowance. Most values are never visited that often, and keep
// nothing: a 100 MB result checked against a schema with a shared
// definition holds no verdict per item.
//
// The kept verdicts are bounded too, to maxKept bytes: a schema that makes
// every one of many values costly ends with a *CostError rather than
// holding gigabytes.
//
// One verdict cannot be kept: one reached through a reference that leads
// back, without moving into the value, to a subschema still being
// checked. There the reference fails as a loop (see follow), and so the
// verdict depends on which subschemas were being checked, not on the
// subschema and the value alone. Such verdicts are computed again each
// time; a schema built to make that exponential runs into redoBudget, and
// the validation ends with a *CostError rather than running on. So does
// any validation past maxSteps steps, a backstop far above what the memo
// allows an honest schema to cost on any value mcpv reads.
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
	// Said after what is not checked: "tool x's inputSchema is not
	// checked: checking a value against it would take more than N steps".
	return fmt.Sprintf("checking a value against it would take more than %d steps", e.Steps)
}

const (
	// redoBudget is how many steps may be spent checking again verdicts
	// that could not be kept (about 0.1 s).
	redoBudget = 1 << 20
	// maxSteps is how many steps one validation may take in all, whatever
	// the sizes of the schema and the value (a few seconds): an honest
	// schema takes about one step per subschema per value, and mcpv reads
	// no value of more than a few million values. An array of a million
	// items each checked against allOf of 1,000 references reaches it.
	maxSteps = 1 << 26
	// maxKept bounds the bytes of kept verdicts (keptBytes each, and their
	// marks).
	maxKept = 64 << 20
	// keptBytes is about what one kept verdict costs: its map entry, the
	// verdict and the allocations behind them.
	keptBytes = 112
	// ctxEvery is how many steps pass between looks at the context.
	ctxEvery = 1 << 10
)

// run is the state that the two passes of one validation share.
type run struct {
	ctx   context.Context
	steps int64
	redo  int64  // steps taken inside a check done again
	often uint32 // the schemas applied to one value past which its verdicts are kept
	look  int64  // the step count at which to look at the context next
	stop  error  // a *CostError, or the context's cause: the run ends
	memo  map[memoKey]*verdict
	kept  int64          // the bytes of memo, about
	sigs  map[sigKey]int // scope signatures, interned
}

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

// newRun starts a validation against a schema of nodes subschemas.
func newRun(ctx context.Context, nodes int) *run {
	return &run{ctx: ctx, often: uint32(min(2*int64(nodes)+64, math.MaxUint32-1))}
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
	if redoing {
		r.redo += cost
	}
	switch {
	case r.redo > redoBudget || r.steps > maxSteps:
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
// subschema worth keeping on a value visited often, and taking a kept one.
func (vd *validator) validate(n *node, v *value, ev *evaluated, via string) *ValidationError {
	if vd.run.step(n, vd.redoing > 0) {
		return vd.fail("", func() string { return "stopped" })
	}
	if v.visits <= vd.run.often {
		v.visits++
	}
	if v.visits <= vd.run.often || !n.shared || n.empty || n.never {
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

// keep keeps a verdict, unless the run has ended or the verdicts kept
// would pass maxKept bytes: that ends it with a *CostError.
func (vd *validator) keep(k memoKey, v *verdict) {
	r := vd.run
	size := keptBytes + int64(len(v.marks))
	switch {
	case r.stop != nil:
		return
	case r.kept+size > maxKept:
		r.stop = &CostError{Steps: r.steps}
		return
	case r.memo == nil:
		r.memo = map[memoKey]*verdict{}
	}
	r.memo[k] = v
	r.kept += size
}

func marksOf(e *evaluated) []bool {
	if e == nil {
		return nil
	}
	return e.marks
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
	if !r.recursiveAnchor && len(r.dynamic) == 0 || slices.Contains(vd.scope[:len(vd.scope)-1], r) {
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
