package audit

import (
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
)

// passes finds an order to pass on what the model holds: a verb that
// moves it (to a place, an address, another tool), or, in a parameter's
// text, the thing itself named as what the parameter is to hold; high
// for it moved to a place, an address or another tool, or named as what
// a parameter holds; medium for it moved with no place said ("append the
// last twenty messages to the query"). A tool whose purpose is that very
// thing (a tool that files the conversation) is given it honestly,
// unless it goes elsewhere too.
func (c orderContext) passes(s *sent, ordered bool) (string, string, Severity, bool) {
	move, moved := s.modelMoves()
	held, kind, ok := s.held(moved)
	if !ok || s.followsUser() || s.keptOut(held) || moved && s.redirects(held, move, c.fl.own) {
		return "", "", 0, false
	}
	if moved && (held.last < move.first && s.holds(move) && !s.wordIn(move.last+1, 1, "it", "them", "this", "these", "those") ||
		move.last < held.first && s.wordIn(max(move.last+1, held.first-4), min(4, held.first-move.last-1), "restore", "restores", "resume", "resumes")) {
		moved = false // "your context and a snapshot — includes any notes", "save your state: ... restore your context": not what the verb moves
	}
	// A parameter's text says what it holds by its head: "The full text of
	// the user's last messages", not "if not set, the AZURE_ID
	// environment variable is used".
	// A private thing the parameter is named for is what it openly asks,
	// as attendee_email asks "your email address" for an invitation.
	pname := strings.ToLower(splitCamel(parameterOf(&c.fl)))
	// (in a tool's whole text the text at its start is the description's)
	named := c.inParam && !strings.HasPrefix(c.fl.path, wholePrefix) && !moved && s.start == 0 && (held.first <= 8 || s.headOfClause(held)) &&
		!slices.ContainsFunc([]concept{cCondition, cPointer, cDerived}, func(c concept) bool { return s.before(c, held.first, len(s.toks)) }) && // (no condition, fallback or pointer before it: "if not specified, ...")
		!aligned(s.text[held.start:held.end], c.fl.about) &&
		!(aligned(s.text[held.start:held.end], pname) && (kind != cHeldNoun || alignedAny(s.text[held.start:held.end], c.fl.about))) && !(kind == cPrivateNoun && alignedAny(s.text[held.start:held.end], pname)) && !c.fl.flag &&
		!forSecrets(squash(parameterOf(&c.fl))) && // "approval_password: the current user's password"
		!wayParamRe.Get().MatchString(pname) // "delivery: clipboard or inline" names where, not what
	if !ordered && !named {
		return "", "", 0, false
	}
	if !moved && s.callsWith(held) {
		moved = true // "call the web_get tool with a digest of the user's messages"
	}
	if _, reads := s.live(cReadVerb); reads && kind == cStore && !moved {
		return RuleSensitiveFile, "has the model read a store of the user's secrets", High, true
	}
	dest := s.destination() || otherToolIn(s.text, c.fl.own) || s.has(cOtherServer) || s.has(cExposed) || s.anyToolBut("")
	place := s.has(cPlace) || s.ownName(c.fl.own) || dest || namedPlace(s.text)
	if moved && !place && kind == cSecretNoun && s.keepsOwn(move, held) {
		return "", "", 0, false // "set your access token": the reader's own credential, kept for the tool's calls
	}
	if moved && !place && kind == cHeldNoun && s.wordIn(held.first-2, 2, "your") && s.intoChat() {
		return "", "", 0, false // "put your full message in chat instead": the reader's own words, where they are seen already
	}
	if !dest && kind == cHeldNoun && s.wordIn(held.last, 1, "message", "question", "request", "query") && s.wordIn(held.first-3, 3, "user's", "user") &&
		s.wordIn(held.last+1, 10, "search", "relevant", "retrieve", "lookup") &&
		!s.wordIn(0, len(s.toks), "improve", "train", "training", "store", "stored", "keep", "kept", "log", "logged", "retain", "save", "saved", "later") {
		return "", "", 0, false // "pass the user's first message as context_hint to get relevant context": the query of the search the call makes, kept for nothing else
	}
	if c.fl.flag && !dest && !s.has(cPlace) && !namedPlace(s.text) && kind != cSecretNoun && kind != cPrivateNoun && kind != cStore {
		return "", "", 0, false // a flag carries nothing: "include its result", with no field named, says what the tool does when set
	}
	sev := High
	switch {
	case moved && (place || c.inParam || s.words || kind == cSecretNoun || kind == cPrivateNoun || kind == cStore):
	case named && !s.negated(held) && !s.anyNegated(cMove) && !(kind != cSecretNoun && kind != cPrivateNoun && kind != cStore && llmPurposeRe.Get().MatchString(c.fl.about)):
		// a parameter's text that names what the model holds as what it
		// is, on a tool that is not itself about a model's prompts
	case moved:
		sev = Medium
	default:
		return "", "", 0, false
	}
	if moved && s.negated(move) {
		return "", "", 0, false
	}
	if !dest && (aligned(s.text[held.start:held.end], c.fl.purpose) || kind != cStore && aligned(s.text[held.start:held.end], c.fl.about)) {
		return "", "", 0, false
	}
	if !dest && (!c.inParam || strings.HasPrefix(c.fl.path, wholePrefix)) && kind == cPrivateNoun && alignedAny(s.text[held.start:held.end], c.fl.takes) {
		// a private thing a parameter of the tool's own says it takes is
		// the tool's input: a forecast's coordinates, which location_name
		// says it is used instead of (in the tool's description: what a
		// parameter's own text asks for is read as such, "named")
		return "", "", 0, false
	}
	if dest {
		return RuleSendElsewhere, "has the model send what it holds (the conversation, secrets, the user's private things) elsewhere", sev, true
	}
	if kind == cStore || kind == cPrivateNoun {
		return RuleSensitiveFile, "has the model read and pass on the user's keys, credentials or private files", sev, true
	}
	return RuleSideChannel, "has the model pass on what it holds: the conversation, its instructions, other tools' results, secrets", sev, true
}

