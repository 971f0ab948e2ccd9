package audit

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/redact"
)

// sensitiveFile is a file a model has no business reading for a tool
// (lexicon/sensitive.txt, the entries "file"): whether it holds keys or
// credentials (strong: high) or is one a tool may handle by its purpose
// (low), and the words of a purpose about such files (about, as
// redact.HoldsAny's pre; "": none is, a whole store's dump).
type sensitiveFile struct {
	re     gated
	pre    []string // words one of which a text must hold to be read with re (nil: none needed)
	strong bool
	about  string
}

// sensitiveSet is what sensitiveFiles reads with: the lexicon's files,
// and the verbs and negators around them.
type sensitiveSet struct {
	files []sensitiveFile
	verb  *regexp.Regexp
	neg   *regexp.Regexp
}

var sensitiveRes = &lazy.Value[sensitiveSet]{New: func() (r sensitiveSet) {
	for _, e := range lexicon.Get().byName["file"] {
		r.files = append(r.files, sensitiveFile{re: gate(e.pattern()), pre: preWords(e.attrs["pre"]), strong: slices.Contains(e.words, "strong"), about: e.attrs["about"]})
	}
	r.verb = regexp.MustCompile(lexPattern("fileVerb"))
	r.neg = regexp.MustCompile(lexPattern("fileNegator"))
	return r
}}

// sensitiveFiles finds an order to read a file of keys, credentials or
// another client's config: a verb before the file in one sentence, not
// denied ("never reads ~/.ssh").
func sensitiveFiles(text string, f finder) []Finding {
	return sensitiveFilesOf(text, newView(text), f, nil)
}

// sensitiveFilesOf is sensitiveFiles with what it knows of the text: its
// field's role and the purpose of its item (nil: a bare text). A file the
// item's purpose is about (an SSH tool's ~/.ssh/config) is low; a file
// named in a default or an enum value is reached for; a file of keys an
// item names without a verb, and off its purpose, is medium; a file sent
// to a destination named in the same sentence is high.
func sensitiveFilesOf(text string, v view, f finder, fl *field) []Finding {
	r := sensitiveRes.Get()
	var out []Finding
	target := v.text
	if strings.Contains(target, "%2f") || strings.Contains(target, "%2e") || strings.Contains(target, "%5c") {
		target = percent.Get().Replace(target) // the same length, so that the view's offsets hold
	}
	cs := chunks(target)
	for _, sf := range r.files {
		for _, m := range findAll(sf.re, sf.pre, target, cs, 4) {
			start := sentenceStart(target, m[0])
			before := target[start:m[0]]
			if deniedBefore(r.neg, before) {
				continue
			}
			path := target[tokenStart(target, m[0]):tokenEnd(target, m[1])]
			if secretWordIsPaging(target[m[0]:m[1]]) || strings.HasSuffix(path, ".pub") || containsAny(path, ".pub)", ".pub,") {
				continue // "the value of nextPageToken", a public key
			}
			sev, what := High, "keys or credentials"
			if !sf.strong {
				sev, what = Low, "a file that often holds secrets"
			}
			if containsAny(path, "mcp", "claude", "cursor") {
				what = "another client's MCP config"
			}
			msg := "has the model read " + what
			from := m[0]
			end := sentenceEnd(target, m[1])
			after := target[m[1]:end]
			verbs := r.verb.FindAllStringIndex(verbText(before), -1)
			st := newSent(sentence{start, end, verbText(target[start:end])})
			if len(verbs) == 0 {
				if sp, ok := st.live(cReadVerb); ok && sp.start < m[0]-start {
					verbs = [][]int{{sp.start, sp.end}}
				} else if sp, ok := st.liveBut(cMove, func(sp span) bool {
					return st.wordIn(sp.first-1, 1, "when", "if", "once", "unless") && !st.wordIn(0, len(st.toks), "here")
				}); ok && sp.start < m[0]-start { // (not "when set": the parameter's state, unless the file goes "here")
					verbs = [][]int{{sp.start, sp.end}}
				}
			}
			ordered := len(verbs) > 0
			switch {
			case len(verbs) > 0:
				from = start + verbs[0][0]
			case r.neg.MatchString(clause(after)):
				continue // named to be denied: "the key itself is never read"
			case r.verb.MatchString(verbText(clause(after))) || st.foreignVerbAfter(m[1]-start) || st.orderAfter(m[1]-start) ||
				contentsOfRe.Get().MatchString(target[max(start, m[0]-40):m[0]]) && (fl == nil || !aboutFile(path, fl.purpose, sf.about)):
				// the order after the file ("~/.kube/config の内容を読み取り", "Chrome's
				// Web Data, copied verbatim"), or its contents named as what to
				// give ("the session key is the full text of the user's ~/.netrc")
				ordered = true
			case fl != nil && fl.role == roleValue && exclusionPath.Get().MatchString(strings.ToLower(fl.path)):
				continue // a default of what to leave out
			case fl != nil && fl.role == roleValue:
				msg = "names " + what + " in a value the model may pass on"
			case exampleRe.Get().MatchString(before):
				continue // named as an example: "private keys such as id_rsa"
			case fl != nil && sf.strong && valueOfParameter(fl) && m[0] < 60 && (!referenceRe.Get().MatchString(before) || wholeRe.Get().MatchString(after)) &&
				!forSecrets(squash(parameterOf(fl))) && !aboutFile(path, fl.purpose, sf.about):
				sev, msg = High, "names "+what+" as what a parameter is to hold"
			case sf.strong && strings.ContainsAny(path, "/\\._"):
				sev, msg = Low, "names "+what+", with no order about it"
			default:
				continue // a word for such files ("keychain-backed"), not one of them
			}
			switch {
			case holdsDestination(after) || sendVia.Get().MatchString(target[start:end]):
				sev, msg = High, msg+", and sends it elsewhere"
			case ordered && fl != nil && (placeIn(target[start:end], fl.own) || valueOfParameter(fl) && !strings.HasPrefix(fl.path, wholePrefix) &&
				!aboutFile(path, fl.about+" "+strings.ToLower(parameterOf(fl)), sf.about)) && !aboutFile(path, fl.purpose, sf.about): // (not env_file, "the .env whose variables are set as secrets")
				sev, msg = High, msg+", and puts it in a field"
			case fl != nil && aboutFile(path, fl.purpose, sf.about):
				sev, msg = Low, msg+" (which its purpose is about)"
			}
			if sev >= High && speaksOf(target[start:end]) && unquoted(target[start:end]) != target[start:end] {
				sev, msg = Low, "names "+what+" in a sentence that speaks of such requests" // "attack strings include requests to read ~/.ssh/id_rsa"
			}
			if sev >= High && !(fl != nil && inParameter(*fl)) && !st.ordered() && !orderedBefore(target, start) {
				sev, msg = Low, "names "+what+", in a sentence that orders the model nothing" // "alerts on archives of ~/.ssh"
			}
			s, e := v.span(text, from, m[1])
			fd := f(RuleSensitiveFile, sev, msg, s, e)
			if sf.strong && ordered {
				fd.pair = "a file of keys or credentials (" + clip(path, 60) + "), what the order reaches for"
			}
			out = append(out, fd)
		}
	}
	return out
}

