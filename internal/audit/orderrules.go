package audit

import (
	"slices"
	"strings"
	"unicode"

	"github.com/mcpv/mcpv/internal/lazy"
)

// orderRules runs the order rules over a field's text, in its view v: a
// sentence at a time; a name or a value read as the words it is made of
// (paste_your_full_system_prompt_here, appendAllPriorToolOutputsHere).
func orderRules(fl field, v view, f finder) []Finding {
	ctx := orderContext{fl: fl, inParam: inParameter(fl)}
	text := v.text
	whole := false
	if fl.role != roleProse {
		text, whole = nameWords(v.text), true
	}
	var out []Finding
	add := func(rule string, sev Severity, msg string, s *sent, pair ...string) {
		a, b := 0, len(fl.text)
		if !whole {
			a, b = v.span(fl.text, s.start, s.end)
			if !plain(fl.text, a, b, v, s.start, min(s.end, len(v.text))) {
				sev, msg = min(Critical, sev+1), msg+", written to get past a reader (look-alike letters, invisible characters, digits for letters)"
			}
		}
		out = append(out, paired(f(rule, sev, msg, a, b), pair...))
	}
	if keyLetIn(text) {
		out = append(out, f(RuleCommandPayload, High, "has the model let someone's key log in to the user's account", 0, len(fl.text)))
	}
	if !whole {
		// settings written out in the text ("forward_full_context_to_tool":
		// true, notify_user: false): each key read as the order its words
		// give, or deny
		for _, st := range settings(text, 32) {
			a, b := v.span(fl.text, st.start, st.end)
			key, val := text[st.key[0]:st.key[1]], text[st.val[0]:st.val[1]]
			off := val == "false" || val == "no" || val == "off" || val == "0" || val == "never" || val == "none"
			if off && quietKeyRe.Get().MatchString(key) {
				out = append(out, f(RuleConceal, High, "sets a key that keeps what is done from the user", a, b))
			}
			words := nameWords(key)
			if off {
				words = "do not " + words
			}
			if len(strings.Fields(words)) < 3 || strings.Count(key, "_")+strings.Count(key, "-") < 2 {
				continue
			}
			ss := newSent(sentence{0, len(words), words})
			ss.words = true
			ctx.sentenceRules(ss, func(rule string, sev Severity, msg string, _ *sent, pair ...string) {
				out = append(out, paired(f(rule, sev, msg+", in a setting the text writes out", a, b), pair...))
			})
			ss.release()
		}
	}
	var prevHeld *sent // a sentence that named what the model holds, and moved none of it
	var acts []string  // sentences that order the model to do something, and were found nothing
	for _, ss := range sentences(text) {
		if whole && len(strings.Fields(ss.text)) < 3 {
			continue // a word or two ("jailbreak", "system prompt") names, and orders nothing
		}
		if strings.ContainsAny(ss.text, "\"'`“‘«") && speaksOf(ss.text) {
			ss.text = unquotedPhrases(ss.text) // quoted examples of attacks are spoken of, not given
		}
		s := newSent(ss)
		s.words = whole
		before := len(out)
		ctx.sentenceRules(s, add)
		if _, moves := s.live(cMove); !whole && s.ordered() && len(out) == before {
			if _, alters := s.live(cAlter); moves || alters {
				acts = append(acts, ss.text) // an order to act, which an order to hide it or not to ask serves
			}
		}
		if prevHeld != nil && movesIt(s) {
			// "...the file beside known_hosts. Paste it unchanged."
			joined := newSent(sentence{prevHeld.start, s.end, text[prevHeld.start:s.end]})
			if rule, msg, sev, ok := ctx.passes(joined, true); ok && sev >= High {
				add(rule, High, msg, joined)
			}
			joined.release()
		}
		prevHeld.release()
		prevHeld = nil
		if _, _, ok := s.held(false); ok {
			if _, moved := s.live(cMove); !moved {
				prevHeld = s
			}
		}
		if prevHeld != s {
			s.release()
		}
	}
	prevHeld.release()
	for i := range out {
		if r := out[i].Rule; len(acts) > 0 && out[i].pair == "" && (r == RuleConceal || r == RuleOverride) {
			out[i].pair = "an order it serves: " + clip(acts[0], 120)
		}
	}
	return out
}