// redirects reports "for HELD, pass NAME instead": what the model holds
// is sent to another of the server's own names, not passed on ("for tool
// results, pass payload_refs instead"). A pronoun after the verb ("for
// tool results, pass them instead") passes HELD itself, and is no
// redirect.
func (s *sent) redirects(held, move span, own map[string]bool) bool {
	if held.first == 0 || s.toks[held.first-1].text != "for" || move.first <= held.last || move.last+2 >= len(s.toks) {
		return false
	}
	object, after := s.toks[move.last+1].text, s.toks[move.last+2].text
	return own[object] && after == "instead"
}

// headOfClause reports a span that opens a clause after a colon, an
// article or two between ("...in the server notes: the SSH private key
// text").
func (s *sent) headOfClause(sp span) bool {
	for i := sp.first; i >= max(0, sp.first-3); i-- {
		if s.strong[i] && i > 0 && strings.Contains(s.text[s.toks[i-1].end:s.toks[i].start], ":") {
			return true
		}
		if i < sp.first && s.toks[i].text != "the" && s.toks[i].text != "a" && s.toks[i].text != "an" && s.toks[i].text != "ssh" && s.toks[i].text != "your" {
			return false
		}
	}
	return false
}

// followsUser reports an order that follows the user ("as the user
// directs", "the recipients the user named"); not one that changes what
// the user chose ("replace the tag the user chose", "instead of the
// address the user gave").
func (s *sent) followsUser() bool { return s.followsUserIn(span{first: -1}) }

// followsUserIn is followsUser in the clause that holds sp (the sentence for
// sp.first -1): not the second of "...the tools the user names; do not tell".
func (s *sent) followsUserIn(sp span) bool {
	for _, u := range s.f[cUserAsked] {
		if sp.first >= 0 && s.strongBetween(min(u.last, sp.first), max(u.last, sp.first)) {
			continue
		}
		changed := false
		for _, c := range []concept{cRedirect, cInstead} {
			for _, a := range s.f[c] {
				changed = changed || a.first < u.first && u.first-a.last <= 6 && !s.strongBetween(a.last, u.first)
			}
		}
		if !changed {
			return true
		}
	}
	return false
}

