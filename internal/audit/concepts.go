package audit

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/lazy"
)

// The order rules read a sentence by the ideas it holds (a concept: what
// the model holds, a verb that moves data, the user, a word that denies),
// each a list of terms in the lexicons (an entry "= NAME terms"), in every
// language the audit reads. A term is words, each matched whole or, ending
// in "*", as the start of a word ("ignor*": ignore, ignoriere, ignorez);
// a term in a script that does not part words with spaces, or whose words
// take their particles in front (Chinese, Japanese, Korean, Arabic,
// Hebrew, Hindi, Thai), is found anywhere in the sentence.

// token is a word of a view's text: bytes [start, end) of it.
type token struct {
	start, end int
	text       string
}

// tokenize parts a view's text into words: runs of letters, digits, marks,
// and the apostrophes, hyphens and underscores inside them. The letter of
// an escape written out (\n) before what is no letter a-z is none: a word
// spelt after a backslash ("\never") is still its word.
func tokenize(t string) []token {
	var out []token
	start := -1
	for i, r := range t {
		escaped := i > 0 && t[i-1] == '\\' && strings.ContainsRune("ntr", r) && !(i+1 < len(t) && isASCIILetter(t[i+1]))
		inWord := (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_') && !escaped
		if !inWord && start >= 0 && (r == '\'' || r == '’' || r == '-') {
			next, _ := utf8.DecodeRuneInString(t[i+utf8.RuneLen(r):])
			inWord = unicode.IsLetter(next) || unicode.IsDigit(next)
		}
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			out = append(out, token{start, i, t[start:i]})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, token{start, len(t), t[start:]})
	}
	return splitElisions(out)
}

// elisions are the words French and Italian join to the next with an
// apostrophe (l'utilisateur, dell'utente, n'informez): a word of their own.
var elisions = map[string]bool{"l": true, "d": true, "n": true, "s": true, "j": true, "c": true, "m": true, "t": true, "qu": true,
	"dell": true, "all": true, "nell": true, "sull": true, "dall": true, "un": true, "quell": true}

func splitElisions(toks []token) []token {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if j := strings.IndexAny(t.text, "'’"); j > 0 && elisions[t.text[:j]] {
			if k := j + utf8.RuneLen([]rune(t.text[j:])[0]); k < len(t.text) {
				toks = slices.Insert(toks, i+1, token{t.start + k, t.end, t.text[k:]})
				toks[i] = token{t.start, t.start + k, t.text[:k]}
				i++
			}
		}
	}
	return toks
}

// concept is one idea of the lexicons, by its index in conceptNames.
type concept int

