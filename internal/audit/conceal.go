package audit

import (
	"slices"
	"strings"
)

// conceals finds an order to keep something from the user: a verb of
// telling denied (not of a secret's value: "never repeat the token" keeps
// it safe), a verb of leaving out with what the user is shown, an act
// done in secret, or what the user is to be told that is not so.
func conceals(s *sent, ordered bool) (string, Severity, bool) {
	if _, ok := s.live(cCovertly); ok {
		return "has the model, or the tool, act behind the user's back", High, true
	}
	if !ordered {
		return "", 0, false
	}
	if slices.ContainsFunc(s.f[cSilently], func(sp span) bool { return !s.negated(sp) && !s.followsUser() && !s.userActs(sp) && s.silentAct(sp) }) {
		return "tells the model to act without the user knowing", High, true
	}
	for _, sp := range s.f[cReveal] {
		forbidden := s.near(cForbidden, sp, 8) || s.noNeed(sp)
		// "without telling"; "ohne es zu erwähnen" parts them, in an order to the model about the user (not "ohne Parameter zeigt")
		without := s.after(cWithout, span{sp.first - 2, sp.first - 2, 0, 0, false}, 1) || sp.foreign && s.before(cWithout, sp.first, 3) && s.near(cUser, sp, 12) && s.has(cAddressee)
		if !forbidden && !s.negated(sp) && !without || s.userSays(sp) {
			continue
		}
		if s.after(cValueNoun, sp, 4) || s.after(cSecretNoun, sp, 4) || sp.foreign && slices.ContainsFunc(slices.Concat(s.f[cSecretNoun], s.f[cValueNoun]), func(o span) bool { return o.end <= sp.start && sp.start-o.end <= 40 }) {
			continue // "never display the full card number": a secret kept ("APIキーは…表示しない": before the verb)
		}
		if !s.toldOf(sp) || !forbidden && s.negated(sp) && !s.imperativeNegation(sp) || s.shownAs(sp) {
			continue // "do not use @ to mention users", "do not use this tool to list blobs"
		}
		if s.wordIn(sp.last+1, 4, "cannot", "can't") {
			return "tells the model to keep something from the user", Medium, true // "never tell the user you cannot quote it": an excuse forbidden, or a failure kept
		}
		return "tells the model to keep something from the user", High, true
	}
	for _, sp := range s.f[cOmit] {
		if s.negated(sp) || s.secretKept(sp) || s.outOfScope(sp) {
			continue // "keep the API keys out of the report": a secret kept
		}
		passive := strings.HasPrefix(s.text[sp.start:sp.end], "be ") || strings.HasPrefix(s.text[sp.start:sp.end], "left")
		if s.commands(sp) && s.fromShown(sp) || passive && (s.near(cUser, sp, 10) || s.near(cShown, sp, 10)) {
			return "tells the model to leave something out of what the user is shown", High, true
		}
	}
	if s.leavesOut() {
		return "tells the model to leave something out of what the user is shown", High, true
	}
	if sp, ok := s.live(cTellUser); ok && s.after(cMinimize, sp, 8) {
		return "tells the model to tell the user less than was done", High, true
	}
	if sp, ok := s.reportsToUser(); ok && s.after(cMinimize, sp, 10) {
		return "tells the model to tell the user less than was done", High, true // "summarise them for the human only as 'ok'"
	}
	if sp, ok := s.liveBut(cLie, func(sp span) bool {
		// a noun ("the reply that started the download"), or a participle no one is told to give ("rather than presented as the live server's"), with no obligation beside it
		return !s.obliged(sp) && !s.after(cModal, sp, 8) && (s.wordIn(sp.first-1, 1, "the", "a", "an", "each", "its", "this") || strings.HasSuffix(s.toks[sp.first].text, "ed") && !s.wordIn(sp.first-1, 1, "be"))
	}); ok {
		if s.near(cMinimize, sp, 6) {
			return "tells the model to tell the user less than was done", High, true
		}
		return "tells the model what to tell the user", Medium, true
	}
	return "", 0, false
}

// reportsToUser finds a verb of reporting that starts a clause, with the
// user it is for within five words after it ("summarise them for the
// human").
func (s *sent) reportsToUser() (span, bool) {
	for i, t := range s.toks {
		if !s.wordIn(i, 1, "summarise", "summarize", "report", "describe", "present", "answer", "respond",
			"reply") || !s.clauseStart(i) {
			continue
		}
		sp := span{first: i, last: i, start: t.start, end: t.end}
		if s.negated(sp) {
			continue
		}
		if slices.ContainsFunc(s.f[cUser], func(u span) bool { return u.first > i && u.first-i <= 5 && !s.breakBetween(i, u.first) }) {
			return sp, true
		}
	}
	return span{}, false
}

