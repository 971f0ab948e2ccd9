package cost

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Change is how one item's cost moved between two surfaces: Old is 0 for
// an item that is new, New 0 for one that went.
type Change struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
	Old  int    `json:"old"`
	New  int    `json:"new"`
}

// Delta is how a surface's cost moved: the totals, and each item whose
// cost changed, in the order of the new surface (the items that went
// last).
type Delta struct {
	Tokenizer string   `json:"tokenizer"`
	As        string   `json:"as"`
	Old       int      `json:"old"`
	New       int      `json:"new"`
	Items     []Change `json:"items"`
}

// Compare is the delta from old to new, items matched by kind and name.
func Compare(tokenizer, as string, old, new []Item) Delta {
	d := Delta{Tokenizer: tokenizer, As: as, Items: []Change{}}
	key := func(it Item) string { return it.Kind + "\x00" + it.Name }
	before := map[string]int{}
	for _, it := range old {
		before[key(it)] = it.Tokens
		d.Old += it.Tokens
	}
	seen := map[string]bool{}
	for _, it := range new {
		d.New += it.Tokens
		k := key(it)
		seen[k] = true
		if o, ok := before[k]; !ok || o != it.Tokens {
			d.Items = append(d.Items, Change{Kind: it.Kind, Name: it.Name, Old: o, New: it.Tokens})
		}
	}
	for _, it := range old {
		if !seen[key(it)] {
			d.Items = append(d.Items, Change{Kind: it.Kind, Name: it.Name, Old: it.Tokens})
		}
	}
	return d
}

// Change is the total's change, in tokens and in percent of the old total
// ("+900 tokens, +11.3%").
func (d Delta) Change() string {
	s := fmt.Sprintf("%+d tokens", d.New-d.Old)
	if d.Old > 0 {
		s += fmt.Sprintf(", %+.1f%%", 100*float64(d.New-d.Old)/float64(d.Old))
	}
	return s
}

// Budget is a limit on a surface's cost: its total (tokens>8000), or its
// growth in tokens (tokens>+500) or in percent (tokens>+10%).
type Budget struct {
	Text     string
	Limit    float64
	Growth   bool // the limit is on New-Old
	Relative bool // and in percent of Old
}

// ParseBudget reads a budget as --fail-on gives it; ok is false when s is
// no budget at all (a class of change, say).
func ParseBudget(s string) (b Budget, ok bool, err error) {
	rest, ok := strings.CutPrefix(s, "tokens>")
	if !ok {
		return Budget{}, false, nil
	}
	b.Text = s
	if r, grows := strings.CutPrefix(rest, "+"); grows {
		b.Growth, rest = true, r
	}
	if r, pct := strings.CutSuffix(rest, "%"); pct {
		if !b.Growth {
			return b, true, fmt.Errorf("%q: a percentage is of growth: tokens>+%s", s, rest)
		}
		b.Relative, rest = true, r
	}
	n, err := strconv.ParseFloat(rest, 64)
	if err != nil || !(n >= 0) || math.IsInf(n, 0) || rest == "" { // NaN is not >= 0
		return b, true, fmt.Errorf("%q: want tokens>N (the total), tokens>+N or tokens>+N%% (the growth)", s)
	}
	b.Limit = n
	return b, true, nil
}

// Exceeded says whether d goes past the budget.
func (b Budget) Exceeded(d Delta) bool {
	switch {
	case !b.Growth:
		return float64(d.New) > b.Limit
	case !b.Relative:
		return float64(d.New-d.Old) > b.Limit
	case d.Old == 0:
		return d.New > 0
	}
	return 100*float64(d.New-d.Old)/float64(d.Old) > b.Limit
}

// Over is a budget a report goes past: the whole surface's (Tool "") or
// a tool's, or a tool budgeted that the server does not list (Tokens -1).
type Over struct {
	Tool   string
	Limit  int
	Tokens int
}

func (o Over) String() string {
	switch {
	case o.Tokens < 0:
		return fmt.Sprintf("tool %q has a budget of %d tokens and the server lists no such tool", o.Tool, o.Limit)
	case o.Tool == "":
		return fmt.Sprintf("the surface costs %d tokens, over its budget of %d", o.Tokens, o.Limit)
	}
	return fmt.Sprintf("tool %q costs %d tokens, over its budget of %d", o.Tool, o.Tokens, o.Limit)
}

// OverBudget is each budget r goes past: its total's (max, 0 for none)
// and each tool's of tools, the tools in the order of their names.
func OverBudget(r Report, max int, tools map[string]int) []Over {
	var over []Over
	if max > 0 && r.Total > max {
		over = append(over, Over{Limit: max, Tokens: r.Total})
	}
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		i := slices.IndexFunc(r.Items, func(it Item) bool { return it.Kind == Tool && it.Name == name })
		switch {
		case i < 0:
			over = append(over, Over{Tool: name, Limit: tools[name], Tokens: -1})
		case r.Items[i].Tokens > tools[name]:
			over = append(over, Over{Tool: name, Limit: tools[name], Tokens: r.Items[i].Tokens})
		}
	}
	return over
}
