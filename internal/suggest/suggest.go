// Package suggest finds the name a user probably meant: "did you mean".
package suggest

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Nearest returns the candidate closest to name, if one is close enough to
// be a likely misspelling: the same but for case, or within an edit
// distance (insertions, deletions, substitutions and swaps of neighbours)
// of about a third of the name's length. Ties go to the earlier candidate.
func Nearest(name string, candidates []string) (string, bool) {
	best, bestDist := "", -1
	limit := max(1, utf8.RuneCountInString(name)/3)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := distance(strings.ToLower(name), strings.ToLower(c))
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best, bestDist >= 0
}

// DidYouMean is "; did you mean \"X\"?" for the nearest candidate, or "".
// The name is quoted as Go quotes strings, so a candidate a server or a
// project file chose cannot carry terminal controls to the user.
func DidYouMean(name string, candidates []string) string {
	if near, ok := Nearest(name, candidates); ok {
		return "; did you mean " + strconv.Quote(near) + "?"
	}
	return ""
}

// distance is the optimal string alignment distance between a and b, in
// runes: Levenshtein's, plus the swap of two neighbouring runes as one edit.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows suffice: the swap looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
