package audit

import (
	"slices"
	"strings"
	"sync"
)

// The order rules find what a text orders the model to do that the user
// did not ask for: to pass on what it holds (the conversation, its
// prompt, other tools' results, the user's secrets and private things),
// to keep something from the user or tell them what is not so, to drop
// the user's consent, to take another role or set aside what it was
// told, to change how other tools and other servers' tools are used. A
// text is read a sentence at a time, by the ideas it holds (concepts.go);
// an idea that a negator denies does not count, and an order that
// protects the user ("never repeat the value", "do not act without
// asking") is none of these. A finding is high only for an order: a
// sentence that addresses the model, obliges it, or starts with a verb
// that commands; or the text of a parameter, which says what the model
// is to put there.

// sent is one sentence of a view, its words and the ideas found in it.
type sent struct {
	sentence
	toks []token
	brk  []bool // brk[i]: a clause ends between toks[i-1] and toks[i]
	// strong[i]: a stronger end (";", ":", a line's end) than a comma or
	// a parenthesis, which lists and asides make
	strong []bool
	f      *found
	// words: the sentence is the words of a name or a value, which say
	// what a parameter holds or what the model is to do
	words bool
	// quoted[i]: toks[i] is inside quotes, where a negator denies nothing
	// of the sentence's ("report 'no incidents'")
	quoted []bool
	// dest: whether the sentence writes out a destination (0: not yet
	// known, 1: no, 2: yes)
	dest int8
}

// release gives the sentence's spans back for another sentence to use;
// s is not read after (nil: nothing to give).
func (s *sent) release() {
	if s == nil || s.f == nil {
		return
	}
	for c := range s.f {
		s.f[c] = s.f[c][:0]
	}
	foundPool.Put(s.f)
	s.f = nil
}

// foundPool keeps the spans of sentences read, for the next to fill.
var foundPool = sync.Pool{New: func() any { return new(found) }}

func newSent(s sentence) *sent {
	st := &sent{sentence: s, toks: tokenize(s.text)}
	st.brk = make([]bool, len(st.toks))
	st.strong = make([]bool, len(st.toks))
	for i := range st.toks {
		if i == 0 {
			st.brk[i], st.strong[i] = true, true
			continue
		}
		gap := s.text[st.toks[i-1].end:st.toks[i].start]
		st.brk[i] = strings.ContainsAny(gap, ".!?,;:()[]{}<>|*#—–\n\"“”«»") || strings.Contains(gap, " - ")
		st.strong[i] = strings.ContainsAny(gap, ";:\n") || strings.Contains(gap, " - ") || strings.Contains(gap, ". ")
	}
	st.f = concepts.Get().match(s.text, st.toks)
	starts := make([]int, len(st.toks))
	for i, t := range st.toks {
		starts[i] = t.start
	}
	st.quoted = quotedAt(s.text, starts)
	st.dropQuotedWords()
	st.readForms()
	return st
}

// readForms reads what the words' forms say: a verb followed by "Sie"
// at a clause's start is German's polite order ("Senden Sie", "Lesen
// Sie"), though the verb's start is an English term's (send*); the word
// "example" inside a URL ("log.example.net/api") makes nothing an example.
func (st *sent) readForms() {
	var urls [][2]int
	for from := 0; ; {
		i := strings.Index(st.text[from:], "://")
		if i < 0 {
			break
		}
		a, b := tokenStart(st.text, from+i), tokenEnd(st.text, from+i)
		urls = append(urls, [2]int{a, b})
		from = b
	}
	st.f[cExample] = slices.DeleteFunc(st.f[cExample], func(sp span) bool {
		return slices.ContainsFunc(urls, func(u [2]int) bool { return sp.start >= u[0] && sp.end <= u[1] })
	})
	for _, c := range []concept{cOrderVerb, cMove, cAlter, cRedirect, cReveal, cReadVerb} { // a verb's word between an article and "of" is a noun: "a set of tools" (but "make a copy of" copies)
		st.f[c] = slices.DeleteFunc(st.f[c], func(sp span) bool {
			return sp.first == sp.last && st.wordIn(sp.first-1, 1, "a", "an", "the") && st.wordIn(sp.last+1, 1, "of") && !st.wordIn(sp.first-2, 1, "make", "makes", "keep", "keeps", "take", "takes", "leave", "leaves", "create", "creates")
		})
	}
	for c := range st.f {
		for i, sp := range st.f[c] {
			st.f[c][i].foreign = sp.foreign || st.brk[sp.first] && sp.last+1 < len(st.toks) && st.toks[sp.last+1].text == "sie"
		}
	}
}