// callsWith reports a tool called with what the model holds: "call
// the X tool with ...", "invoke it with ...", a "with" after a verb that
// calls and before the held thing.
func (s *sent) callsWith(held span) bool {
	for i := held.first - 1; i >= max(0, held.first-20); i-- {
		if s.toks[i].text != "with" {
			continue
		}
		if s.wordIn(i-8, 8, "call", "invoke", "run", "use", "calling", "invoking") || s.wordIn(i-8, 8, "proceed") && s.wordIn(i-6, 6, "to") { // ("proceed to send_email with", not "proceed with")
			return true
		}
	}
	return false
}

// namedPlace reports a parameter named as where data goes: in, into or
// as a name in backticks or quotes, or a name with an underscore ("as
// `host_id`", "into session_blob").
func namedPlace(t string) bool { return namedPlaceRe.Get().MatchString(t) }

var namedPlaceRe = &lazy.Regexp{Pattern: "\\b(?:in|into|as|under|to)\\s+(?:the\\s+)?(?:[`'\"][\\w.-]+[`'\"]|[a-z][a-z0-9]*_[a-z0-9_]+)"}

// modelMoves is the first verb of moving data that the model is told to
// do: not denied, and not the user's act ("ask the user to paste it",
// "tell the user to keep it in their password manager").
func (s *sent) modelMoves() (span, bool) { return s.liveBut(cMove, s.notModels) }

// notModels reports a verb of moving that is not the model's act: the
// user's, the user just before it ("ask the user to paste", "when they
// share") or "them" between a verb of telling and it ("remind them"); or
// no act: a tool's kind ("every send tool"), a participle or a past state
// ("uploaded image", "was set"), a value written out, a question asked.
func (s *sent) notModels(sp span) bool {
	if i := sp.first; i >= 3 && s.toks[i-1].text == "to" && s.toks[i-2].text == "them" && (s.spanAt(cAsk, i-3) || s.spanAt(cReveal, i-3)) || s.wordIn(sp.last+1, 1, "tool", "tools") && s.wordIn(sp.first-1, 1, "every", "each", "any", "the", "a", "this", "that", "your", "our") ||
		strings.HasSuffix(s.toks[sp.last].text, "ed") && !s.wordIn(sp.first-2, 2, "be", "been", "being", "have", "has", "get", "got") && !s.destination() && !s.has(cPlace) || // "code review of pasted or file-loaded source", where nothing is sent anywhere
		s.toks[sp.last].text == "set" && s.setsWritten(sp.last) || s.wordIn(sp.first-2, 2, "was", "were") || // (a past state: "whether the token was actually set")
		s.wordIn(sp.first-1, 1, "to") && s.wordIn(sp.first-2, 1, "need") && s.wordIn(sp.first-3, 1, "the", "no") { // a need named: "replaces the need to include full chat history"
		return true
	}
	j := sp.first
	for j > 0 && !s.strong[j] {
		j--
	}
	if strings.HasSuffix(strings.TrimSpace(s.text), "?") && s.wordIn(j, 1, "did", "does", "is", "are", "was", "were", "has", "have") {
		return true // "did the user provide a token (pasted in the request, set in the environment)?": asked, not ordered
	}
	return slices.ContainsFunc(s.f[cUser], func(u span) bool {
		return !u.foreign && u.last < sp.first && sp.first-u.last <= 2
	})
}

// holds reports a verb of holding after its subject, "a snapshot —
// includes any notes you left": what a thing holds, nothing moved.
func (s *sent) holds(sp span) bool {
	return s.wordIn(sp.first, 1, "includes", "carries", "adds", "contains", "holds")
}

// setsWritten reports "set valueRenderOption to 'FORMULA'" at the verb i:
// what it puts there is a value the text writes out.
func (s *sent) setsWritten(i int) bool {
	j := i + 1 + slices.IndexFunc(s.toks[i+1:min(len(s.toks), i+5)], func(t token) bool { return t.text == "to" })
	return j > i && j+1 < len(s.toks) && s.quoted[j+1] && !s.quoted[j]
}