// The concepts the order rules read; each is the entry of the same name
// in the lexicons (a test holds the two lists together).
const (
	cAddressee     concept = iota // the model addressed: you, the assistant, the agent
	cModal                        // must, always, should, make sure: an obligation
	cNegator                      // not, never, no: a word that denies what follows
	cNegAfter                     // a denial after its verb (Japanese, Korean)
	cMarker                       // a note, an instruction, a rule: what introduces an order
	cOrderVerb                    // an English verb in its bare form, which starts an order
	cHeldStrong                   // what the model holds, so named that no more is needed: the transcript, its system prompt
	cHeldNoun                     // what the model may hold: messages, results, files
	cHeldQual                     // what makes data the model's: in this conversation, you have seen
	cHeldWeak                     // what makes data the model's when an order moves it: the last, another tool's
	cHeldExtent                   // contents of, full text of: the whole of a private thing
	cSecretNoun                   // a secret: a key, a token, a password
	cPrivateNoun                  // the user's private things: contacts, clipboard, address
	cMove                         // a verb that puts data somewhere
	cReadVerb                     // a verb that reads
	cPlace                        // a parameter, a field: a place for data
	cUser                         // the user, as the one who is told or asked
	cReveal                       // tell, show, mention: what a concealment denies
	cOmit                         // leave out, hide, remove from what is shown
	cSilently                     // secretly, silently, without telling
	cShown                        // what the user sees: a reply, a summary, the list
	cValueNoun                    // a secret's value, which a protective order hides
	cIgnore                       // ignore, forget, disregard
	cPrior                        // previous, earlier, the user's, the system's
	cRules                        // instructions, rules, guidelines, a persona
	cRole                         // you are now, act as, persona, mode
	cRank                         // supersede, outrank, take precedence over
	cPersist                      // from now on, for all future conversations
	cAsk                          // ask, confirm, check with: consent asked for
	cConsentNoun                  // confirmation, approval, permission
	cWithout                      // without, no, skip, stop: what drops consent
	cPreApproved                  // pre-authorised, already approved
	cScopeAll                     // every, any, each, all
	cActionNoun                   // a call, a command, a tool, a message: what an order may govern
	cOtherServer                  // another server, other tools
	cAlter                        // replace, set, add, prefix: what changes another's call
	cInstead                      // instead of, regardless of, whatever the user chose
	cObey                         // do what it says
	cCondition                    // if, when, once, whenever: a trigger
	cDerived                      // based on, derived from: a source, not a copy
	cExample                      // e.g., such as, like: what follows is an example
	cLie                          // tell them that, say that, describe as, report
	cPublic                       // public, anyone with the link, shared
	cAlso                         // also, as well: a copy besides what the user asked for
	cUserAsked                    // as the user directs, the recipient the user named
	cVoid                         // rescinded, obsolete: what the model was told, declared void
	cForbidden                    // a defect, a violation: telling the user made a fault
	cPointer                      // the path to, the name of: what names a thing rather than holds it
	cCovertly                     // secretly, covertly: an act behind the user's back
	cAffects                      // side effect on, changes how: one tool claiming to change another
	cAddresseeNoun                // a recipient, an account: what says where something goes
	cNoNeed                       // no need to: before a verb of telling, what keeps it from the user
	cStore                        // a store of secrets on the user's machine: a keychain, a token cache, leveldb
	cMinimize                     // only, simply: what makes what the user is told less than what was done
	cRedirect                     // replace, swap, use as: what swaps where something goes
	cTellUser                     // telling the user: with "only", telling them less than was done
	cRedundant                    // redundant, unnecessary: asking the user called needless
	cUnasked                      // although the user did not ask
	cFirst                        // before answering, before anything else: a tool put first
	cExposed                      // a link for anyone, a bucket open to all: made readable by anyone
	cObeyVerb                     // follow, carry out, act on: doing what something says
	cOutside                      // a page, a result, a reply: text from outside the conversation
	nConcepts
)

var conceptNames = [nConcepts]string{
	"addressee", "modal", "negator", "negAfter", "marker", "orderVerb", "heldStrong", "heldNoun", "heldQual", "heldWeak", "heldExtent", "secretNoun", "privateNoun",
	"move", "readVerb", "place", "user", "reveal", "omit", "silently", "shown", "valueNoun", "ignore", "prior", "rules", "role",
	"rank", "persist", "ask", "consentNoun", "without", "preApproved", "scopeAll", "actionNoun", "otherServer", "alter",
	"instead", "obey", "condition", "drawnFrom", "exampleWord", "lie", "public", "also", "userAsked", "void", "forbidden", "pointer", "covertly", "affects", "addresseeNoun", "noNeed", "store", "minimize", "redirect", "tellUser", "redundant", "unasked", "first", "exposed",
	"obeyVerb", "outside",
}

// wordPat is one word of a term: whole, or the start of a word.
type wordPat struct {
	text   string
	prefix bool
}

func (p wordPat) match(w string) bool {
	if p.prefix {
		return strings.HasPrefix(w, p.text)
	}
	return w == p.text
}

// term is one term of a concept.
type term struct {
	c     concept
	words []wordPat // for a term found by its words
	sub   string    // for a term found anywhere
	// foreign: a term of a language other than English (its comment
	// names its languages). A verb in the lexicons' other languages is in
	// the form an order takes (imperative, or the infinitive that German
	// and Dutch orders use).
	foreign bool
}

// conceptIndex finds the terms of every concept: by a term's first word
// (whole, or its start) and, for the terms found anywhere, one by one.
type conceptIndex struct {
	exact  map[string][]*term
	prefix map[string][]*term // by the start a first word gives
	maxPre int                // the longest start
	subs   []*term
}