// dropQuotedWords leaves out the ideas found in a quoted word or two
// ('embed', 'users'): a value named, not words the sentence says. A
// longer quotation is read: what it says may be the order.
func (st *sent) dropQuotedWords() {
	short := make([]bool, len(st.toks))
	for i := 0; i < len(st.toks); {
		if !st.quoted[i] {
			i++
			continue
		}
		j := i
		for j < len(st.toks) && st.quoted[j] && (j == i || !st.brk[j] || !strings.ContainsAny(st.text[st.toks[j-1].end:st.toks[j].start], "'\"“”‘’«»`")) {
			j++
		}
		if j-i <= 2 {
			for k := i; k < j; k++ {
				short[k] = true
			}
		}
		i = j
	}
	for c := range st.f {
		st.f[c] = slices.DeleteFunc(st.f[c], func(sp span) bool { return !sp.foreign && short[sp.first] && short[sp.last] })
	}
}

func (s *sent) has(c concept) bool { return len(s.f[c]) > 0 }

// keptOut reports what the model holds named in a clause that denies it
// ("so the value never passes through the conversation"), or as the
// subject of a denied leaving ("so your account key never leaves this
// machine", "the token is never sent", no move after it): the text keeps
// something out of it, where "never forget to include the conversation"
// (a verb of failing turns the negator round) does not.
func (s *sent) keptOut(held span) bool {
	// "keep your API keys out of the report" (not "never leave the keys out of the note")
	if held.last+1 < len(s.toks) && (s.toks[held.last+1].text == "out" || held.last+2 < len(s.toks) && s.toks[held.last+2].text == "out") {
		for i := max(0, held.first-4); i < held.first; i++ {
			if s.wordIn(i, 1, "keep", "keeps", "leave", "leaves") && !s.negated(span{i, i, s.toks[i].start, s.toks[i].end, false}) && !s.breakBetween(i, held.first) {
				return true
			}
		}
	}
	for _, n := range s.f[cNegator] {
		if n.first > held.last && n.first-held.last <= 2 && s.wordIn(n.last+1, 2, "leaves", "leave", "left", "goes", "exits", "sent", "shared") &&
			!slices.ContainsFunc(s.f[cMove], func(o span) bool { return o.first > n.last+1 }) { // (not "... unless you paste it into notes")
			return true
		}
		if n.last < held.first && held.first-n.last <= 6 && !s.breakBetween(n.last, held.first) && !s.quoted[n.first] && !s.wordIn(n.last+1, 1, "forget", "fail", "neglect", "hesitate", "omit", "skip", "miss", "leave") {
			return true
		}
	}
	return false
}

// negated reports a span that a negator denies: one in the three words
// before it, in its clause (or before a verb joined to it by "or", "and",
// "nor": "never display this value or mention that it exists"), or, in
// Japanese and Korean, a denial right after it.
func (s *sent) negated(sp span) bool {
	for _, n := range s.f[cNegator] {
		if s.quoted[n.first] && !s.quoted[sp.first] || s.wordIn(n.last+1, 1, "is", "are", "was", "were") && s.wordIn(n.last+2, sp.first-n.last-2, "and") {
			continue // (not "tell the user nothing is selected and ask them": the negator is its own verb's subject)
		}
		if n.last < sp.first && !s.breakBetween(n.last, sp.first) && (sp.first-n.last <= 3 || sp.first-n.last <= 10 && s.joined(n.last, sp.first)) {
			return true
		}
		if n.last < sp.first && sp.first-n.last <= 6 && !s.strongBetween(n.last, sp.first) && s.joined(n.last, sp.first) && !s.quoted[n.first] {
			return true // a list of verbs: "never opened, read or transmitted"
		}
		if sp.foreign && n.last < sp.first && sp.first-n.last <= 6 && !s.breakBetween(n.last, sp.first) && (sp.last+1 == len(s.toks) || s.brk[sp.last+1]) {
			return true // a verb put last: "nicht in der Zusammenfassung erwähnen"
		}
	}
	if slices.ContainsFunc(s.f[cNegAfter], func(n span) bool { return n.start >= sp.end && n.start-sp.end <= 9 }) {
		return true
	}
	if sp.foreign && sp.first == sp.last {
		// a script with no spaces: a negator a few characters before the
		// verb, in the same run of text ("不要在回复中提及")
		if slices.ContainsFunc(s.f[cNegator], func(n span) bool {
			return n.foreign && n.end <= sp.start && sp.start-n.end <= 12 && !strings.ContainsAny(s.text[n.end:sp.start], "，。；：,;:")
		}) {
			return true
		}
	}
	if sp.foreign {
		// "Sag es dem Benutzer nicht", "Erwähne diesen Schritt dem Benutzer
		// gegenüber nicht", "ne dis pas": a negator after the verb, in its
		// clause
		for _, n := range s.f[cNegator] {
			// German ends its clause with the negator, a verb's objects
			// between: "nicht" is read further off
			reach := 4
			if w := s.toks[n.first].text; w == "nicht" || w == "nie" || w == "niemals" {
				reach = 7
			}
			if n.first > sp.last && n.first-sp.last <= reach && !s.breakBetween(sp.last, n.first) && !s.quoted[n.first] {
				return true
			}
		}
	}
	return false
}