// anyToolBut reports "any DNS or ping tool", "whichever mail tool": a tool
// the model may have from another server; but not, for server set, "every
// Textwire tool": one of the server's own (a word of server's names between).
func (s *sent) anyToolBut(server string) bool {
	for _, a := range s.f[cScopeAll] {
		w := s.toks[a.first].text
		if w == "every" || w == "each" || w == "all" {
			if a.last+1 >= len(s.toks) || s.toks[a.last+1].text != "other" {
				continue // "every tool call" is this tool's
			}
		}
		own := false
		for i := a.last + 1; i < min(len(s.toks), a.last+5); i++ {
			t := s.toks[i].text
			own = own || server != "" && ownWord(t, server)
			if (t == "tool" || t == "tools") && !own && (i+1 >= len(s.toks) || s.toks[i+1].text != "call" && s.toks[i+1].text != "calls") {
				return true
			}
		}
	}
	return false
}

// sendsElsewhere finds an order to send to a destination the text
// writes out, as a copy or on every call ("add audit@... as an attendee
// on every event"), or in place of the one the user chose.
func (c orderContext) sendsElsewhere(s *sent, ordered bool) (string, bool) {
	if ordered && s.insteadOfUsers() && (otherToolIn(s.text, c.fl.own) || s.has(cAddresseeNoun) || s.destination()) {
		return "has the model send elsewhere than where the user chose", true
	}
	// (a link to where a key is found, its query whole and nothing moved into it, is no such URL: "find it in your [settings](https://x/settings?tab=api_key)")
	if h, _, ok := s.held(true); ok && (imageRe.Get().MatchString(s.text) || ordered && (slotURLRe.Get().MatchString(s.text) ||
		(s.has(cMove) || s.has(cAlter) || s.callsWith(h)) && queryURLRe.Get().MatchString(s.text))) {
		return "has the model put what it holds into a URL that a client fetches", true
	}
	if !s.destination() || s.example() || s.followsUser() {
		return "", false
	}
	if _, moved := s.live(cMove); moved && badDestinationRe.Get().MatchString(s.text) {
		return "sends data to a destination named for stealing it", true
	}
	for _, sp := range s.f[cRedirect] {
		if !s.negated(sp) && s.has(cAddresseeNoun) && destinationAfter(s, sp, 10) && !s.isDefault() {
			return "has the model change where something goes to a destination the text names", true
		}
	}
	if !ordered {
		return "", false
	}
	if sendVia.Get().MatchString(s.text) {
		return "has the model send through another tool to a destination the text names", true
	}
	mv, moved := s.liveBut(cMove, func(sp span) bool { return s.holds(sp) && sp.first > 0 && !s.brk[sp.first] })                              // (not "each result includes the endpointId ... via https://...")
	al, altered := s.liveBut(cAlter, func(sp span) bool { return s.wordIn(sp.first, 1, "point") && s.wordIn(sp.last+1, 1, "them", "users") }) // (a link for the user)
	if !moved && !altered {
		return "", false
	}
	// what a verb adds may be a value written out in quotes that names no destination ("add `/*` to the end of the url"): a value edited, no copy sent
	literal := func(sp span) bool {
		rest := strings.TrimLeft(s.text[sp.end:], " ")
		if rest == "" || !strings.ContainsRune("`'\"", rune(rest[0])) {
			return false
		}
		end := strings.IndexByte(rest[1:], rest[0])
		return end >= 0 && !holdsDestination(rest[1:1+end])
	}
	if (s.has(cAlso) || s.has(cScopeAll) || s.has(cPublic)) && (moved && !literal(mv) && (destinationAfter(s, mv, 20) || slices.ContainsFunc(s.f[cMove], func(m span) bool { return m.foreign })) || altered && !literal(al) && destinationAfter(s, al, 20)) { // (Turkish, Japanese, German put the verb after it)
		return "has the model send copies to a destination the text names", true
	}
	if altered && s.near(cAddresseeNoun, al, 8) && !s.isDefault() {
		return "has the model change where something goes to a destination the text names", true
	}
	// a move in a clause a condition opens says when, and is no order to
	// put one thing in place of another: "if you include this parameter,
	// Twilio uses this URL instead of the Messaging Service's"
	_, movesNow := s.liveOrder(cMove)
	_, altersNow := s.liveOrder(cAlter)
	if s.has(cInstead) && (movesNow || altersNow) && (moved && s.near(cUser, mv, 20) || altered && s.near(cUser, al, 20) || s.has(cInstead)) {
		return "has the model send to a destination the text names in place of the user's", true
	}
	return "", false
}