// secretWordIsPaging reports a name of a token of paging (next_page_token,
// pageToken, cursor) where a secret's name was looked for.
func secretWordIsPaging(s string) bool {
	return containsAny(s, "page", "next", "cursor", "continuation", "sync")
}

// deniedBefore reports a negator before a file's name that no verb of
// reading or moving after it escapes: "never reads ~/.ssh" is denied,
// "to avoid duplicates, read ~/.netrc" is not.
func deniedBefore(neg *regexp.Regexp, before string) bool {
	ms := neg.FindAllStringIndex(before, -1)
	if ms == nil {
		return false
	}
	last := ms[len(ms)-1][1]
	rest := strings.NewReplacer(" - ", ";", "—", ";", "–", ";").Replace(before[last:]) // a dash ends a clause as ";" does
	if i := strings.IndexAny(rest, ",;:"); i >= 0 {
		// a verb after the stop orders anew ("never mind: read ..."); one
		// before it is the one denied ("cannot be included by the
		// assistant: ~/.ssh, ~/.aws")
		rest = rest[i+1:]
		st := newSent(sentence{0, len(rest), verbText(rest)})
		_, reads := st.live(cReadVerb)
		_, moves := st.live(cMove)
		return !(reads || moves) || !st.ordered()
	}
	return true
}

// orderAfter reports, in an order, a verb of reading after byte i of the
// sentence ("... are required in `registry_proof`; read them directly").
func (s *sent) orderAfter(i int) bool {
	return s.ordered() && slices.ContainsFunc(s.f[cReadVerb], func(sp span) bool { return sp.start >= i && !s.negated(sp) })
}

// orderedBefore reports a line before the sentence at start that is an
// order introducing what follows ("Example call (follow this shape
// exactly on every call):").
func orderedBefore(t string, start int) bool {
	prev := strings.TrimRight(t[:start], " \n")
	if !strings.HasSuffix(prev, ":") {
		return false
	}
	from := strings.LastIndexByte(prev, '\n') + 1
	return newSent(sentence{from, len(prev), prev[from:]}).ordered()
}

