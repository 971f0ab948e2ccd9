package load

import (
	"fmt"
	"strconv"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// MaxWeight bounds the sum of a mix's weights.
const MaxWeight = 10000

// ParseMix reads a mix of operations (YAML or JSON; path names it in
// messages):
//
//	operations:
//	  - run: call echo message=hi
//	    weight: 3
//	  - run: list-tools
//
// Each run is an operation's words as a shell would split them; a weight
// is a whole number, 1 when left out. readFile reads a call's @FILE.
func ParseMix(path string, data []byte, readFile func(string) ([]byte, error)) ([]Op, error) {
	fail := func(n *yamlnode.Node, format string, args ...any) error {
		return errkind.Usagef("%s:%d:%d: %s", path, n.Line, n.Col, fmt.Sprintf(format, args...))
	}
	root, err := yamlnode.Parse(data, yamlnode.Options{What: "a mix file"})
	if err != nil {
		return nil, errkind.Usagef("%s:%v", path, err)
	}
	if root.Kind != yamlnode.Object {
		return nil, fail(root, "want an object with operations, found %s", root.Kind.Noun())
	}
	for _, k := range root.Keys {
		if k.Text != "operations" {
			return nil, fail(k, "unknown key %q: a mix has operations", k.Text)
		}
	}
	list := root.Get("operations")
	if list == nil || list.Kind != yamlnode.Array || len(list.Items) == 0 {
		return nil, fail(root, "want operations: a list of {run, weight}")
	}
	var ops []Op
	total := 0
	for _, item := range list.Items {
		if item.Kind != yamlnode.Object {
			return nil, fail(item, "want {run: WORDS, weight: N}, found %s", item.Kind.Noun())
		}
		for _, k := range item.Keys {
			if k.Text != "run" && k.Text != "weight" {
				return nil, fail(k, "unknown key %q: an operation has run and weight", k.Text)
			}
		}
		run := item.Get("run")
		if run == nil || run.Kind != yamlnode.String {
			return nil, fail(item, "want run: the operation's words, e.g. call echo message=hi")
		}
		words, err := shellwords.Split(run.Text)
		if err != nil {
			return nil, fail(run, "%v", err)
		}
		op, err := ParseOp(words, readFile)
		if err != nil {
			return nil, fail(run, "%v", err)
		}
		if w := item.Get("weight"); w != nil {
			n, err := strconv.Atoi(w.Text)
			if w.Kind != yamlnode.Number || err != nil || n < 1 || n > MaxWeight {
				return nil, fail(w, "weight: want a whole number from 1 to %d", MaxWeight)
			}
			op.Weight = n
		}
		total += op.Weight
		if total > MaxWeight {
			return nil, fail(item, "the weights add up to more than %d", MaxWeight)
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// picker chooses the operation of each iteration: the k-th iteration's is
// the k-th of a cycle in which each operation comes as often as its
// weight, spread evenly (smooth weighted round robin), so that any stretch
// of a run holds the mix in its proportions, the same in every run.
type picker []int

func newPicker(ops []Op) picker {
	total := 0
	for _, op := range ops {
		total += op.Weight
	}
	current := make([]int, len(ops))
	cycle := make(picker, 0, total)
	for range total {
		best := 0
		for i, op := range ops {
			current[i] += op.Weight
			if current[i] > current[best] {
				best = i
			}
		}
		current[best] -= total
		cycle = append(cycle, best)
	}
	return cycle
}

func (p picker) pick(k int64) int { return p[k%int64(len(p))] }
