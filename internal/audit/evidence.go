package audit

import "strings"

// Reading is one reading a finding stands on: the rule that read it,
// where, and what it read.
type Reading struct {
	Rule    string `json:"rule"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// A finding that fails the default gate (high or above) stands on two
// readings of its item that agree: its own, and another one, either a
// second thing its rule read besides the first (an order and the
// destination it sends to; hidden text and what the hidden text says)
// or another rule's finding in the same item that reads something else
// (an order and the concealment it asks for, a key file and a parameter
// to carry it). One reading alone, however sure of its words, is at most
// medium: honest text says many things once that poisoned text says
// together. The same phrase matched by two rules is one reading.
//
// evidence decides so over every finding of a run, after each rule has
// given its own severity and combine has weighed the findings of an item
// together; Finding.Evidence names the other reading.
func evidence(found []Finding) []Finding {
	type item struct{ server, source, kind, name string }
	by := map[item][]int{}
	for i, f := range found {
		k := item{f.Server, f.Source, f.Kind, f.Name}
		by[k] = append(by[k], i)
	}
	alone := map[int]bool{}
	for i, f := range found {
		if f.Severity < High || f.pair != "" {
			continue
		}
		alone[i] = true
		for _, j := range by[item{f.Server, f.Source, f.Kind, f.Name}] {
			if g := found[j]; agrees(f, g) {
				found[i].Evidence = append(found[i].Evidence, Reading{g.Rule, g.Field, g.Message})
				delete(alone, i)
				break
			}
		}
	}
	for i := range found {
		f := &found[i]
		switch {
		case alone[i]:
			f.Severity = Medium
			f.Message += oneReading
		case f.Severity >= High && f.pair != "":
			f.Evidence = append(f.Evidence, Reading{f.Rule, f.Field, f.pair})
		}
	}
	return found
}

// oneReading ends the message of a finding held to medium.
const oneReading = " (medium: one reading, and nothing else in the item agrees with it)"

// agrees reports whether g is a reading of f's item other than f's own
// that agrees with it: another rule's, of medium or above (or a block
// posing as the system's, or a parameter named as a channel out, which
// are low alone and read what an order is wrapped in or carried by); of
// another kind than f's, unless both read orders (two ways of hiding
// text, or a secret and a channel with no order to move it, are still
// one thing read); not the same phrase; of the same text (the item's
// whole text is every field's) or, from another field, of a kind that
// reads the text's intent (not a name's look or a list's shape).
func agrees(f, g Finding) bool {
	if g.Rule == f.Rule || g.Severity < Low || g.Severity < Medium && g.Rule != RuleHiddenBlock && g.Rule != RuleSideChannel {
		return false
	}
	kf, kg := kindOf(f.Rule), kindOf(g.Rule)
	if kg == "" || kf == kg && kf != "order" {
		return false
	}
	if f.Field != g.Field {
		return strings.HasPrefix(f.Field, wholePrefix) || strings.HasPrefix(g.Field, wholePrefix) || kf != "other"
	}
	return f.phrase[1] == 0 || g.phrase[1] == 0 || f.phrase[0] >= g.phrase[1] || g.phrase[0] >= f.phrase[1] // (not the same phrase)
}

// kindOf is what each rule reads: text hidden from the user, an order to
// the model, what carries data or code out or in, or the shape of the
// surface; the rules of no kind (a text unread, a cost, a list not
// given) read nothing a finding can stand on.
func kindOf(rule string) string { // a switch, not a map: nothing built at start-up
	switch rule {
	case RuleUnicodeTag, RuleInvisible, RuleBidi, RuleControl, RuleLookAlike,
		RuleHiddenComment, RuleHiddenBlock, RuleHiddenWhitespace, RuleEncoded:
		return "hide"
	case RuleOverride, RuleConceal, RuleShadowing, RuleTrigger, RuleCoercion, RulePriority:
		return "order"
	case RuleSensitiveFile, RuleSideChannel, RuleSendElsewhere, RuleSecret, RuleCommandPayload:
		return "carry"
	case RuleCombination, RuleNameCollision, RuleAnnotationMismatch, RuleListedTwice:
		return "other"
	}
	return ""
}