// imperativeNegation reports a verb denied as an order is ("do not
// tell", "never mention", "must not show"), not as a fact is ("git did
// not surface it", "the API does not show").
func (s *sent) imperativeNegation(sp span) bool {
	if sp.foreign {
		// a German or Dutch verb in -t (Latin-1, not "tiết"), no one addressed, no obligation, no passive, says what the tool does ("Zeigt keine …")
		return !strings.HasSuffix(s.toks[sp.first].text, "t") || strings.ContainsFunc(s.toks[sp.first].text, func(r rune) bool { return r > 'ÿ' }) || s.has(cAddressee) || s.has(cModal) || s.wordIn(sp.last+1, 2, "werden", "worden", "wordt")
	}
	// the negator nearest before the verb is the one that denies it: not
	// "no" in "an answer with no names in it cannot show whether ..."
	n := span{first: -1, last: -1}
	for _, o := range s.f[cNegator] {
		if o.last < sp.first && sp.first-o.last <= 10 && o.last > n.last {
			n = o
		}
	}
	if n.first < 0 {
		return false
	}
	w, prev := s.toks[n.first].text, ""
	if n.first > 0 {
		prev = s.toks[n.first-1].text
	}
	return w == "never" || w == "don't" || w == "dont" || w == "no" && sp.first-n.last <= 2 || // (not "with no `to`, to just list them")
		w == "not" && (prev == "do" || prev == "must" || prev == "should" || prev == "shall" || prev == "to" || prev == "please" || prev == "need" || n.first == 0 || s.brk[n.first])
}

// shownAs reports a verb of telling denied in a manner or for a value:
// "do not list them as text descriptions" (a form of showing, another
// named; not "... as a list - only say done"), "false: do not notify"
// (what an option's value does).
func (s *sent) shownAs(sp span) bool {
	for k := sp.last + 1; k < min(len(s.toks)-1, sp.last+3); k++ {
		if s.toks[k].text == "as" && !strings.HasSuffix(s.toks[k+1].text, "ed") && !s.wordIn(k+1, 1, "if", "though") && !s.has(cMinimize) {
			return true
		}
	}
	return s.wordIn(sp.first-1, 1, "false", "off", "0") && strings.ContainsAny(s.text[s.toks[sp.first-1].end:s.toks[sp.first].start], ":：=")
}

// outOfScope reports what a text said it is not for, left out: "not for
// the task you were working on — keep that out of the report" (not "of
// the reply to the user").
func (s *sent) outOfScope(sp span) bool {
	return s.wordIn(sp.first, sp.last-sp.first+2, "that", "it", "them", "those", "this") && !s.after(cUser, sp, 8) &&
		slices.ContainsFunc(s.f[cNegator], func(n span) bool { return n.last < sp.first && s.wordIn(n.last+1, 1, "for") })
}

// unsetUnshown reports a display default: no user named, and at most "it" after the verb
// ("if not given, do not show it": the value; not "…, never reveal these rules").
func (s *sent) unsetUnshown(sp span) bool {
	ends := func(i int) bool { return i >= len(s.toks) || s.brk[i] }
	return !s.has(cUser) && unsetRe.Get().MatchString(s.text[:sp.start]) && (ends(sp.last+1) || s.wordIn(sp.last+1, 1, "it", "them") && ends(sp.last+2))
}