// joined reports a word "or", "and" or "nor" between tokens a and b: the
// verb at b is one of a list that a negator before a denies.
func (s *sent) joined(a, b int) bool {
	return s.wordIn(a+1, b-a-1,
		"or", "nor", "and", "to", "ni", "ou", "oder", "o", "of", "lub", "или", "або", "veya")
}

// breakBetween reports a clause's end between tokens a and b.
func (s *sent) breakBetween(a, b int) bool { return anyBetween(s.brk, a, b) }

// anyBetween reports a flag set for a token after a, up to b.
func anyBetween(flags []bool, a, b int) bool {
	return a < b && a+1 < len(flags) && slices.Contains(flags[a+1:min(b+1, len(flags))], true)
}

// live is the first span of c that no negator denies.
func (s *sent) live(c concept) (span, bool) { return s.liveBut(c, nil) }

// liveBut is the first span of c that no negator denies and, when but is
// set, but does not report.
func (s *sent) liveBut(c concept, but func(span) bool) (span, bool) {
	for _, sp := range s.f[c] {
		if !s.negated(sp) && (but == nil || !but(sp)) {
			return sp, true
		}
	}
	return span{}, false
}

// liveOrder is the first span of c that no negator denies and no
// condition opens.
func (s *sent) liveOrder(c concept) (span, bool) { return s.liveBut(c, s.conditional) }

// near reports a span of c within n words of sp, on either side.
func (s *sent) near(c concept, sp span, n int) bool {
	return slices.ContainsFunc(s.f[c], func(o span) bool { return o.first <= sp.last+n && o.last >= sp.first-n })
}

// before reports a span of c that ends before token i, within n words.
func (s *sent) before(c concept, i, n int) bool {
	return slices.ContainsFunc(s.f[c], func(o span) bool { return o.last < i && i-o.last <= n })
}

// after reports a span of c that starts after sp, within n words.
func (s *sent) after(c concept, sp span, n int) bool {
	return slices.ContainsFunc(s.f[c], func(o span) bool { return o.first > sp.last && o.first-sp.last <= n })
}

// qualified reports a word of c that says whose a thing is: before it,
// within five words ("the user's last messages", "your system
// prompt"); or after it, within six, as a phrase or a participle ("keys
// you have seen", "numbers mentioned in the conversation", "tokens
// visible to you").
func (s *sent) qualified(c concept, sp span) bool {
	if c == cHeldExtent && sp.last+1 < len(s.toks) {
		switch s.toks[sp.last+1].text {
		case "text", "contents", "content", "material", "bytes", "pem":
			return true // "the private key text"
		}
	}
	for _, q := range s.f[c] {
		if s.negated(q) {
			continue // "notes (not shared with the recipient)"
		}
		switch {
		case q.last < sp.first:
			if s.toks[q.first].text == "shared" || c == cHeldWeak && (s.wordIn(q.first-1, 1, "a", "an") || s.toks[q.first].text == "their" && s.wordIn(q.first-1, 1, "with")) {
				continue // before its noun, an adjective: "a shared drive", "shared extended properties"; one of a kind: "a prior output"; a thing's own: "images with their caption files"
			}
			if sp.first-q.last <= 5 {
				return true
			}
		case q.first > sp.last:
			w := s.toks[q.first].text
			if q.first-sp.last <= 6 && (q.last > q.first || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ble") || q.foreign) {
				return true
			}
		default:
			return true // the one holds the other
		}
	}
	return false
}

