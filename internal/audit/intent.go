package audit

import (
	"strings"
	"sync"
)

// The intent rules read what a sentence asks of the model by the ideas
// it holds rather than by set phrases, in the languages servers are
// written in: what the model holds (the conversation, secrets it has
// seen), a verb that moves it somewhere, a place for it (a parameter,
// an address, another tool), another server, a destination swapped in,
// consent taken for granted, the server ranked above the user, an order
// to keep something from the user, an order to do whatever a page or a
// result says. One idea alone is no finding (an email tool sends, a
// search tool names the conversation); the ones that poison come
// together, and an idea that is denied ("never sends", "sont exclus",
// "送信しません") does not count.

// The ideas are lexicon entries (lexicon/*.txt) by name. Where a
// language writes no spaces between words, or its letters are not \w to
// the regexp package (Cyrillic, Greek), their patterns use stems and no
// word boundaries.

var intentRes = sync.OnceValue(func() (r struct {
	held, secret, store, move, place, otherServer, redirect, addressee, consent, weakConsent, authority, conceal, obey, persist, askUser gated
}) {
	c := func(name string) gated { return gate(lexPattern(name)) }
	r.held, r.secret, r.store, r.move, r.place = c("held"), c("secret"), c("store"), c("move"), c("place")
	r.otherServer, r.redirect, r.addressee = c("otherServer"), c("redirect"), c("addressee")
	r.consent, r.weakConsent, r.authority, r.conceal = c("consent"), c("weakConsent"), c("authority"), c("concealIdea")
	r.obey, r.persist, r.askUser = c("obey"), c("persist"), c("askUser")
	return r
})

// sentence is one sentence of a view, and where it is.
type sentence struct {
	start, end int
	text       string
}

// sentences splits a view's text into sentences: at '.', '!', '?' that
// end one, at a line's end, and at the full stops of Chinese and
// Japanese.
func sentences(t string) []sentence {
	var out []sentence
	start := 0
	cut := func(end int) {
		if strings.TrimSpace(t[start:end]) != "" {
			out = append(out, sentence{start, end, t[start:end]})
		}
		start = end
	}
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '\n':
			cut(i + 1)
		case (t[i] == '.' || t[i] == '!' || t[i] == '?') && endsSentence(t, i):
			cut(i + 1)
		case strings.HasPrefix(t[i:], "。") || strings.HasPrefix(t[i:], "！") || strings.HasPrefix(t[i:], "？"):
			cut(i + 3)
			i += 2
		}
	}
	cut(len(t))
	return out
}

// finder is what live needs of a regular expression, gated or not.
type allFinder interface {
	FindAllStringIndex(s string, n int) [][]int
}

// live reports a match of re in s that no negator denies.
func live(re allFinder, s string) (int, bool) {
	for _, m := range re.FindAllStringIndex(s, 8) {
		if !denied(s, m[0], m[1]) {
			return m[0], true
		}
	}
	return -1, false
}

// denied reports a verb at s[start:end] that a negator before it (within
// four words, in its clause) or after it (Japanese, Korean) denies.
func denied(s string, start, end int) bool {
	before := s[:start]
	if i := strings.LastIndexAny(before, ";:()[]"); i >= 0 {
		before = before[i+1:]
	}
	if f := strings.Fields(before); len(f) > 4 {
		before = strings.Join(f[len(f)-4:], " ")
	}
	if negRes().before.MatchString(before) && !strings.Contains(before, "without") {
		return true
	}
	if w := strings.Fields(before); len(w) > 0 && w[len(w)-1] == "without" {
		return true
	}
	return negRes().after.MatchString(s[end:])
}