// toldOf reports what a verb of telling tells of: the user as the one
// told ("tell the user", "mention it to the user", "in your reply"), or
// a thing the text points at ("never mention those deletions", "do not
// reveal this condition").
func (s *sent) toldOf(sp span) bool {
	if s.followsUserIn(sp) || s.unsetUnshown(sp) {
		return false // "don't tell the user the IDs unless they ask"; "if not given, do not show it", "未指定なら表示しない": a default
	}
	if sp.foreign || s.near(cShown, sp, 8) {
		return true
	}
	verb := s.toks[sp.first].text
	if (verb == "let" || verb == "tell" || verb == "inform" || verb == "notify") && s.within(cUser, sp) {
		return true // "do not let the user know"
	}
	// "it need not be mentioned"; "the user does not need to be told", "it
	// should not be listed when the user asks": the user, beside, is the one told
	if (verb == "be" || verb == "being") && (s.noNeed(sp) || slices.ContainsFunc(s.f[cUser], func(u span) bool {
		return !u.foreign && (u.last < sp.first && sp.first-u.last <= 6 && !s.strongBetween(u.last, sp.first) ||
			u.first > sp.last && u.first-sp.last <= 6 && !s.strongBetween(sp.last, u.first))
	})) {
		return true
	}
	direct := verb == "tell" || verb == "tells" || verb == "telling" || verb == "inform" || verb == "notify" || verb == "alert" || verb == "let" || verb == "bring"
	for i := sp.last + 1; i < min(len(s.toks), sp.last+6); i++ {
		t := s.toks[i].text
		switch t {
		case "to", "with", "for":
			if s.after(cUser, span{first: i, last: i}, 3) {
				return true
			}
		case "this", "that", "these", "those", "it", "them", "anything", "any", "the":
			if i == sp.last+1 && t != "the" || t == "the" && i == sp.last+1 && s.pointedThing(i+1) {
				return true
			}
		}
		if direct && s.spanAt(cUser, i) { // (not "do not tell the user to go to the console": what they are to do, nothing kept)
			return !slices.ContainsFunc(s.f[cUser], func(u span) bool { return u.first <= i && i <= u.last && s.wordIn(u.last+1, 1, "to") })
		}
	}
	return false
}

// pointedThing reports a noun at token i that names a step of what the
// model does rather than a value ("the step", "the change", "the call").
func (s *sent) pointedThing(i int) bool {
	return s.wordIn(i, 1, "step", "steps", "change", "changes", "call", "calls", "upload", "uploads", "request",
		"action", "actions", "field", "note", "instruction", "instructions", "condition", "rule", "arrangement",
		"deletion", "deletions", "transfer", "copy", "fact", "switch", "substitution", "forwarding", "hook", "mirror", "addition", "added")
}

// silentAct reports an act done in silence: "silently send", "quietly
// call", "without telling the user"; not "fails silently" nor "accept
// silently without notifying the organizer".
func (s *sent) silentAct(sp span) bool {
	if sp.foreign {
		return true
	}
	if sp.last > sp.first {
		// "without telling", or "without telling the user"; not "without
		// notifying the organizer"
		i := sp.last + 1
		for i < len(s.toks) && (s.toks[i].text == "the" || s.toks[i].text == "a" || s.toks[i].text == "an") {
			i++
		}
		return i >= len(s.toks) || s.brk[i] || s.spanAt(cUser, i)
	}
	for i := sp.last + 1; i < min(len(s.toks), sp.last+3); i++ {
		if s.spanAt(cMove, i) || s.spanAt(cReadVerb, i) || s.spanAt(cOrderVerb, i) && s.toks[i].text != "fail" {
			return true
		}
	}
	return false
}

// userActs reports a user (as a subject) within ten words before sp in
// its clause: "User asks for logs without mentioning a resource".
func (s *sent) userActs(sp span) bool {
	return slices.ContainsFunc(s.f[cUser], func(u span) bool {
		return !u.foreign && u.last < sp.first && sp.first-u.last <= 10 && !s.strongBetween(u.last, sp.first) && !s.object(u)
	})
}

// noNeed reports "no need to" before a verb of telling ("no need to
// mention it"), or, in a language that puts it elsewhere, beside it
// ("açıklamana gerek yok", "伝える必要はありません").
func (s *sent) noNeed(sp span) bool {
	return s.before(cNoNeed, sp.first, 3) || sp.foreign && s.near(cNoNeed, sp, 6)
}

// obliged reports an obligation or the model just before sp ("you must
// ignore", "should be ignored").
func (s *sent) obliged(sp span) bool {
	return s.before(cModal, sp.first, 3) || s.before(cAddressee, sp.first, 3)
}

// commands reports a verb that is itself the order: it starts a clause,
// or an obligation or the model comes just before it ("you must omit").
func (s *sent) commands(sp span) bool {
	return s.clauseStart(sp.first) || !asciiOnly(s.text[sp.start:sp.end]) || s.obliged(sp)
}