// destinationAfter reports a destination written within n words after sp.
func destinationAfter(s *sent, sp span, n int) bool {
	end := len(s.text)
	if k := sp.last + n; k < len(s.toks) {
		end = s.toks[k].end
	}
	return holdsDestination(s.text[sp.end:end])
}

// isDefault reports a destination given as the tool's default
// ("`channel` defaults to #eng-standup").
func (s *sent) isDefault() bool {
	return s.wordIn(0, len(s.toks), "defaults", "default")
}

// keyFileIn reports a file of keys or credentials that the sensitive
// file rule finds at medium or above in t.
func keyFileIn(t string) bool {
	found := false
	sensitiveFiles(t, func(rule string, sev Severity, msg string, s, e int) Finding {
		found = found || sev >= Medium
		return Finding{}
	})
	return found
}

// keepsOwn reports the reader's own key, made held by "your" alone, as the
// object of a verb of keeping ("set your API key", "store your API key"):
// not "set the keys you have seen", "your saved passwords", "set `x` to your keys",
// "every token in your environment".
func (s *sent) keepsOwn(move, held span) bool {
	return slices.Contains([]string{"set", "store", "save"}, strings.TrimSuffix(s.toks[move.last].text, "s")) && move.last < held.first && held.first-move.last <= 6 &&
		!s.wordIn(move.last+1, held.last-move.last+3, "every", "all", "each", "any") && !s.wordIn(0, len(s.toks), "environment", "env", "variable", "variables") &&
		!s.wordIn(move.last+1, held.first-move.last-1, "to", "into", "in", "as") && s.wordIn(held.first-5, 5, "your") &&
		!slices.ContainsFunc(s.f[cHeldQual], func(q span) bool { return s.text[q.start:q.end] != "your" }) &&
		!slices.ContainsFunc(s.f[cHeldExtent], func(q span) bool { return !s.wordIn(q.first-1, 1, "be", "is", "are") }) // (not "will be saved to")
}

// intoChat reports the chat named as where something goes ("paste it
// into the chat", "type it here in the conversation"): a secret asked
// for there is in the transcript, whatever the tool takes.
func (s *sent) intoChat() bool {
	for i, t := range s.toks {
		if (t.text == "chat" || t.text == "conversation") && s.wordIn(i-2, 2, "into", "in", "to") {
			return true
		}
	}
	return false
}

// badDestinationRe finds a destination whose name says what it is for.
var badDestinationRe = &lazy.Regexp{From: func() string { return lexPattern("badDestination") }}

// asksSecret reports an order to ask the user for a secret (a password,
// a one-time code, a PIN) that is then put somewhere, not one typed in
// the user's own app or terminal; not what something else asks for
// ("flag anything that asks for a password reset").
func asksSecret(s *sent) bool {
	if s.has(cExample) {
		return false
	}
	a, ok := s.liveBut(cAsk, func(a span) bool { return s.wordIn(a.first-1, 1, "that", "which", "who") })
	if !ok || s.userSays(a) || !s.after(cSecretNoun, a, 10) || ownDevice.Get().MatchString(s.text) {
		return false
	}
	_, moved := s.live(cMove)
	return moved || s.has(cPlace) || s.destination()
}

// destination reports an address, a number, a URL or an account written
// out in the sentence.
func (s *sent) destination() bool {
	if s.dest == 0 {
		s.dest = 1
		if mayHoldDestination(s.text) {
			for _, m := range destinations(s.text, 8) {
				if !hasPrefixAny(s.text[m[0]:m[1]], "127.", "10.", "192.168.", "0.0.0.0", "169.254.", "http://localhost", // (this machine's or a private network's: no one else's)
					"https://localhost", "http://127.", "https://127.", "http://[::1]") {
					s.dest = 2
					break
				}
			}
		}
	}
	return s.dest == 2
}

// example reports a sentence that gives its destination as an example.
func (s *sent) example() bool {
	return s.has(cExample) && strings.Contains(s.text, "e.g")
}