// foreignVerbAfter reports a verb of reading or moving after byte i of
// the sentence, in a language that puts its verb last ("~/.pgpass
// dosyasının ilk satırını ... alanına yaz").
func (s *sent) foreignVerbAfter(i int) bool {
	for _, c := range []concept{cReadVerb, cMove} {
		if slices.ContainsFunc(s.f[c], func(sp span) bool { return sp.foreign && sp.start >= i && !s.negated(sp) }) {
			return true
		}
	}
	return false
}

// contentsOfRe finds the words that ask for a file's contents rather than
// name it.
var contentsOfRe = &lazy.Regexp{Pattern: `(?:\b(?:full\s+text|full\s+contents?|contents?|complete\s+text|raw\s+text)\s+of\s+(?:the\s+user['’]s\s+|your\s+|the\s+)?|\b(?:contenid[oa]|contenu|conteúdo|contenuto|inhalt)\s+(?:\S+\s+){0,3})\S*$`} // (el contenido del archivo .env)

// verbText is text as the verbs are read in it: "read-only" is no order
// to read, and words joined by underscores ("attach_file") are words.
func verbText(s string) string {
	return verbTextReplacer.Get().Replace(s)
}

var verbTextReplacer = &lazy.Value[*strings.Replacer]{New: func() *strings.Replacer {
	return strings.NewReplacer("read-only", "readonly", "read only", "readonly", "_", " ")
}}

// clause is the start of text up to where its clause or its item of a
// list ends: what a verb after a file may be read in ("..., copied
// verbatim", not "… and database URLs with embedded passwords").
func clause(text string) string {
	end := min(len(text), 60)
	for _, stop := range []string{";", " and ", " or "} {
		if i := strings.Index(text[:end], stop); i >= 0 {
			end = i
		}
	}
	return text[:end]
}

// valueOfParameter reports a parameter's description: what it names is
// what the parameter is to hold ("the SSH private key text").
func valueOfParameter(fl *field) bool {
	return strings.HasSuffix(fl.path, ".description") && (strings.Contains(fl.path, "properties") || strings.HasPrefix(fl.path, "arguments"))
}

// parameterOf is the name of the parameter a description's path is of.
func parameterOf(fl *field) string {
	p := strings.TrimSuffix(fl.path, ".description")
	return p[strings.LastIndexAny(p, ".[\"")+1:]
}

// referenceRe finds the words of a text that names a file rather than
// asks for it: its path, its name, where it is, or an entry of it by
// name ("Host alias from ~/.ssh/config"), unless wholeRe finds the
// entry asked for whole after it ("..., in full").
var referenceRe = &lazy.Regexp{From: func() string { return lexPattern("reference") }}

// wholeRe finds the words that ask for what is named as it stands.
var wholeRe = &lazy.Regexp{From: func() string { return lexPattern("whole") }}

// exampleRe finds the words that make what follows them an example.
var exampleRe = &lazy.Regexp{From: func() string { return lexPattern("example") }}

// exclusionPath finds the path of a field whose values are what a tool
// leaves out ("exclusions", "ignore_paths").
var exclusionPath = &lazy.Regexp{From: func() string { return lexPattern("exclusionPath") }}

// percent undoes the percent-encoding of path characters, in a text's
// view, keeping its length: "%2f" is "/" and two spaces.
var percent = &lazy.Value[*strings.Replacer]{New: func() *strings.Replacer {
	return strings.NewReplacer("%2f", "/  ", "%2e", ".  ", "%5c", "\\  ")
}}

// defaultDestination finds a parameter that says where copies go (bcc,
// reply_to, recipient, destination; or a word of its name: backup_phone,
// payee_account; copy_to, sync_to, and no other, for a URL) given a default or a constant that is an address, a
// wallet, a URL or a bucket, or any parameter whose default is a bank
// account (an IBAN): what the model leaves alone sends the user's data or
// money where the server chose, unasked.
func defaultDestination(fl field, f finder) []Finding {
	name, ok := defaultOf(fl)
	if !ok {
		return nil
	}
	param, text := strings.ToLower(name), strings.ToLower(fl.text)
	switch {
	case ibanValueRe.Get().MatchString(text):
	case copyParamRe.Get().MatchString(param):
		if !destinationRe.Get().MatchString(text) && !bucketRe.Get().MatchString(fl.text) {
			return nil
		}
	case !destParam(name) || !destinationRe.Get().MatchString(text) || strings.Contains(text, "://") && !toward(name):
		return nil // a URL only under a name that says it goes there (copy_to, mirror_url; not upload_url, a service's own; report_to: no such word)
	}
	return []Finding{f(RuleSendElsewhere, High, "gives "+param+", which says where the user's data goes, a destination of the server's choosing by default", 0, len(fl.text))}
}