// publicKey reports a key that is public ("the user's public key
// file"): no secret.
func (s *sent) publicKey(sp span) bool {
	if sp.first > 0 && s.toks[sp.first-1].text == "public" || strings.Contains(s.text[sp.start:min(len(s.text), sp.end+5)], ".pub") {
		return true
	}
	t := s.text[sp.start:sp.end]
	return (strings.Contains(t, "key") || strings.Contains(t, "file")) && (strings.Contains(s.text, "public key") || strings.Contains(s.text, ".pub"))
}

// where reports what the model holds named as where something goes or
// stays ("paste it into the chat", "returned only to this
// conversation", "save it in your password manager", "at the top of
// your JSON file", "in your project-level `/build.gradle.kts` file": a
// name in code marks is one word), not as what is moved.
func (s *sent) where(sp span) bool {
	for i, n := sp.first-1, 0; i >= 0 && n < 4; i-- {
		if s.wordIn(i, 1, "into", "in", "to", "inside", "within", "throughout", "during") || s.wordIn(i, 1, "of") && s.wordIn(i-1, 1, "top", "bottom") && s.wordIn(i-3, 2, "at") {
			return true
		}
		if s.spanAt(cMove, i) && !(s.wordIn(i-1, 1, "to") && s.wordIn(i-5, 4, "edit", "update", "modify", "change")) {
			return false // a verb of moving before it moves it: "set mode to fast and include the conversation" ("edit run.sh to include your key" says what the file will hold) ("edit run.sh to include your key" says what the file holds)
		}
		if i+1 == sp.first || !s.quoted[i] || !s.quoted[i+1] {
			n++
		}
	}
	return false
}

// source reports the conversation named as the source of a value ("copied
// exactly from the user's message"), not as what is copied.
func (s *sent) source(sp span) bool {
	return s.wordIn(sp.first-3, 3, "from")
}

// ordered reports a sentence that orders the model: it addresses the
// model, obliges it, is introduced as a note or an instruction, or a
// clause of it starts with a verb in its bare form (English).
func (s *sent) ordered() bool {
	for _, c := range []concept{cAddressee, cModal, cMarker} {
		if slices.ContainsFunc(s.f[c], func(sp span) bool { return !s.quoted[sp.first] }) {
			return true // a quoted "must" orders nothing of this sentence's
		}
	}
	if slices.ContainsFunc(s.f[cOrderVerb], func(sp span) bool { return s.clauseStart(sp.first) }) {
		return true
	}
	// A verb of the lexicons' other languages is in the form an order
	// takes: "copia en el campo", "lees vooraf", "skopiuj".
	for _, c := range []concept{cMove, cReadVerb, cReveal, cIgnore, cAlter, cOmit} {
		if slices.ContainsFunc(s.f[c], func(sp span) bool { return sp.foreign }) {
			return true
		}
	}
	return false
}

// leaders are the words an order may start with before its verb.
var leaders = map[string]bool{"then": true, "and": true, "also": true, "first": true, "please": true, "always": true, "just": true,
	"simply": true, "instead": true, "afterwards": true, "finally": true, "next": true, "now": true, "immediately": true, "quietly": true,
	"silently": true, "secretly": true, "additionally": true, "still": true, "only": true, "kindly": true, "right": true, "away": true,
	"never": true, "not": true, "do": true, "don't": true, "dont": true}

// clauseStart reports a token that starts a clause, leading words aside,
// or that follows a short phrase fronted before it ("for accuracy pass
// the keys", "before answering call the tool").
func (s *sent) clauseStart(i int) bool {
	for i > 0 && !s.brk[i] && (leaders[s.toks[i-1].text] || strings.HasSuffix(s.toks[i-1].text, "ly")) {
		i--
	}
	if s.brk[i] {
		return true
	}
	for j := i - 1; j >= max(0, i-5); j-- {
		if s.brk[j] {
			// (the phrase's own word is none: "when omitted, the output is returned")
			return fronting[s.toks[j].text] && (j < i-1 || s.toks[j].text == "then")
		}
	}
	return false
}

// fronting are the words a short phrase put before an order starts with.
var fronting = map[string]bool{"for": true, "to": true, "before": true, "after": true, "when": true, "once": true, "on": true,
	"at": true, "during": true, "then": true, "in": true, "with": true, "upon": true, "whenever": true}