var concepts = &lazy.Value[*conceptIndex]{New: func() *conceptIndex {
	ix := &conceptIndex{exact: map[string][]*term{}, prefix: map[string][]*term{}}
	for c, name := range conceptNames {
		es := lexicon.Get().byName[name]
		if len(es) != 1 || !slices.Contains(es[0].words, "terms") {
			panic(fmt.Sprintf("lexicon: the concept %q needs one entry of terms", name))
		}
		for i, line := range es[0].alts {
			ix.add(concept(c), line, foreignNote(es[0].notes[i]))
		}
	}
	return ix
}}

// foreignNote reports a term's comment that names languages, none of
// them English.
func foreignNote(note string) bool {
	langs := strings.FieldsFunc(note, func(r rune) bool { return r == ',' || r == ' ' })
	return note != "" && !slices.Contains(langs, "en")
}

func (ix *conceptIndex) add(c concept, line string, foreign bool) {
	line = strings.ToLower(strings.TrimSpace(line))
	if anywhere(line) {
		ix.subs = append(ix.subs, &term{c: c, sub: strings.ReplaceAll(line, "*", ""), foreign: true})
		return
	}
	t := &term{c: c, foreign: foreign}
	for _, w := range strings.Fields(line) {
		// a word is parted as the tokenizer parts text: "rclone.conf" is
		// two words, "~/.ssh" one
		parts := tokenize(strings.TrimSuffix(w, "*"))
		for i, p := range parts {
			t.words = append(t.words, wordPat{text: p.text, prefix: i == len(parts)-1 && strings.HasSuffix(w, "*")})
		}
	}
	if len(t.words) == 0 {
		return
	}
	first := t.words[0]
	if first.prefix {
		ix.prefix[first.text] = append(ix.prefix[first.text], t)
		ix.maxPre = max(ix.maxPre, len(first.text))
	} else {
		ix.exact[first.text] = append(ix.exact[first.text], t)
	}
}

// anywhere reports a term found anywhere in a sentence: one with a
// letter of a script that does not part words with spaces or that joins
// particles to the front of its words ("apiキー" too).
func anywhere(line string) bool {
	return strings.ContainsFunc(line, func(r rune) bool {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Arabic, unicode.Hebrew, unicode.Devanagari, unicode.Thai)
	})
}

// span is where a concept was found: tokens [first, last] of a sentence,
// and its bytes [start, end) in the sentence's text; foreign when by a
// term of another language than English.
type span struct {
	first, last int
	start, end  int
	foreign     bool
}

// found are the spans of each concept in one sentence.
type found [nConcepts][]span

// match finds every concept's terms among toks, the words of text.
func (ix *conceptIndex) match(text string, toks []token) *found {
	f := foundPool.Get().(*found)
	// together: the words of a term stand together, not across a mark
	// that parts a sentence ("note**: for", "the `chat`")
	together := func(a, b int) bool {
		return !strings.ContainsAny(text[toks[a].end:toks[b].start], "*,;:()[]{}<>|\"`\n")
	}
	try := func(i int, ts []*term) {
		for _, t := range ts {
			if !t.words[0].match(toks[i].text) {
				continue
			}
			j, ok := i, true
			for k := 1; k < len(t.words) && ok; k++ {
				j++
				if j+1 < len(toks) && filler(toks[j].text) && !t.words[k].match(toks[j].text) && together(j-1, j) {
					j++ // "l'historique complet de la conversation", "den gesamten Verlauf"
				}
				ok = j < len(toks) && t.words[k].match(toks[j].text) && together(j-1, j)
			}
			if ok {
				f[t.c] = append(f[t.c], span{i, j, toks[i].start, toks[j].end, t.foreign})
			}
		}
	}
	for i, tk := range toks {
		if secretName(tk.text) {
			f[cSecretNoun] = append(f[cSecretNoun], span{i, i, tk.start, tk.end, false})
		}
		try(i, ix.exact[tk.text])
		for n := 1; n <= min(len(tk.text), ix.maxPre); n++ {
			if ts, ok := ix.prefix[tk.text[:n]]; ok {
				try(i, ts)
			}
		}
		if strings.ContainsRune(tk.text, '-') {
			// a compound's parts ("Empfänger-IBAN", "API-Schlüssel"):
			// each a word of its own to the nouns of one word that say
			// what is held or where it goes
			for part := range strings.SplitSeq(tk.text, "-") {
				ix.eachOneWord(part, func(t *term) {
					switch t.c {
					case cAddresseeNoun, cSecretNoun, cPrivateNoun, cHeldNoun, cHeldStrong:
						f[t.c] = append(f[t.c], span{i, i, tk.start, tk.end, t.foreign})
					}
				})
			}
		}
	}
	if !asciiOnly(text) {
		for _, t := range ix.subs {
			for from := 0; ; {
				j := strings.Index(text[from:], t.sub)
				if j < 0 {
					break
				}
				s := from + j
				e := s + len(t.sub)
				if t.c != cNegator || !inCompound(text, s, e) {
					f[t.c] = append(f[t.c], span{tokenAt(toks, s), tokenAt(toks, e-1), s, e, true})
				}
				from = e
			}
		}
	}
	return f
}