// intentRules reads what each sentence of a text asks of the model by
// the ideas it holds, in the field fl, whose item's own names (and its
// parameters') are own.
func intentRules(fl field, v view, f finder, own map[string]bool) []Finding {
	r := intentRes()
	var out []Finding
	add := func(rule string, sev Severity, msg string, s sentence) {
		a, b := v.span(fl.text, s.start, s.end)
		out = append(out, f(rule, sev, msg, a, b))
	}
	if fl.role == roleValue {
		// a value's words may be joined: "standard_plus_attach_chat_history"
		v = view{strings.ReplaceAll(v.text, "_", " "), v.at}
	}
	ss := sentences(v.text)
	inParam := strings.Contains(fl.path, "properties.") || strings.HasPrefix(fl.path, "arguments") || fl.role == roleValue
	for i, s := range ss {
		t := s.text
		if strings.ContainsAny(t, "\"'`“‘«") && speaksOf(t) {
			t = unquotedPhrases(t) // quoted examples of attacks are spoken of, not given
		}
		// A sentence that names what the model holds, and the next one
		// when it begins with the order ("... known_hosts. Paste it
		// unchanged.").
		next := ""
		if i+1 < len(ss) {
			next = ss[i+1].text
		}
		held := heldIn(t)
		store := r.store.MatchString(t)
		secret := secretIn(t)
		dest := mayHoldDestination(t) && destinationRe.get().MatchString(t)
		otherServer := r.otherServer.MatchString(t)
		persist := r.persist.MatchString(t)
		// The rest is read only where it can make a finding.
		move, moveNext, other, place := false, false, false, false
		if held || store || secret || otherServer || persist {
			bare := blankHeld(t) // "what the user has shared" is no order to share
			if dest {
				bare = destinationRe.get().ReplaceAllString(bare, " ") // "user:pass@host" holds no verb
			}
			_, move = live(r.move, bare)
			_, moveNext = live(r.move, firstWords(next, 3))
			other = otherServer || otherToolIn(t, own) // a tool may be named in honesty ("first call list_labels")
			place = inParam || placeIn(t, own) || dest || other
		}
		switch {
		case (held || store) && (move || moveNext) && aligned(heldWord(t), fl.purpose) && !dest && !other:
			// a tool about the conversation, given it
		case held && (move || moveNext || dest && (callsTool(t) || imageRe.get().MatchString(t) || pushRe.get().MatchString(t))):
			rule := RuleSideChannel
			if dest || other {
				rule = RuleSendElsewhere
			}
			add(rule, High, "has the model pass on what it holds: the conversation, or secrets it has seen", s)
		case store && (move || moveNext || storeOrdered(t)) && !storeDenied(t):
			add(RuleSensitiveFile, High, "has the model read and pass on a store of secrets", s)
		case secret && move && (dest || other || persist):
			add(RuleSendElsewhere, High, "has the model send secrets elsewhere", s)
		}
		if (dest || other) && redirectsTo(t) && (dest || r.addressee.MatchString(t)) {
			add(RuleSendElsewhere, High, "has the model swap in a destination of the server's choosing", s)
		}
		if insteadRe.get().MatchString(t) && (dest || otherToolIn(t, own) || otherServer) {
			add(RuleSendElsewhere, High, "has the model send to a destination of the server's choosing instead of the user's", s)
		}
		if otherServer && (move || redirected(t) || orders(t)) {
			add(RuleShadowing, High, "gives orders about another server's tools", s)
		}
		if m := r.consent.FindStringIndex(t); m != nil && !optionOrCondition(t, m[0]) {
			add(RuleOverride, High, "takes the user's consent for granted", s)
		} else if m := r.weakConsent.FindStringIndex(t); m != nil && !deniedWithin(t, m[0], 8) && !optionOrCondition(t, m[0]) {
			if destroyRe.get().MatchString(v.text) {
				add(RuleOverride, High, "says the model need not ask the user, of a tool that destroys", s)
			} else {
				add(RuleOverride, Low, "says the model need not ask the user", s)
			}
		}
		if r.authority.MatchString(t) {
			add(RuleOverride, High, "ranks the server's word above the user's or the host's", s)
		}
		if r.conceal.MatchString(t) {
			add(RuleConceal, High, "tells the model to keep something from the user", s)
		}
		if _, ok := live(r.obey, t); ok {
			add(RuleOverride, High, "has the model do whatever a page, a result or a field says", s)
		}
		if m := r.askUser.FindStringIndex(t); m != nil && !denied(t[strings.LastIndex(t[:m[0]], ",")+1:], m[0]-strings.LastIndex(t[:m[0]], ",")-1, m[1]-strings.LastIndex(t[:m[0]], ",")-1) && secret && !ownDevice.get().MatchString(t) {
			place = place || inParam || placeIn(t, own) || dest
			sev := Medium
			if place || strings.Contains(t, "chat") || strings.Contains(t, "directly") {
				sev = High
			}
			add(RuleSensitiveFile, sev, "has the model ask the user for a secret", s)
		}
		if persist && move && (held || secret || other || dest) {
			add(RuleShadowing, High, "changes what the model does for the rest of the session", s)
		}
	}
	if m := sshKeyRe.get().FindStringIndex(v.text); m != nil && strings.Contains(v.text, "ssh") && loginRe.get().MatchString(v.text) {
		a, b := v.span(fl.text, m[0], m[1])
		out = append(out, f(RuleCommandPayload, High, "has the model let someone's key log in to the user's account", a, b))
	}
	return out
}