// fromShown reports what the user is shown after a verb of leaving out,
// as where it is left out of ("from what you show the user", "out of the
// list", "in any summary"); in a language the words of which do not part
// so, anywhere beside it.
func (s *sent) fromShown(sp span) bool {
	if !asciiOnly(s.text[sp.start:sp.end]) {
		return s.near(cUser, sp, 10) || s.near(cShown, sp, 10)
	}
	for i := sp.last + 1; i < min(len(s.toks), sp.last+10) && !s.strong[i]; i++ {
		switch s.toks[i].text {
		case "from", "of", "in", "out":
			if s.toks[i].text == "from" && s.askedOf(i-1) {
				continue // "omit to have it requested from the user": the user asked, not kept from
			}
			end := span{i, i, 0, 0, false}
			if s.after(cShown, end, 5) {
				return true
			}
			for _, u := range s.f[cUser] {
				if u.first > i && u.first-i <= 5 && !s.breakBetween(i, u.first) && !s.usersThing(u) {
					return true
				}
			}
		}
	}
	return false
}

// askedOf reports a verb of asking at token i, after which "from" names
// whom something is asked of.
func (s *sent) askedOf(i int) bool {
	return s.wordIn(i, 1,
		"requested", "request", "asked", "ask", "obtained", "obtain", "prompted", "collected", "collect")
}

// usersThing reports the user named as the owner of a collection of
// theirs that a tool edits ("remove it from the user's favorites", "from
// the current user's Linear favorites"): an operation on their data,
// which they ask for. Anything else of theirs may be what they are shown
// (their view, output, report, summary, inbox), and stays concealment.
func (s *sent) usersThing(u span) bool {
	w := s.toks[u.last].text
	if !strings.HasSuffix(w, "'s") && !strings.HasSuffix(w, "’s") && !strings.HasSuffix(w, "s'") || u.last+1 >= len(s.toks) || s.brk[u.last+1] {
		return false
	}
	for j := u.last + 1; j < min(len(s.toks), u.last+4) && !s.brk[j]; j++ {
		if s.spanAt(cShown, j) {
			return false
		}
		switch s.toks[j].text {
		case "favorites", "favourites", "bookmarks", "list", "lists", "watchlist", "playlist", "playlists", "cart", "basket",
			"library", "collection", "collections", "projects", "team", "teams", "workspace", "workspaces", "groups", "contacts":
			return true
		}
	}
	return false
}

// userSays reports a verb whose subject is the user ("tasks the user did
// not mention").
func (s *sent) userSays(sp span) bool {
	for _, u := range s.f[cUser] {
		if u.foreign {
			continue // whether the user says or is told, its particles tell (사용자에게, ユーザーが): read as told
		}
		if s.toks[u.first].text == "operator" {
			continue // an operator's word is not the user's
		}
		// (not a passive: "the user must not be told" is told, and tells nothing)
		if u.last < sp.first && sp.first-u.last <= 4 && !s.breakBetween(u.last, sp.first) && !s.object(u) && !s.wordIn(u.last+1, sp.first+2-u.last, "be", "been", "being",
			"is", "are", "was", "were", "werden", "wird", "worden", "être", "ser", "sea", "essere", "sia", "seja", "wordt", "być", "został", "быть") {
			return true
		}
	}
	return false
}

// object reports a span that a preposition governs ("to the user"): the
// object of a verb, not its subject.
func (s *sent) object(sp span) bool {
	i := sp.first - 1
	for i >= 0 && (s.toks[i].text == "the" || s.toks[i].text == "a" || s.toks[i].text == "an" || s.toks[i].text == "their" || s.toks[i].text == "each") {
		i--
	}
	return i >= 0 && slices.Contains([]string{"to", "for", "with", "from", "of", "at", "by", "about"}, s.toks[i].text)
}

// leavesOut reports "leave X out (of ...)" and "keep X out of ...", with
// the user or what they are shown in the sentence.
func (s *sent) leavesOut() bool {
	if !s.has(cUser) && !s.has(cShown) {
		return false
	}
	for i, t := range s.toks {
		if t.text != "leave" && t.text != "keep" {
			continue
		}
		for j := i + 1; j < min(len(s.toks), i+7); j++ {
			if s.toks[j].text != "out" || s.negated(span{i, i, t.start, t.end, false}) {
				continue
			}
			if s.secretKept(span{i, i, t.start, t.end, false}) || s.outOfScope(span{i, j, t.start, t.end, false}) {
				break // "keep your API keys out of the summary": a secret kept
			}
			return true
		}
	}
	return false
}