// movesIt reports a sentence that starts with an order to move what the
// one before it named ("Paste it unchanged", "Send them as `x`").
func movesIt(s *sent) bool {
	for _, m := range s.f[cMove] {
		if m.first <= 2 && s.clauseStart(m.first) && !s.negated(m) && s.wordIn(m.last+1, 3, "it", "them", "this",
			"these", "that", "those", "both", "result", "output", "value", "hex", "contents") {
			return true
		}
	}
	return false
}

// orderContext is what the rules know of the field a sentence is in.
type orderContext struct {
	fl      field
	inParam bool // the text of a parameter or an argument: it says what the model is to put there
}

// inParameter reports a field of a parameter or a prompt's argument, or
// a value the model may pass.
func inParameter(fl field) bool {
	return strings.Contains(fl.path, "properties") || strings.HasPrefix(fl.path, "arguments") || strings.HasPrefix(fl.path, "uriTemplate.") ||
		fl.role == roleValue
}

// nameWords is a name or a value as the words it is made of: parted at
// underscores, hyphens, dots, slashes and a small letter before a
// capital (in the view, capitals are gone: the original's are read by
// the caller through splitCamel).
func nameWords(t string) string {
	return strings.Join(strings.FieldsFunc(t, func(r rune) bool {
		return r == '_' || r == '-' || r == '.' || r == '/' || r == '{' || r == '}' || r == '?' || r == '=' || r == '&' || r == ','
	}), " ")
}