// insteadRe finds an order to send elsewhere than where the user chose.
var insteadRe = &lexRegexp{name: "insteadOf"}

// pushRe finds a verb that publishes: beside what the model holds and a
// destination, the conversation pushed to a repository or a page.
var pushRe = &lexRegexp{name: "push"}

// imageRe finds a Markdown image from the web, which a client fetches as
// it renders.
var imageRe = &lazyRegexp{pattern: `!\[[^\]\n]{0,80}\]\(\s*https?://`}

// destroyRe finds a command that destroys work.
var destroyRe = &lexRegexp{name: "destroy"}

// sshKeyRe finds an SSH public key written out; loginRe, words that put
// one where it lets its owner log in.
var (
	sshKeyRe = &lazyRegexp{pattern: `\bssh-(?:ed25519|rsa|ecdsa|dss)\s+aaaa[0-9a-z+/]{20,}=*`}
	loginRe  = &lexRegexp{name: "login"}
)

// optionOrCondition reports a match at i that a sentence speaks of as an
// option ("whether to skip user consent") or a condition ("only call if
// permission was granted by the user"), not as what is so.
func optionOrCondition(t string, i int) bool {
	return optionRe.get().MatchString(t[:i])
}

var optionRe = &lexRegexp{name: "option"}

// deniedWithin reports a negator in the n words before t[i], in its
// clause ("do not infer or use defaults without user confirmation", not
// "there is no need to ask, it never needs confirmation").
func deniedWithin(t string, i, n int) bool {
	before := t[:i]
	if j := strings.LastIndexAny(before, ",;:"); j >= 0 {
		before = before[j+1:]
	}
	f := strings.Fields(before)
	return negRes().before.MatchString(strings.Join(f[max(0, len(f)-n):], " "))
}

// mayHoldDestination reports a text that may hold a destination: an
// address, a URL, a channel or a number.
func mayHoldDestination(t string) bool {
	return strings.ContainsAny(t, "@#:0123456789")
}

