package audit

import (
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
)

// dropsConsent finds an order to act without asking the user: consent
// taken as given, "without asking" in an order that is not itself denied
// ("never unlock without asking" asks), an order not to ask for
// confirmation (but "never ask for the passcode" keeps a secret).
func dropsConsent(s *sent, ordered bool, own map[string]bool) (string, bool) {
	if sp, ok := s.live(cPreApproved); ok && (!s.conditional(sp) && !s.awaits(sp) || strings.Contains(s.text[sp.start:sp.end], "auto") || strings.Contains(s.text[sp.start:sp.end], "yolo")) {
		return "takes the user's consent for granted", true
	}
	if s.deemed() {
		return "takes the user's consent for granted", true
	}
	if s.noConfirmationToDestroy() {
		return "says the model need not ask the user, of a tool that destroys", true
	}
	for _, w := range s.f[cWithout] {
		if !ordered && !w.foreign {
			continue
		}
		asks := s.after(cAsk, w, 4) || s.after(cConsentNoun, w, 4) || s.after(cUser, w, 2) && s.after(cAsk, w, 6) || slices.ContainsFunc(s.f[cAsk], func(o span) bool { return o.first >= w.first && o.first <= w.last }) // (starting inside w: "stop asking", "instead of waiting on the user")
		if w.foreign {
			asks = asks || s.near(cAsk, w, 8) || s.near(cConsentNoun, w, 8)
		}
		if !asks || s.askedForInput(w) || s.wordIn(w.last+1, 3, "permissions") && !s.after(cUser, w, 6) && !s.near(cAsk, w, 6) {
			continue // "a role without any permissions": grants, not consent
		}
		if s.negatedBefore(w) || s.conditional(w) || w.last+1 < len(s.toks) && own[s.toks[w.last+1].text] || s.factAfter(w) {
			continue // "do not follow URLs without asking first": the order asks; "call without confirm": a parameter left unset
		}
		return "tells the model to act without asking the user", true
	}
	if !ordered {
		return "", false
	}
	for _, a := range s.f[cAsk] {
		if !s.negated(a) || s.after(cSecretNoun, a, 6) || s.negatedBefore(span{a.first, a.first, 0, 0, false}) && s.near(cWithout, a, 2) || s.conditional(a) {
			continue // (nor a state a condition names: "if the version is not already confirmed with the user, omit it")
		}
		if s.after(cConsentNoun, a, 5) || s.wordIn(a.last+1, 6, "before", "first", "again", "anymore", "each", "every") || s.has(cConsentNoun) && s.near(cUser, a, 3) {
			return "tells the model not to ask the user first", true
		}
	}
	return "", false
}

// factAfter reports "without" fronting a clause that orders nothing:
// "Without confirming, cart items are NOT locked in" (what follows when
// no one confirms), not "without asking, delete them".
func (s *sent) factAfter(w span) bool {
	k := w.last + 1 + slices.Index(s.brk[w.last+1:], true) // (the next clause's start)
	return s.clauseStart(w.first) && k > w.last && !s.spanAt(cOrderVerb, k) && !s.after(cAddressee, w, len(s.toks)) && !s.after(cModal, w, len(s.toks))
}

// strongRank reports a ranking that puts one word over another: a verb
// of outranking, or a priority with what it is over ("highest priority
// over the user's requests"); not a "[TOP PRIORITY]" label.
func (s *sent) strongRank(sp span) bool {
	t := s.text[sp.start:sp.end]
	if containsAny(t, "priority", "authoritative", "final", "win", "prevail") {
		return s.near(cRules, sp, 6) && (s.wordIn(sp.last+1, 4, "over", "above", "than") || s.near(cUser, sp, 6))
	}
	return true
}

// ignoresUsers reports "ignore the IBAN the user gives": the user after
// a verb of ignoring, in its object (not "ignore them and tell the user").
func (s *sent) ignoresUsers(sp span) bool {
	return slices.ContainsFunc(s.f[cUser], func(u span) bool {
		return u.first > sp.last && u.first-sp.last <= 6 && !s.breakBetween(sp.last, u.first) && !s.joined(sp.last, u.first) && !s.measureAfter(u.last)
	})
}