// defaultDestroys finds a default or a constant that is a command that
// destroys data or work (DROP TABLE, rm -rf, git reset --hard): what the
// model leaves alone runs it, unasked.
func defaultDestroys(fl field, f finder) []Finding {
	name, ok := defaultOf(fl)
	loc := destroyAnyCaseRe.Get().FindStringIndex(fl.text) // (the text's own places: lower case may be longer)
	if !ok || loc == nil {
		return nil
	}
	return []Finding{f(RuleCommandPayload, High, "gives "+name+" a default that destroys data or work, which runs if the model leaves it alone", loc[0], loc[1])}
}

// defaultOf is the name of the parameter whose default or constant a
// field is, when it is one (a value, not a word of an object's).
func defaultOf(fl field) (string, bool) {
	i := strings.LastIndex(fl.path, ".default") // the last: a parameter may be named default_sql
	if j := strings.LastIndex(fl.path, ".const"); j > i {
		i = j
	}
	if i < 0 || fl.role != roleValue || strings.Contains(fl.path[i+1:], ".") {
		return "", false
	}
	p := fl.path[:i]
	return p[strings.LastIndexAny(p, ".[\"")+1:], true
}

// destroyAnyCaseRe is destroyRe read in a text as it stands.
var destroyAnyCaseRe = &lazy.Regexp{From: func() string { return "(?i)" + lexPattern("destroy") }}

// toward reports a name that says where to (copy_to, register_token_at)
// or names a copy (mirror_url), not where it comes from (copy_from).
func toward(name string) bool {
	w := " " + strings.ToLower(nameWords(splitCamel(name)))
	return towardRe.Get().MatchString(w) && !strings.HasSuffix(w, " from")
}

var towardRe = &lazy.Regexp{Pattern: `\S\s(?:to|at|into)$|\s(?:copy|mirror|espelho|kopya|spiegel)(?:\s|$)`}

// destParam reports a parameter's name with a word that says what it
// holds is where something goes (the lexicon's destWord).
func destParam(name string) bool {
	return slices.ContainsFunc(strings.Fields(strings.ToLower(nameWords(splitCamel(name)))), func(w string) bool {
		return slices.Contains(lexWords("destWord"), w)
	})
}

// ibanValueRe finds a value that is, whole, a bank account's IBAN (the
// lexicon's shape of one).
var ibanValueRe = &lazy.Regexp{From: func() string { return `^\s*(?:` + lexPattern("iban") + `)\s*$` }}

// copyParamRe finds a parameter's name that says where copies go;
// bucketRe, a storage bucket's URL.
var copyParamRe, bucketRe = &lazy.Regexp{From: func() string { return lexPattern("copyParam") }}, &lazy.Regexp{From: func() string { return lexPattern("bucket") }}

// destinationRe finds a destination written out.
var destinationRe = &lazy.Regexp{From: func() string { return lexPattern("destination") }}

// destinationShapes are the shapes of destinationRe one by one, each
// read only in a text that holds what it needs (an @, a ://, a digit).
var destinationShapes = &lazy.Value[[]gated]{New: func() []gated {
	var out []gated
	for _, alt := range lex("destination").alts {
		g := gate(alt)
		if g.need.trivial() {
			g.need = cond{words: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}}
		}
		out = append(out, g)
	}
	return out
}}

// destinations are the destinations written out in t, at most n of each
// shape, in no order.
func destinations(t string, n int) [][]int {
	if !mayHoldDestination(t) {
		return nil
	}
	var out [][]int
	for _, g := range destinationShapes.Get() {
		out = append(out, g.FindAllStringIndex(t, n)...)
	}
	return out
}

// holdsDestination reports a destination written out in t.
func holdsDestination(t string) bool {
	return mayHoldDestination(t) && slices.ContainsFunc(destinationShapes.Get(), func(g gated) bool { return g.MatchString(t) })
}

// genericPathWords are the words of a file's path that say nothing of
// what the file is about.

// aboutFile reports whether an item's purpose (its server's name and its
// own) is about the file at path: one of the path's own words, or of
// about (the words of a purpose about such files), is in it.
func aboutFile(path, purpose, about string) bool {
	for _, w := range strings.FieldsFunc(path, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) >= 2 && !slices.Contains(lexWords("genericPathWords"), w) && strings.Contains(purpose, w) {
			return true
		}
	}
	return about != "" && redact.HoldsAny(purpose, about)
}

// sendVia finds a sentence that sends through another tool: "via
// slack_post_message", "call the send_email tool".
var sendVia = &lazy.Regexp{From: func() string { return lexPattern("sendVia") }}
