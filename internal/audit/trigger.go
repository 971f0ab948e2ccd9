package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
)

// triggerRules find an order that takes effect only after a date, a
// number of uses, at a time of day or on a day of the week, the trigger
// leading its sentence: text that reads one way when it is reviewed and
// another when the trigger has passed. The finding names the trigger; beside another finding of the
// item's it is high (combine).
func triggerRules(text string, v view, f finder) []Finding {
	ms := triggerRe.Get().FindAllStringIndex(v.text, 4)
	if len(ms) == 0 {
		return nil
	}
	var out []Finding
	all := sentences(v.text)
	for _, m := range ms {
		// the sentence the trigger starts in, to the end of the one it ends
		// in ("Ab dem 1. März 2027 ...": a date's "1." ends no sentence)
		i := slices.IndexFunc(all, func(ss sentence) bool { return ss.start <= m[0] && m[0] < ss.end })
		if i < 0 {
			continue
		}
		ss := all[i]
		for j := i + 1; j < len(all) && ss.end < m[1]; j++ {
			ss = sentence{ss.start, all[j].end, v.text[ss.start:all[j].end]}
		}
		if !leads(v.text[ss.start:m[0]]) {
			continue
		}
		if k := strings.IndexByte(v.text[m[1]:ss.end], ';'); k >= 0 {
			// the trigger governs its clause: "After 2026-12-01 old keys
			// stop working; rotate before then" orders nothing after it
			ss = sentence{ss.start, m[1] + k, v.text[ss.start : m[1]+k]}
		}
		s := newSent(ss)
		// an order that does something once the trigger passes: moves,
		// reads, changes, hides, sets rules aside, tells, links out, or is
		// put as an obligation ("old keys stop working" is a fact, not one)
		ordered := s.has(cMove) || s.has(cAlter) || s.has(cAlso) || s.has(cReadVerb) || s.has(cSilently) || s.has(cCovertly) ||
			s.has(cIgnore) || s.has(cLie) || s.has(cReveal) || strings.Contains(ss.text, "://") || s.ordered() && (s.has(cModal) || s.has(cAddressee))
		s.release()
		if !ordered {
			continue
		}
		a, b := v.span(text, ss.start, ss.end)
		out = append(out, f(RuleTrigger, Medium, fmt.Sprintf("gives an order that takes effect only %s", v.text[m[0]:m[1]]), a, b))
	}
	return out
}

// leads reports the words before a trigger in its sentence as few enough
// that the trigger governs the sentence: none, or a connective or a label
// ("But", "Note:", "Important -", "1.").
func leads(before string) bool {
	return len(strings.Fields(before)) <= 2 && !strings.ContainsAny(before, ",;")
}

var triggerRe = &lazy.Regexp{From: func() string { return lexPattern("trigger") }}