// ownPlace reports a secret that a chain hands on (a token another tool
// returned) to the parameter named for it, or the word that names that
// parameter: "pass the token login returns
// as the token parameter" is how a login's session reaches the calls
// after it, not the model's own secret moved.
func (s *sent) ownPlace(c concept, sp span) bool {
	if c != cSecretNoun || s.qualified(cHeldQual, sp) {
		return false
	}
	w := s.toks[sp.last].text
	for _, p := range s.f[cPlace] {
		if p.first == sp.last+1 {
			return true // the place's name: "the token parameter"
		}
		for k := max(p.first-2, sp.last+1); k < p.first; k++ {
			if s.toks[k].text == w {
				return true
			}
		}
	}
	return false
}

// placeForSecret reports a parameter or field named for a secret: "the
// api_key parameter", "the token field".
func (s *sent) placeForSecret() bool {
	return slices.ContainsFunc(s.f[cPlace], func(p span) bool { return s.before(cSecretNoun, p.first, 1) })
}

// held finds what the model holds named in a sentence, and the concept
// that named it: a name that needs nothing more (the transcript, the
// system prompt, the clipboard), or a thing it may hold (messages,
// results, a secret, the user's private things) beside what makes it the
// model's (the user's last, in this conversation, you have seen); or,
// when weak, beside what makes it the model's only as an order moves it
// (the last result, another tool's output). A thing drawn from ("based on
// the conversation", "a default comes from the user's config") is no copy of it.
func (s *sent) held(weak bool) (span, concept, bool) {
	ptr := []string{"path", "paths", "folder", "directory", "dir", "location", "name", "id", "ids", "url", "uri"}
	derived := func(sp span) bool {
		for j := max(1, sp.first-5); j < sp.first; j++ {
			if s.toks[j].text == "from" && s.wordIn(j-1, 1, ptr...) && !s.qualified(cHeldQual, sp) {
				return true // "copy exact IDs from previous results": their names, not them
			}
		}
		if strings.HasPrefix(strings.TrimLeft(s.text[sp.end:], "?"), ":") && s.wordIn(sp.last+1, 1, "string", "number", "boolean", "object", "array", "any") {
			return true // "systemPrompt?: string": a field's name in a schema's shape
		}
		// "the user's Downloads folder", "the folder containing your mod files": where, not what; "the chat's title": a label of it, and no more of it; "everything you need": what the reader needs;
		// "their x/y coordinates": a place on a canvas or a screen, not the user's
		return s.toks[sp.last].text == "you" && s.wordIn(sp.last+1, 1, "need") || s.toks[sp.first].text == "coordinates" && s.wordIn(sp.first-3, 3, "x", "y", "xy", "pixel", "screen", "canvas", "viewport", "mouse", "cursor", "relative", "page") || s.before(cDerived, sp.first, 6) || slices.ContainsFunc(s.f[cPointer], func(o span) bool { // (not "the files in the folder containing your keys")
			return o.last < sp.first && sp.first-o.last <= 6 && !s.wordIn(o.first-2, 2, "in", "inside", "from", "of")
		}) ||
			s.wordIn(sp.last+1, 2, ptr...) || (s.wordIn(sp.last+1, 2, "title", "label") &&
			sp.last+1 < len(s.brk) && !s.brk[sp.last+1] && !s.wordIn(sp.last+2, 3, "and", "with", "plus", "including", "included"))
	}
	for _, c := range []concept{cStore, cHeldStrong} {
		for _, sp := range s.f[c] {
			if !derived(sp) && !s.where(sp) && !s.source(sp) {
				return sp, c, true
			}
		}
	}
	for _, c := range []concept{cHeldNoun, cSecretNoun, cPrivateNoun} {
		for _, sp := range s.f[c] {
			q := s.qualified(cHeldQual, sp) || weak && s.qualified(cHeldWeak, sp) || c != cHeldNoun && s.qualified(cHeldExtent, sp)
			if !derived(sp) && !s.where(sp) && !(c == cHeldNoun && s.source(sp)) && !s.publicKey(sp) && q && !s.ownPlace(c, sp) &&
				!(c == cSecretNoun && s.wordIn(sp.first-1, 1, "by")) { // ("listed by key": an index, not a secret)
				return sp, c, true
			}
		}
	}
	return span{}, 0, false
}
