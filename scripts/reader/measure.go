package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// honestShare is the most of the training folds' honest items the
// reader's threshold may put at medium.
const honestShare = 0.01

// trainOn fits the poisoned head on the items of train, leaving out those
// whose near-duplicate group is in held (the held-out items' groups).
func trainOn(items []item, xs [][]feat, train []int, held map[string]bool, seed uint64) *head {
	var tx [][]feat
	var ty []bool
	for _, i := range train {
		if held[items[i].Group] {
			continue
		}
		tx = append(tx, xs[i])
		ty = append(ty, items[i].Poisoned)
	}
	return train1("poisoned", tx, ty, seed)
}

var train1 = train

// byHand indexes the items by hand, hands in order.
func byHand(items []item) ([]string, map[string][]int) {
	return by(items, func(it item) string { return it.Hand })
}

// byFold indexes the items by the fold they are held out in: a hand, or,
// for the field set, its servers together (a server has a few items, and
// every one honest).
func byFold(items []item) ([]string, map[string][]int) {
	return by(items, func(it item) string {
		if strings.HasPrefix(it.Hand, "field-") {
			return "field"
		}
		return it.Hand
	})
}

func by(items []item, of func(item) string) ([]string, map[string][]int) {
	idx := map[string][]int{}
	for i, it := range items {
		idx[of(it)] = append(idx[of(it)], i)
	}
	return slices.Sorted(maps.Keys(idx)), idx
}

func groupsOf(items []item, idx []int) map[string]bool {
	g := map[string]bool{}
	for _, i := range idx {
		g[items[i].Group] = true
	}
	return g
}

// outOfFold scores every item of hands by a head trained on the other
// hands of hands (near-duplicates of the scored hand left out).
func outOfFold(items []item, xs [][]feat, hands []string, idx map[string][]int, seed uint64) map[int]float64 {
	out := map[int]float64{}
	for _, h := range hands {
		var train []int
		for _, o := range hands {
			if o != h {
				train = append(train, idx[o]...)
			}
		}
		m := trainOn(items, xs, train, groupsOf(items, idx[h]), seed)
		for _, i := range idx[h] {
			out[i] = m.score(xs[i])
		}
	}
	return out
}

// threshold is the lowest score that puts at most honestShare of the
// honest items scored at or above it.
func threshold(items []item, scores map[int]float64) float64 {
	var hs []float64
	for i, s := range scores {
		if !items[i].Poisoned {
			hs = append(hs, s)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(hs)))
	k := int(math.Floor(honestShare * float64(len(hs))))
	if k >= len(hs) {
		return 0
	}
	return math.Nextafter(hs[k], 2)
}

// reading is what each held-out item got: the rules' worst severity, the
// reader's score and the threshold of its fold.
type reading struct {
	rules int
	score float64
	t     float64
}

func (r reading) reader() bool { return r.score >= r.t }

// Found at medium or above: by the rules, by the reader (its reading is
// a medium finding, never more), by either.
func (r reading) found(how string) bool {
	switch how {
	case "rules":
		return r.rules >= severities["medium"]
	case "reader":
		return r.reader()
	}
	return r.rules >= severities["medium"] || r.reader()
}

// At the default gate (high or above): the rules' own, or a rule's
// medium finding with the reader's reading as its second.
func (r reading) gated(how string) bool {
	switch how {
	case "rules":
		return r.rules >= severities["high"]
	case "reader":
		return false
	}
	return r.rules >= severities["high"] || r.rules >= severities["medium"] && r.reader()
}

// leaveOneHandOut reads every hand by a head trained on the others, its
// threshold chosen on the others by an inner leave-one-hand-out, two folds
// at a time.
func leaveOneHandOut(items []item, xs [][]feat, rules map[string]int, seed uint64) (map[int]reading, map[string]float64) {
	hands, idx := byFold(items)
	out := map[int]reading{}
	ts := map[string]float64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, h := range hands {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			var rest []string
			var train []int
			for _, o := range hands {
				if o != h {
					rest = append(rest, o)
					train = append(train, idx[o]...)
				}
			}
			t := threshold(items, outOfFold(items, xs, rest, idx, seed))
			m := trainOn(items, xs, train, groupsOf(items, idx[h]), seed)
			mu.Lock()
			defer mu.Unlock()
			ts[h] = t
			for _, i := range idx[h] {
				out[i] = reading{rules[key(items[i])], m.score(xs[i]), t}
			}
		})
	}
	wg.Wait()
	return out, ts
}

// wilson is the 95% Wilson interval of k of n.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 0
	}
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	c := (p + z*z/(2*nf)) / (1 + z*z/nf)
	w := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / (1 + z*z/nf)
	return max(0, c-w), min(1, c+w)
}

func cell(k, n int) string {
	if n == 0 {
		return "–"
	}
	lo, hi := wilson(k, n)
	return fmt.Sprintf("%d (%.1f%%, %.1f–%.1f)", k, 100*float64(k)/float64(n), 100*lo, 100*hi)
}

var hows = []string{"rules", "reader", "both"}

// table writes a markdown table of the held-out readings, a row per value
// of by over the items keep admits: poisoned found at medium+ and at the
// gate, honest at medium+ and at the gate, for each of hows.
func table(b *strings.Builder, title string, items []item, got map[int]reading, keep func(item) bool, by func(item) string) {
	type row struct {
		pos, neg, pf, ng [3]int
		pg, nm           [3]int
		p, n             int
	}
	rows := map[string]*row{}
	all := &row{}
	for i, r := range got {
		it := items[i]
		if !keep(it) {
			continue
		}
		for _, rr := range []*row{all, rowOf(rows, by(it), func() *row { return &row{} })} {
			if it.Poisoned {
				rr.p++
			} else {
				rr.n++
			}
			for k, how := range hows {
				switch {
				case it.Poisoned && r.found(how):
					rr.pf[k]++
					if r.gated(how) {
						rr.pg[k]++
					}
				case !it.Poisoned && r.found(how):
					rr.nm[k]++
					if r.gated(how) {
						rr.ng[k]++
					}
				}
			}
		}
	}
	fmt.Fprintf(b, "| %s | poisoned | found: rules | reader | both | gate: rules | both | honest | medium+: rules | reader | both | gate: rules | both |\n", title)
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	line := func(name string, r *row) {
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |\n", name, r.p,
			cell(r.pf[0], r.p), cell(r.pf[1], r.p), cell(r.pf[2], r.p), cell(r.pg[0], r.p), cell(r.pg[2], r.p),
			r.n, cell(r.nm[0], r.n), cell(r.nm[1], r.n), cell(r.nm[2], r.n), cell(r.ng[0], r.n), cell(r.ng[2], r.n))
	}
	for _, k := range slices.Sorted(maps.Keys(rows)) {
		line(k, rows[k])
	}
	line("**all**", all)
	b.WriteString("\n")
}

func rowOf[T any](m map[string]T, k string, mk func() T) T {
	v, ok := m[k]
	if !ok {
		v = mk()
		m[k] = v
	}
	return v
}