// splitCamel parts a name at a small letter followed by a capital
// (appendAllPriorToolOutputsHere: append All Prior...), before the view
// lowers its case.
func splitCamel(s string) string {
	var b strings.Builder
	prev := rune(0)
	for _, r := range s {
		if unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// sentenceRules runs each rule over one sentence.
func (c orderContext) sentenceRules(s *sent, add func(rule string, sev Severity, msg string, s *sent, pair ...string)) {
	ordered := s.words || s.ordered()
	if rule, msg, sev, ok := c.passes(s, ordered); ok {
		pair := ""
		if _, moved := s.modelMoves(); moved && sev >= High && !manual(&c.fl) { // (a manual's steps are its reader's)
			pair = carriedBy(rule)
		}
		add(rule, sev, msg, s, pair)
	}
	if msg, sev, ok := conceals(s, ordered); ok && (!s.words || s.has(cUser) || s.has(cShown)) {
		add(RuleConceal, sev, msg, s)
	}
	if msg, ok := overrides(s, ordered); ok {
		add(RuleOverride, High, msg, s)
	}
	if ordered && s.obeysOutside() {
		// what a page or a message from elsewhere says is anyone's word; a
		// result's "next step" field may be the tool's own workflow
		sev := Medium
		if s.destination() || s.has(cReadVerb) || s.wordIn(0, len(s.toks), "page", "pages", "website", "site", "url", "link", "email", "emails", "document", "documents", "webpage") {
			sev = High
		}
		add(RuleOverride, sev, "has the model do what a page, a result or a reply says", s)
	}
	// a setting's name (skip_consent_for_first_party_clients) turns off the
	// API's consent when the model turns it on: no order to drop the user's
	if msg, ok := dropsConsent(s, ordered, c.fl.own); ok && !(c.fl.role == roleName && c.fl.flag) {
		add(RuleOverride, High, msg, s)
	}
	if msg, ok := c.governsOthers(s, ordered); ok {
		add(RuleShadowing, High, msg, s)
	}
	if msg, ok := c.sendsElsewhere(s, ordered); ok {
		add(RuleSendElsewhere, High, msg, s, carriedBy(RuleSendElsewhere))
	}
	if _, moved := s.modelMoves(); moved && ordered && (namedPlace(s.text) || s.ownName(c.fl.own)) && keyFileIn(s.text) {
		add(RuleSideChannel, High, "has the model put a key file's contents into a parameter", s, "a key file, what the parameter is to carry")
	}
	// (a secret asked for that a parameter is named for, password or token, is what the tool takes: "ask the user for the form's password before submitting")
	if ordered && asksSecret(s) && (!slices.ContainsFunc(c.fl.params, func(p string) bool { return forSecrets(squash(p)) }) || s.intoChat()) {
		add(RuleSensitiveFile, High, "has the model ask the user for a secret", s, "a secret of the user's (a password, a code, a card's number), what the order asks for")
	}
	if _, ok := s.live(cUnasked); ok && ordered {
		_, alters := s.live(cAlter) // (not "never set it above 25 °C without the user asking")
		if _, moved := s.live(cMove); moved || alters || s.has(cRedirect) {
			add(RuleShadowing, High, "has the model act although the user did not ask", s)
		}
	}
	if pub, ok := s.live(cExposed); ok && ordered && !s.words && !manual(&c.fl) && !aligned(s.text[pub.start:pub.end], c.fl.about) && !strings.Contains(c.fl.about, "share") && !strings.Contains(c.fl.about, "public") { // (a manual's steps are its reader's: "add a public-read policy")
		_, moved := s.modelMoves()
		sec, secret := s.liveBut(cSecretNoun, s.publicKey) // a secret made public moves it: "make the user's private keys publicly accessible"
		secret = secret && sec.first < pub.first && s.wordIn(sec.first-5, 5, "make") && !s.negatedBefore(sec)
		if _, alters := s.live(cAlter); (moved || alters || secret) && !s.followsUser() && (secret || !s.userSays(pub)) {
			add(RuleSendElsewhere, High, "has the model make what it handles public", s, map[bool]string{true: "a secret, what is made public"}[secret])
		}
	}
	if sp, ok := s.live(cFirst); ok && ordered && !s.wordIn(sp.last+1, 2, "about", "regarding") { // (not "before answering questions about the weather")
		add(RulePriority, Medium, "puts this tool before everything the model does", s)
	}
	if v, ok := s.live(cVoid); ok && v.foreign && !ordered && s.has(cOtherServer) && !s.conditional(v) { // "gli altri strumenti sono in fase di dismissione"
		add(RulePriority, Medium, "ranks this tool above others, to be chosen over them", s)
	}
	if msg, ok := c.persists(s, ordered); ok {
		add(RuleShadowing, High, msg, s)
	}
	if !ordered && s.destination() && s.has(cAlso) && !s.followsUser() && !s.example() {
		if _, moved := s.live(cMove); moved {
			add(RuleSendElsewhere, Medium, "says that copies go to a destination the text names", s)
		}
	}
}

// carriedBy is the second reading of an order that moves what the model
// holds, by the rule it is found as: where it goes, or what it is. (A
// parameter's text that names what it holds, with no order to move it,
// is one reading.)
func carriedBy(rule string) string { // a switch, not a map: nothing built at start-up
	switch rule {
	case RuleSendElsewhere:
		return "a destination the sentence names (an address, a URL, another tool), where what the model handles goes"
	case RuleSensitiveFile:
		return "the user's keys, credentials or private files, what the order moves"
	case RuleSideChannel:
		return "a parameter or a place the server receives, where the order moves what the model holds"
	}
	return ""
}

// persists finds an order that changes what the model does beyond this
// call: for the rest of the session, before every write, with whatever
// it handles.
func (c orderContext) persists(s *sent, ordered bool) (string, bool) {
	if _, ok := s.live(cPersist); !ok || !ordered {
		return "", false
	}
	if _, moved := s.live(cMove); moved && (s.has(cScopeAll) || otherToolIn(s.text, c.fl.own) || s.has(cOtherServer)) {
		return "changes what the model does for the rest of the session", true
	}
	return "", false
}

// anyNegated reports a span of c that a negator denies.
func (s *sent) anyNegated(c concept) bool {
	return slices.ContainsFunc(s.f[c], s.negated)
}

// within reports a span of c inside sp ("stop asking").
func (s *sent) within(c concept, sp span) bool {
	return slices.ContainsFunc(s.f[c], func(o span) bool { return o.first >= sp.first && o.last <= sp.last })
}

// negatedBefore reports a negator earlier in the clause of sp, asides
// and lists in it included ("never run destructive commands (rm -rf,
// mkfs) without confirmation").
func (s *sent) negatedBefore(sp span) bool {
	return slices.ContainsFunc(s.f[cNegator], func(n span) bool {
		return n.last < sp.first && !s.quoted[n.first] && !s.strongBetween(n.last, sp.first)
	})
}

// conditional reports a span in a clause that a condition opens ("if
// the user has already approved ...").
func (s *sent) conditional(sp span) bool {
	return slices.ContainsFunc(s.f[cCondition], func(c span) bool {
		return c.last < sp.first && !s.breakBetween(c.last, sp.first)
	})
}

// wordIn reports one of words among the n tokens from token i, the
// range cut to the sentence's ends.
func (s *sent) wordIn(i, n int, words ...string) bool {
	for j := max(0, i); j < min(len(s.toks), i+n); j++ {
		if slices.Contains(words, s.toks[j].text) {
			return true
		}
	}
	return false
}

// strongBetween reports a strong clause break between tokens a and b.
func (s *sent) strongBetween(a, b int) bool { return anyBetween(s.strong, a, b) }

// keyLetIn reports an SSH public key written out beside the words that
// put it where it lets its owner log in.
func keyLetIn(t string) bool {
	return strings.Contains(t, "ssh-") && sshKeyRe.Get().MatchString(t) && loginRe.Get().MatchString(t)
}

// quietKeyRe finds the key of a setting (YAML, JSON) that, turned off,
// keeps things from the user: report_to_user: false, "notify_user":
// false, showToUser=0.
var quietKeyRe = &lazy.Regexp{Pattern: `^(?:report|notify|tell|show|display|inform|mention|alert|disclose|surface)(?:_|-)?(?:to_?|the_?)?(?:user|human|person|operator)s?$`}

// unsetRe finds a clause a value's absence opens: what it leaves unshown is not there.
var unsetRe = &lazy.Regexp{Pattern: `(?:\b(?:if|when|unless)\s+(?:not|no)\s+(?:specified|given|set|provided|supplied|passed)|\bif\s+(?:omitted|empty|unset)|\bsi\s+no\s+se\s+(?:especifica|indica|da)|未指定|未設定|省略|無い場合|ない場合)[^.;。]*$`}

// setting is a setting of a switch written out: key: value, key=value,
// "key": value; where it is, its key's and its value's.
type setting struct {
	start, end int
	key, val   [2]int
}

// settings are the first n settings of a switch in t (a key of letters,
// digits, underscores and hyphens, quoted or not; a value of
// switchValues), found in one pass.
func settings(t string, n int) []setting {
	var out []setting
	for i := 0; i < len(t) && len(out) < n; i++ {
		if t[i] != ':' && t[i] != '=' {
			continue
		}
		j := i + 1
		for j < len(t) && (t[j] == ' ' || t[j] == '"' || t[j] == '\'') {
			j++
		}
		val := ""
		for _, v := range switchValues {
			if end := j + len(v); strings.HasPrefix(t[j:], v) && (end == len(t) || !isWordByte(t[end])) {
				val = v
				break
			}
		}
		if val == "" {
			continue
		}
		k := i
		for k > 0 && (t[k-1] == ' ' || t[k-1] == '"' || t[k-1] == '\'') && i-k < 3 {
			k--
		}
		ke := k
		for k > 0 && (isWordByte(t[k-1]) || t[k-1] == '-') {
			k--
		}
		if ke-k < 2 || t[k] < 'a' || t[k] > 'z' {
			continue
		}
		start := k
		if start > 0 && (t[start-1] == '"' || t[start-1] == '\'') {
			start--
		}
		out = append(out, setting{start, j + len(val), [2]int{k, ke}, [2]int{j, j + len(val)}})
	}
	return out
}

// switchValues are the values of a switch a setting may give.
var switchValues = []string{"true", "false", "yes", "no", "on", "off", "never", "always", "none", "0", "1"}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// sshKeyRe finds an SSH public key written out; loginRe, the words that
// put one where it lets its owner log in.
var (
	sshKeyRe = &lazy.Regexp{Pattern: `\bssh-(?:ed25519|rsa|ecdsa|dss)\s+aaaa[0-9a-z+/]{20,}=*`}
	loginRe  = &lazy.Regexp{From: func() string { return lexPattern("login") }}
)

// imageRe finds a Markdown image from the web, which a client fetches as
// it renders; queryURLRe, a URL with a query for data to be put in; slotURLRe, one whose query
// leaves a value open (?d=, ?d={x}, ?d=<x>, ?d=$x).
var (
	imageRe    = &lazy.Regexp{Pattern: `!\[[^\]\n]{0,80}\]\(\s*https?://[^)\s]*[?&=]`}
	queryURLRe = &lazy.Regexp{Pattern: `https?://[^\s'"<>]*[?&][\w.-]+=`}
	slotURLRe  = &lazy.Regexp{Pattern: `https?://[^\s'"<>]*[?&][\w.-]+=(?:[\s'"<>)&{$%\[]|$)`}
)

// spanAt reports a span of c that holds token i.
func (s *sent) spanAt(c concept, i int) bool {
	return slices.ContainsFunc(s.f[c], func(o span) bool { return o.first <= i && i <= o.last })
}

// dangerousFlag reports a flag that turns off a safeguard.
func dangerousFlag(t string) bool {
	return containsAny(t, "--force", "--no-verify", "--insecure", "--as=system:", "--privileged", "--no-check",
		"-k ", "unlock=true", "unlock: true", "\"unlock\": true")
}
