package audit

import (
	"regexp"
	"regexp/syntax"
	"slices"
)

// gated is a regular expression with the words its matches must hold,
// found from the expression itself: a text that lacks them cannot match,
// and is not run through the expression (the regexp package's machine is
// slow on the long alternations of the lexicons, and most text holds
// none of their words).
type gated struct {
	re   *regexp.Regexp
	need cond
}

// cond is what a match needs of a text: one of words, every one of all,
// or one of any (none of them set: nothing; every text may match).
type cond struct {
	words []string
	all   []cond
	any   []cond
}

func (c cond) trivial() bool { return c.words == nil && c.all == nil && c.any == nil }

// holds reports whether t holds what c needs.
func (c cond) holds(t string) bool {
	switch {
	case c.words != nil:
		return containsAny(t, c.words...)
	case c.all != nil:
		return !slices.ContainsFunc(c.all, func(sub cond) bool { return !sub.holds(t) })
	case c.any != nil:
		return slices.ContainsFunc(c.any, func(sub cond) bool { return sub.holds(t) })
	}
	return true
}

func gate(pattern string) gated {
	g := gated{re: regexp.MustCompile(pattern)}
	if parsed, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		g.need = needs(parsed.Simplify())
	}
	return g
}

// gateWith is gate, with words one of which a text must hold besides.
func gateWith(pattern string, words []string) gated {
	g := gate(pattern)
	if len(words) > 0 {
		g.need = cond{all: []cond{g.need, {words: words}}}
	}
	return g
}

// may reports whether t may match.
func (g gated) may(t string) bool { return g.need.holds(t) }

func (g gated) MatchString(t string) bool { return g.may(t) && g.re.MatchString(t) }

func (g gated) FindAllStringIndex(t string, n int) [][]int {
	if !g.may(t) {
		return nil
	}
	return g.re.FindAllStringIndex(t, n)
}

// needs is what every match of re needs of a text: of a part that
// matches a few strings only, one of them ("sen[dt]s?": send, sent,
// sends, sents); of a concatenation, what each of its parts needs (runs
// of the few-string parts taken together); of an alternation, what one
// of its branches needs, when every branch needs something.
func needs(re *syntax.Regexp) cond {
	if re.Flags&syntax.FoldCase != 0 {
		return cond{}
	}
	if words, ok := exact(re); ok {
		return cond{words: nonEmpty(words)}
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return needs(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return needs(re.Sub[0])
		}
	case syntax.OpConcat:
		var all []cond
		run := []string{""}
		flush := func() {
			if words := nonEmpty(run); words != nil {
				all = append(all, cond{words: words})
			}
			run = []string{""}
		}
		for _, sub := range re.Sub {
			if words, ok := exact(sub); ok {
				if next := product(run, words); next != nil {
					run = next
				} else {
					flush()
					run = words
				}
				continue
			}
			flush()
			if c := needs(sub); !c.trivial() {
				all = append(all, c)
			}
		}
		flush()
		switch len(all) {
		case 0:
			return cond{}
		case 1:
			return all[0]
		}
		return cond{all: all}
	case syntax.OpAlternate:
		var any []cond
		for _, sub := range re.Sub {
			c := needs(sub)
			if c.trivial() {
				return cond{}
			}
			any = append(any, c)
		}
		return cond{any: any}
	}
	return cond{}
}

// maxExact bounds the strings an expression is expanded into.
const maxExact = 256

// exact is the finite set of strings re matches, when it is one of at
// most maxExact strings (a word boundary matches the empty string).
func exact(re *syntax.Regexp) ([]string, bool) {
	if re.Flags&syntax.FoldCase != 0 {
		return nil, false
	}
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return []string{""}, true
	case syntax.OpLiteral:
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) >= 8 {
					return nil, false
				}
				out = append(out, string(r))
			}
		}
		return out, true
	case syntax.OpCapture:
		return exact(re.Sub[0])
	case syntax.OpQuest:
		words, ok := exact(re.Sub[0])
		if !ok {
			return nil, false
		}
		return append([]string{""}, words...), true
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			words, ok := exact(sub)
			if !ok {
				return nil, false
			}
			if out = product(out, words); out == nil {
				return nil, false
			}
		}
		return out, true
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			words, ok := exact(sub)
			if !ok || len(out)+len(words) > maxExact {
				return nil, false
			}
			out = append(out, words...)
		}
		return out, true
	}
	return nil, false
}

// product is every a followed by every b, or nil past maxExact.
func product(a, b []string) []string {
	if len(a)*len(b) > maxExact {
		return nil
	}
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// nonEmpty is words when none is empty, else nil: an empty string is no
// requirement.
func nonEmpty(words []string) []string {
	if shortest(words) <= 0 {
		return nil
	}
	return words
}

// shortest is the length of the shortest of words (-1 for none).
func shortest(words []string) int {
	n := -1
	for _, w := range words {
		if n < 0 || len(w) < n {
			n = len(w)
		}
	}
	return n
}

// A text longer than chunkOver is read by the expressions that find set
// phrases a piece at a time: runs of whole sentences of about chunkSize
// bytes, each piece with the sentence after it too, so that a match
// across two sentences is in one piece. Each piece is read only when it
// holds what the expression needs, which a long text as a whole always
// does, and a regular expression costs what it reads.
const (
	chunkOver = 4 << 10
	chunkSize = 2 << 10
)

// findAll is g's first n matches in t, read by pieces (cs, chunks(t))
// when t is long.
func findAll(g gated, pre []string, t string, cs [][2]int, n int) [][]int {
	if cs == nil {
		if pre != nil && !containsAny(t, pre...) {
			return nil
		}
		return g.FindAllStringIndex(t, n)
	}
	var out [][]int
	last := -1 // where the last match kept starts: pieces overlap
	for _, c := range cs {
		piece := t[c[0]:c[1]]
		if pre != nil && !containsAny(piece, pre...) {
			continue
		}
		for _, m := range g.FindAllStringIndex(piece, n) {
			if s := c[0] + m[0]; s > last {
				out = append(out, []int{s, c[0] + m[1]})
				last = s
				if len(out) == n {
					return out
				}
			}
		}
	}
	return out
}

// chunks parts a long t (nil: t is short, and read whole) into pieces of whole sentences (a sentence
// longer than a piece is cut, with some of its text in both), each piece
// ending with the sentence that starts the next.
func chunks(t string) [][2]int {
	if len(t) <= chunkOver {
		return nil // read whole
	}
	var bounds []int // where sentences start, and the text's end
	for _, s := range sentences(t) {
		for at := s.start; at < s.end; at += chunkSize {
			bounds = append(bounds, at)
		}
	}
	bounds = append(bounds, len(t))
	var out [][2]int
	for i := 0; i < len(bounds)-1; {
		j := i + 1
		for j < len(bounds)-1 && bounds[j]-bounds[i] < chunkSize {
			j++
		}
		end := bounds[min(j+1, len(bounds)-1)] // the next sentence too
		out = append(out, [2]int{runeStart(t, bounds[i]), runeStart(t, end)})
		i = j
	}
	return out
}