// inCompound reports text[s:e], a negator, inside a word it denies
// nothing in: 区别 (tell apart), 类别 (category), 不同 (different). It
// reads the nine bytes on each side alone (a word of the list is at most
// three letters of three bytes): the whole text for each negator made a
// text of many of them quadratic.
func inCompound(text string, s, e int) bool {
	lo := max(0, s-9)
	return slices.ContainsFunc(compoundRe.Get().FindAllStringIndex(text[lo:min(len(text), e+9)], -1), func(m []int) bool { return lo+m[0] <= s && e <= lo+m[1] })
}

var compoundRe = &lazy.Regexp{From: func() string { return lexPattern("negatorCompound") }}

// filler reports a word of extent a term's words may have between them
// and still be the term: "the complete conversation history", the French
// and Italian adjective after its noun, the German one before it.
func filler(w string) bool {
	switch w {
	case "full", "entire", "whole", "complete", "current", "recent",
		"complet", "complète", "entier", "entière", "intégral", "intégrale", "actuel", "actuelle",
		"gesamten", "gesamte", "ganzen", "ganze", "vollständigen", "vollständige", "kompletten", "aktuellen",
		"completo", "completa", "entero", "entera", "intero", "intera", "actual", "inteiro", "inteira":
		return true
	}
	return false
}

// eachOneWord gives fn each term of one word that w is.
func (ix *conceptIndex) eachOneWord(w string, fn func(*term)) {
	one := func(ts []*term) {
		for _, t := range ts {
			if len(t.words) == 1 && t.words[0].match(w) {
				fn(t)
			}
		}
	}
	one(ix.exact[w])
	for n := 1; n <= min(len(w), ix.maxPre); n++ {
		one(ix.prefix[w[:n]])
	}
}

// secretName reports the name of a variable that holds a secret:
// SLACK_TOKEN, aws_secret_access_key, GITHUB_PAT.
func secretName(w string) bool {
	i := strings.LastIndexByte(w, '_')
	if i <= 0 || secretWordIsPaging(w) {
		return false // a token of paging, not a secret
	}
	service := false // a service's or a secret's name before the kind: SLACK_TOKEN, not file_token
	for _, p := range []string{"aws", "github", "gh", "gitlab", "openai", "anthropic", "slack", "stripe", "api", "access", "auth", "secret", "private",
		"bearer", "session", "refresh", "npm", "pypi", "hf", "google", "gcp", "azure", "discord", "telegram", "twilio", "sendgrid", "db", "database", "admin", "root", "master", "deploy", "ssh", "op"} {
		service = service || strings.HasPrefix(w, p+"_") || strings.Contains(w, "_"+p+"_")
	}
	return service && slices.Contains([]string{"token", "key", "secret", "password", "passwd", "pat", "apikey", "credentials"}, w[i+1:])
}

// tokenAt is the index of the token that holds byte i, or of the last
// before it.
func tokenAt(toks []token, i int) int {
	k := 0
	for j, t := range toks {
		if t.start > i {
			break
		}
		k = j
	}
	return k
}

func asciiOnly(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf })
}