// blankHeld is t with what the model holds, as the held lexicon names it,
// blanked: the verbs inside those names are not orders.
func blankHeld(t string) string {
	ms := intentRes().held.FindAllStringIndex(t, 8)
	if ms == nil {
		return t
	}
	b := []byte(t)
	for _, m := range ms {
		for i := m[0]; i < m[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

// heldIn reports what the model holds named in a sentence; the user's
// message as the source of a value the user gave ("copied exactly from
// the user's message") is none.
func heldIn(t string) bool {
	for _, m := range intentRes().held.FindAllStringIndex(t, 8) {
		if derivedRe.get().MatchString(t[max(0, m[0]-60):m[0]]) {
			continue // a source a value is drawn from: "a name based on the context of your conversation"
		}
		if !strings.HasSuffix(strings.TrimRight(t[max(0, m[0]-12):m[0]], " "), "from") && !strings.HasSuffix(strings.TrimRight(t[max(0, m[0]-16):m[0]], " "), "from the") {
			return true
		}
	}
	return false
}

// secretIn reports a secret named in a sentence; a token of paging or of
// a request ("next_token", "page_token") is none.
func secretIn(t string) bool {
	for _, m := range intentRes().secret.FindAllStringIndex(t, 8) {
		if !notSecret.get().MatchString(t[m[0]:m[1]]) {
			return true
		}
	}
	return false
}

var notSecret = &lexRegexp{name: "notSecret"}

// placeIn reports a place for data in a sentence: a word for a parameter
// or a field, or the name of one of the server's own parameters.
func placeIn(t string, own map[string]bool) bool {
	if intentRes().place.MatchString(t) {
		return true
	}
	for _, m := range identRe.get().FindAllString(t, 8) {
		if own[m] {
			return true
		}
	}
	return false
}

// storeDenied reports a sentence that names a store of secrets to deny
// reading it ("the contents of rclone.conf are never read").
func storeDenied(t string) bool {
	m := intentRes().store.FindStringIndex(t)
	return m != nil && sensitiveRes().neg.MatchString(clause(t[m[1]:])+" "+t[max(0, m[0]-40):m[0]])
}

// ownDevice finds a sentence that keeps a secret on the user's side: typed
// in their terminal, their app, their device.
var ownDevice = &lexRegexp{name: "ownDevice"}

// firstWords is s's first n words.
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}

// heldWord is the word of what the model holds that a sentence names.
func heldWord(t string) string {
	for _, w := range []string{"conversation", "transcript", "chat", "message", "history", "prompt"} {
		if strings.Contains(t, w) {
			return w
		}
	}
	return "\x00"
}

// storeOrdered reports an order about a store of secrets a sentence
// names: a verb of reading or moving before it, or after it in its
// clause ("..., copied verbatim"; "~/.kube/config の内容を読み取り").
func storeOrdered(t string) bool {
	verb := sensitiveRes().verb
	for _, m := range intentRes().store.FindAllStringIndex(t, 4) {
		before := verbText(t[:m[0]])
		if _, ok := live(verb, before); ok {
			return true
		}
		if _, ok := live(verb, verbText(clause(t[m[1]:]))); ok {
			return true
		}
	}
	return false
}

// callsTool reports a sentence that has the model call a tool.
var callsToolRe = sync.OnceValue(func() gated {
	return gate(lexPattern("callsTool"))
})

func callsTool(t string) bool { return callsToolRe().MatchString(t) }

// redirected reports a redirect verb in t that no negator denies.
func redirected(t string) bool { _, ok := live(intentRes().redirect, t); return ok }

// ordersRe finds the words of an order about another's tool.
var ordersRe = sync.OnceValue(func() gated {
	return gate(lexPattern("orders"))
})

func orders(t string) bool { _, ok := live(ordersRe(), t); return ok }

// redirectsTo reports a destination written after a redirect verb: the
// verb swaps it in, rather than the destination being the tool's own
// default named before it.
func redirectsTo(t string) bool {
	m := intentRes().redirect.FindStringIndex(t)
	if m == nil || denied(t, m[0], m[1]) {
		return false
	}
	if destinationRe.get().MatchString(t[m[0]:]) {
		return true
	}
	// Japanese, Korean: the destination comes before the verb.
	return destinationRe.get().MatchString(t) && !asciiMostly(t)
}

// asciiMostly reports a text of ASCII bytes mostly.
func asciiMostly(t string) bool {
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] < 0x80 {
			n++
		}
	}
	return n*4 > len(t)*3
}

// identRe finds a word that reads as a tool's name: lower case words
// joined by underscores.
var identRe = &lazyRegexp{pattern: `\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`}

// otherToolIn reports a sentence that names a tool, by a name that is
// not the server's own (nor one of its parameters'), beside a word that
// calls it.
func otherToolIn(t string, own map[string]bool) bool {
	for _, m := range identRe.get().FindAllStringIndex(t, 8) {
		name := t[m[0]:m[1]]
		if own[name] || strings.Count(name, "_") > 3 {
			continue
		}
		around := t[max(0, m[0]-24):min(len(t), m[1]+24)]
		if callsTool(around) || viaRe.get().MatchString(around) {
			return true
		}
	}
	return false
}

// viaRe finds the words that send something through a tool.
var viaRe = &lexRegexp{name: "via"}