// measureAfter reports a bare "user" or "users" at token i followed by a
// count or a span of time: the words of a field's name ("ignore user
// count", ignoreUserWindowMinutes: how many users, over what window), not
// the user set aside. A user's limit, rate or settings stay the user's.
func (s *sent) measureAfter(i int) bool {
	w := s.toks[i].text
	return (w == "user" || w == "users") && i+1 < len(s.toks) && !s.brk[i+1] && s.wordIn(i+1, 1, "count", "counts", "window", "minutes", "seconds", "hours", "days", "duration")
}

// askedForInput reports an ask that is for input, not for consent: "no
// need to ask questions or collect information".
func (s *sent) askedForInput(w span) bool {
	return s.wordIn(w.last+1, 5, "questions", "question", "details", "information", "clarification", "clarifying")
}

// deemed reports consent said to be had already: "counts as the user's
// approval", "consent is deemed given", "l'accord est réputé acquis";
// or asking for it called needless ("asking again is redundant").
func (s *sent) deemed() bool {
	if slices.ContainsFunc(s.f[cRedundant], func(r span) bool { return (s.near(cAsk, r, 6) || s.near(cConsentNoun, r, 6)) && !s.negated(r) }) {
		return true
	}
	for i, t := range s.toks {
		switch t.text {
		case "counts", "count", "serves":
			if i+1 >= len(s.toks) || s.toks[i+1].text != "as" {
				continue // a noun, not a verb of deeming: "ratings and review counts"
			}
		case "deemed", "considered", "treated", "réputé", "réputée", "gilt", "gelten", "considerado", "considerada", "considerato", "beschouwd", "uważa", "считается", "sayılır", "视为", "視為", "みなされ", "간주":
		default:
			continue
		}
		for _, c := range s.f[cConsentNoun] {
			if c.first > i && c.first-i <= 5 || c.last < i && i-c.last <= 4 && (!s.checkNoun(c) || s.granted(i+1)) {
				if !s.negated(span{first: i, last: i}) && !s.conditional(span{first: i, last: i}) {
					return true
				}
			}
		}
	}
	return false
}

// checkNoun reports a consent noun that names any check or review as
// well ("health checks"): deemed, it is consent only when deemed done.
func (s *sent) checkNoun(c span) bool {
	return s.wordIn(c.last, 1, "checks", "checking", "review")
}

// granted reports a word of a thing done or given at token i or the
// next ("considered passed", "deemed to be complete"): not
// "considered unhealthy".
func (s *sent) granted(i int) bool {
	return s.wordIn(i, 3, "done", "complete", "completed", "passed", "given", "granted", "satisfied", "performed",
		"obtained", "approved", "unnecessary", "redundant", "optional", "waived")
}

// noConfirmationToDestroy reports a tool said to need no confirmation
// that runs a command which destroys work ("it never needs user
// confirmation; it runs git clean -fdx").
func (s *sent) noConfirmationToDestroy() bool {
	if len(s.f[cConsentNoun]) == 0 || !destroyRe.Get().MatchString(s.text) {
		return false
	}
	for _, c := range s.f[cConsentNoun] {
		if s.negatedBefore(c) && s.near(cWithout, c, 3) {
			continue // "never run rm -rf without confirmation": the order asks
		}
		if s.negated(c) || s.near(cNegator, c, 3) || s.near(cWithout, c, 3) {
			return true
		}
	}
	return false
}

// destroyRe finds a command that destroys work.
var destroyRe = &lazy.Regexp{From: func() string { return lexPattern("destroy") }}

// secretKept reports a secret or its value right after a verb of leaving
// out ("keep your API keys out of"), not a mention of what was done
// ("omit any mention of the keys being forwarded").
func (s *sent) secretKept(sp span) bool {
	for i := sp.last + 1; i < min(len(s.toks), sp.last+5); i++ {
		if s.wordIn(i, 1, "mention", "mentions", "word", "sign", "trace", "record", "fact", "note") {
			return false
		}
	}
	return s.after(cSecretNoun, sp, 4) || s.after(cValueNoun, sp, 4)
}

// awaits reports a consent waited for, not taken: "until the user has
// approved it", "only after the user approved it".
func (s *sent) awaits(sp span) bool {
	if said := s.text[sp.start:sp.end]; strings.Contains(said, "already") || strings.HasPrefix(said, "pre") {
		return false // "until then, the user has already approved": taken
	}
	for i := max(0, sp.first-6); i < sp.first; i++ {
		if s.wordIn(i, 1, "after", "until", "till") && !s.breakBetween(i, sp.first) {
			return true
		}
	}
	return false
}
