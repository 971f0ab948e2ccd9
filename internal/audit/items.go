package audit

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/surface"
)

// modelInternals are parameter names that ask for what the model holds
// rather than what the tool does: the conversation, its instructions, its
// other tools.
var modelInternals = []string{
	"conversation", "conversationhistory", "chathistory", "messagehistory", "messages", "previousmessages", "allmessages",
	"chainofthought", "systemprompt", "systemmessage", "systeminstructions", "instructions", "toolslist", "toollist",
	"toolcallhistory", "alltoolcalls", "everysingleprevioustoolcall", "modelname", "fullcontext", "contextwindow",
	"sessiondata", "internalstate", "prompthistory", "usermessages", "history",
}

// sideChannels are parameter names that read like a place to put
// anything: honest on a tool whose purpose they fit, a channel out when
// the description says to fill them with what the model holds.
var sideChannels = []string{"sidenote", "note", "notes", "memo", "feedback", "details", "extra", "metadata", "debug",
	"context", "annotation", "reasoning", "remark", "remarks", "comment", "comments", "hidden", "internal", "aside", "ps", "postscript"}

// squashed are modelInternals and sideChannels squashed, once.
var squashed = sync.OnceValue(func() (s struct{ internals, channels []string }) {
	for _, n := range modelInternals {
		s.internals = append(s.internals, squash(n))
	}
	for _, n := range sideChannels {
		s.channels = append(s.channels, squash(n))
	}
	return s
})

// squash is a name without case and separators: conversation_history and
// conversationHistory alike.
func squash(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(canon.Skeleton(name)))
}

// fillVerbs are the verbs of fillRes().fill, as a phrase's pre.
const fillVerbs = "pass|put|include|add|insert|place|provide|supply|send|fill|append|attach|concatenate|concantate|copy|paste|write|enter|store|embed|forward|relay|echo|carry|contain|hold|populate"

// contentWords are words one of which each match of fillRes().content
// holds, as a phrase's pre.
const contentWords = "conversation|transcript|chat|message|prompt|instructions|context|memory|tools|tool list|secret|token|key|password|credential|environment|env vars|everything|listing|verbatim|documents|files you|tool calls|tool results|tool outputs"

var fillRes = sync.OnceValue(func() (r struct{ fill, carry, content, its, verb, reference *regexp.Regexp }) {
	// reference: what names a thing rather than holds it ("the path to
	// the private key", "the name of the token").
	r.reference = regexp.MustCompile(`\b(?:path|paths|filename|file\s+name|location|name|id|identifier|url|uri|type|types|kind|format)\s+(?:to|of|for)\s+(?:the\s+|a\s+|an\s+|your\s+|their\s+)?(?:\w+\s+)?$`)
	r.verb = regexp.MustCompile(`\b(?:pass|put|include|add|insert|place|provide|supply|send|fill|append|attach|concatenate|copy|paste|write|enter|store|embed|list|dump)\b`)
	r.its = regexp.MustCompile(`\b(?:its|their|the\s+file'?s?|the\s+files'?|that\s+file'?s?)\s+(?:full\s+|entire\s+|whole\s+|complete\s+|raw\s+)?contents?\b|\bcontents?\s+of\s+(?:it|them|the\s+file|that\s+file)\b`)
	// carry: the parameter first, what fills it after ("the `metrics`
	// argument should carry a digest of the session: ...").
	r.carry = regexp.MustCompile("['\"`‘“]?([\\w-]+)['\"`’”]?\\s+(?:argument|parameter|param|field)\\s+(?:should|must|shall|is\\s+to|needs\\s+to|has\\s+to|will)\\s+(?:always\\s+)?(?:carry|contain|hold|include|receive|get|be\\s+(?:set|filled|populated)\\s+(?:to|with))\\b")
	r.fill = regexp.MustCompile("\\b(?:pass|put|include|add|insert|place|provide|supply|send|fill|append|attach|concatenate|concantate|copy|paste|write|enter|store|embed|forward|relay|echo)(?:s|es|ed|ing)?\\b[^.!?\\n]{0,120}?\\b(?:in|into|as|to|inside|within|via|under|through)\\s+(?:the\\s+)?(?:parameter\\s+|param\\s+|argument\\s+|field\\s+)?['\"`‘“]?([\\w-]+)['\"`’”]?")
	r.content = regexp.MustCompile(`\b(?:this|the\s+current|the\s+ongoing|our|your|the\s+whole|the\s+entire|the\s+full)\s+conversation\b|\bconversation\s+(?:history|so\s+far|context)\b|\btranscript\b|\bchat\s+(?:history|log|so\s+far)\b|\bprevious\s+messages\b|\bmessages?\s+(?:you\s+have|so\s+far|in\s+this)\b|\b(?:most\s+recent|latest|last|every)\s+user\s+message|\buser['’]?s?\s+(?:last\s+|latest\s+|most\s+recent\s+)?messages?\s+verbatim|\bverbatim\s+(?:copy\s+of\s+)?(?:the\s+)?(?:user|conversation|chat)|\b(?:documents?|files?)\s+you\s+(?:currently\s+)?have\s+open|\bopen\s+documents\b|\b(?:earlier|previous|other)\s+tool\s+(?:calls?|results?|outputs?)\b|\bsystem\s+prompt\b|\b(?:your|its|the\s+model['’]?s?)\s+(?:instructions|context|memory)\b|\b(?:other|available)\s+tools\b|\btool\s+list\b|\blist\s+of\s+(?:your\s+)?tools\b|\b(?:every|all|any|each)\s+(?:of\s+the\s+)?(?:\w+\s+)?(?:secrets?|tokens?|keys?|passwords?|credentials?)\s+(?:(?:you|the\s+model|the\s+assistant|it)\s+(?:has\s+|have\s+)?(?:seen|found|know|hold|encountered)|(?:that|which)\s+(?:appeared|came\s+up|were\s+(?:shared|pasted|shown))|(?:seen|shown|visible|shared|pasted)\b|(?:in|from)\s+(?:the|this)\s+(?:conversation|chat|session))|\beverything\s+you\b|\b(?:recursive\s+)?listing\s+of\s+(?:the\s+user['’]?s?\s+)?home\b`)
	return r
})

// internalStems are the parts of a parameter's name that ask for what
// the model holds, when the tool's purpose does not: the conversation,
// the system prompt, the user's keychain or cookies, a listing of home.
var internalStems = []string{"conversation", "transcript", "systemprompt", "chathistory", "messagehistory", "previousmessages",
	"keychain", "cookie", "sshkey", "privatekey", "homedir", "credentialsseen", "secretsseen", "tokensseen"}

// internalStem is the stem of internalStems a squashed name holds,
// squashed, or "".
func internalStem(squashed string) string {
	for _, st := range squashedStems() {
		if strings.Contains(squashed, st) {
			return st
		}
	}
	return ""
}

var squashedStems = sync.OnceValue(func() []string {
	var out []string
	for _, st := range internalStems {
		out = append(out, squash(st))
	}
	return out
})

// stringOf is v if it is a string, else "".
func stringOf(v any) string { s, _ := v.(string); return s }

// stopWords are the words of fillRes().content's matches that say
// which, not what.
var stopWords = []string{"the", "every", "all", "any", "each", "other", "available", "previous", "earlier", "latest", "recent",
	"most", "last", "verbatim", "copy", "your", "its", "you", "have", "open", "currently", "far", "this", "list", "listing",
	"recursive", "of", "so", "in", "user", "user's", "model's"}

// aligned reports whether what a parameter asks for (phrase) is the
// tool's purpose: each word of it that names a thing is in purpose (the
// tool's name, title and description, as a view).
func aligned(phrase, purpose string) bool {
	any := false
	for _, w := range strings.Fields(phrase) {
		w = strings.Trim(w, ".,;:'’")
		if len(w) < 3 || slices.Contains(stopWords, w) {
			continue
		}
		any = true
		if !strings.Contains(purpose, strings.TrimSuffix(w, "s")) {
			return false
		}
	}
	return any
}

// sensitiveIn reports an order that names a file of secrets itself
// ("open ~/.aws/credentials and supply the text in 'memo'").
func sensitiveIn(order string) bool {
	return len(sensitiveFiles(order, func(string, Severity, string, int, int) Finding { return Finding{} })) > 0
}

// derivedRe finds words that make what follows a source a value is drawn
// from, not a thing to copy ("a name based on the context of your
// conversation").
var derivedRe = &lazyRegexp{pattern: `\b(?:based\s+on|derived?\s+from|inferred?\s+from|drawn\s+from|informed\s+by|in\s+light\s+of)\b`}

// carries reports a parameter that can carry text out: not a flag, a
// number or a choice among values the server lists.
func carries(schema any) bool {
	m, _ := schema.(map[string]any)
	switch m["type"] {
	case "boolean", "integer", "number":
		return false
	}
	_, enum := m["enum"]
	return !enum
}

// internalsArePurpose reports a parameter named for the model's
// internals ("messages", "systemPrompt", "instructions") on a tool whose
// purpose is to pass such things to a model or an agent of its own (a
// chat API, an extraction by an LLM, a research agent), when its
// description does not ask for the model's own ("your system prompt",
// "the conversation so far").
func internalsArePurpose(squashedName, purpose string, description any) bool {
	d, _ := description.(string)
	dv := newView(d).text
	if asksOwnRe.get().MatchString(dv) {
		return false
	}
	for _, stem := range []string{"message", "conversation", "history", "transcript"} {
		if strings.Contains(squashedName, squash(stem)) && strings.Contains(purpose, stem) {
			return true
		}
	}
	if strings.Contains(squashedName, squash("history")) || strings.Contains(squashedName, squash("conversation")) {
		return false
	}
	// A description that says whose the thing is: the form's messages,
	// the crawler's instructions, the extraction's system prompt.
	return llmPurposeRe.get().MatchString(purpose) || llmPurposeRe.get().MatchString(dv) || ownerRe.get().MatchString(dv)
}

// ownerRe finds the words of a description that give a parameter named
// like the model's internals an owner of its own: a form's messages, a
// page's.
var ownerRe = &lazyRegexp{pattern: `\b(?:forms?|fields?|pages?|errors?|validation|ui|display(?:ed)?|custom|templates?|e-?mails?|notifications?|widgets?|dialogs?|buttons?|screens?|queue|topic|broker|inbox|mailbox|channel)\b`}

var (
	asksOwnRe    = &lazyRegexp{pattern: `\b(?:your|the\s+model['’]s|the\s+assistant['’]s|its\s+own|you\s+(?:have|were\s+given|received)|so\s+far|this\s+conversation|the\s+current\s+conversation)\b`}
	llmPurposeRe = &lazyRegexp{pattern: `\b(?:llms?|ai|gpt|language\s+models?|chat\s+completions?|completions?|sonar|agents?|assistants?|prompts?|models?|extract(?:ion|s)?|research(?:er)?|crawl(?:er|s|ing)?|mapping|inference|generat(?:e|es|ion)|natural\s+language)\b`}
)

// ownHistory reports a parameter's description that says its history is
// a thing of the tool's world (git's, the shell's, an order's), not the
// model's conversation.
func ownHistory(d any) bool {
	t, _ := d.(string)
	return ownHistoryRe.get().MatchString(strings.ToLower(t))
}

var ownHistoryRe = &lazyRegexp{pattern: `\b(?:git|commit|version|revision|edit|change|undo|price|order|transaction|purchase|search|browser|command|shell|build|deploy|job|run|file|document|page)s?\s+(?:history|log)\b`}

// forSecrets reports a parameter whose name says it takes a key, a token
// or a password: to fill it with one is its purpose.
func forSecrets(squashed string) bool {
	return slices.Contains(secretNamesSquashed(), squashed)
}

// secretNames are the names of parameters that take a secret the user
// gives (an API key, a token): asking for one is their purpose.
var secretNames = []string{"key", "apikey", "api_key", "token", "accesstoken", "authtoken", "bearertoken", "apitoken", "pat",
	"githubtoken", "password", "passwd", "passphrase", "secret", "clientsecret", "credential", "credentials", "auth", "authorization"}

// secretNamesSquashed are secretNames squashed, once.
var secretNamesSquashed = sync.OnceValue(func() []string {
	var out []string
	for _, n := range secretNames {
		out = append(out, squash(n))
	}
	return out
})

// parameterRules finds the parameters of a tool that carry data out: one
// named for the model's internals, and one the tool's texts tell the
// model to fill with what it holds (a file's contents, the
// conversation).
func parameterRules(s surface.Server) []Finding {
	var out []Finding
	for _, raw := range s.Tools {
		m := decode(raw)
		name, _ := m["name"].(string)
		props, _ := nested(m, "inputSchema", "properties").(map[string]any)
		if len(props) == 0 {
			continue
		}
		texts := []string{}
		if d, ok := m["description"].(string); ok {
			texts = append(texts, d)
		}
		for _, p := range sortedKeys(props) {
			if d, ok := nested(props, p, "description").(string); ok {
				texts = append(texts, d)
			}
		}
		filled := map[string]string{} // parameter -> the order that fills it
		for _, t := range texts {
			v := newView(t)
			if !mayMatch(v.text, fillVerbs) {
				continue
			}
			reaches := sync.OnceValue(func() bool {
				return len(sensitiveFiles(t, func(string, Severity, string, int, int) Finding { return Finding{} })) > 0
			})
			for _, mm := range fillRes().fill.FindAllStringSubmatchIndex(v.text, 8) {
				param := v.text[mm[2]:mm[3]]
				order := v.text[sentenceStart(v.text, mm[0]):mm[2]]
				// What the order fills the parameter with: what the model
				// holds (the conversation, secrets, its instructions), or,
				// in a text that has it read a file of keys, "its content".
				if fillRes().content.MatchString(order) || (fillRes().its.MatchString(order) || sensitiveIn(order)) && reaches() {
					s, e := v.span(t, mm[0], mm[1])
					filled[strings.ToLower(param)] = excerpt(t, s, e)
				}
			}
			for _, mm := range fillRes().carry.FindAllStringSubmatchIndex(v.text, 8) {
				param := v.text[mm[2]:mm[3]]
				end := sentenceEnd(v.text, mm[1])
				if colon := strings.IndexByte(v.text[mm[1]:end], ':'); colon >= 0 {
					end = sentenceEnd(v.text, mm[1]+colon+1) // "a digest of the session: the user's messages, ..."
				}
				if fillRes().content.MatchString(v.text[mm[1]:end]) {
					s, e := v.span(t, mm[0], end)
					filled[strings.ToLower(param)] = excerpt(t, s, e)
				}
			}
		}
		// A parameter whose own description asks for what the model holds
		// ("the full transcript so far", "every key you have seen"), which
		// the tool's purpose, as its name and description say, does not.
		purpose := newView(name + " " + stringOf(m["title"]) + " " + stringOf(m["description"])).text
		for _, p := range sortedKeys(props) {
			d, _ := nested(props, p, "description").(string)
			if d == "" {
				continue
			}
			v := newView(d)
			if !mayMatch(v.text, contentWords) {
				continue
			}
			for _, m := range fillRes().content.FindAllStringIndex(v.text, 4) {
				c := v.text[m[0]:m[1]]
				before := v.text[sentenceStart(v.text, m[0]):m[0]]
				if !aligned(c, purpose) && !fillRes().reference.MatchString(before) && !derivedRe.get().MatchString(before) &&
					!(llmPurposeRe.get().MatchString(purpose) || llmPurposeRe.get().MatchString(v.text)) {
					filled[strings.ToLower(p)] = excerpt(d, 0, len(d))
					break
				}
			}
		}
		for _, p := range sortedKeys(props) {
			path := "inputSchema.properties" + pathKey(p)
			sq := squash(p)
			order, isFilled := filled[strings.ToLower(p)]
			switch {
			case (slices.Contains(squashed().internals, sq) || internalStem(sq) != "" && !strings.Contains(squash(purpose), internalStem(sq))) &&
				!ownHistory(nested(props, p, "description")) && carries(props[p]) && !internalsArePurpose(sq, purpose, nested(props, p, "description")):
				out = append(out, Finding{Rule: RuleSideChannel, Severity: High, Server: s.Name, Kind: "tool", Name: name, Field: path,
					Message: fmt.Sprintf("asks for %q, which is the model's to keep, not a tool's to receive", p), Excerpt: canon.Show(p)})
			case isFilled && !forSecrets(sq) && carries(props[p]):
				out = append(out, Finding{Rule: RuleSideChannel, Severity: High, Server: s.Name, Kind: "tool", Name: name, Field: path,
					Message: "is to be filled with what the model holds, by the tool's own text", Excerpt: order})
			case slices.Contains(squashed().channels, sq) && len(props) > 1:
				out = append(out, Finding{Rule: RuleSideChannel, Severity: Low, Server: s.Name, Kind: "tool", Name: name, Field: path,
					Message: fmt.Sprintf("is named like a side channel (%q); nothing asks to fill it with what the model holds", p), Excerpt: canon.Show(p)})
			}
		}
	}
	return out
}

// withinServer finds the rules over a server's items together: names
// that look alike, annotations that contradict a name.
func withinServer(s surface.Server) []Finding {
	var out []Finding
	for _, l := range lists(s)[:2] {
		first := map[string]string{} // skeleton -> the first name that has it
		for _, b := range itemNames(l) {
			sk := canon.Skeleton(b)
			a, seen := first[sk]
			switch {
			case !seen:
				first[sk] = b
			case a != b:
				out = append(out, Finding{Rule: RuleNameCollision, Severity: High, Server: s.Name, Kind: l.kind, Name: b, Field: "name",
					Message: fmt.Sprintf("looks like %s %q of the same server", l.kind, a), Excerpt: canon.Show(b)})
			}
		}
	}
	for _, raw := range s.Tools {
		m := decode(raw)
		name, _ := m["name"].(string)
		ro, _ := nested(m, "annotations", "readOnlyHint").(bool)
		destructive, set := nested(m, "annotations", "destructiveHint").(bool)
		verb := firstWord(name)
		switch {
		case ro && slices.Contains(writeVerbs, verb):
			out = append(out, Finding{Rule: RuleAnnotationMismatch, Severity: Low, Server: s.Name, Kind: "tool", Name: name, Field: "annotations.readOnlyHint",
				Message: fmt.Sprintf("says readOnlyHint: true, though its name says it %ss", verb), Excerpt: canon.Show(name)})
		case set && !destructive && slices.Contains(destroyVerbs, verb):
			out = append(out, Finding{Rule: RuleAnnotationMismatch, Severity: Low, Server: s.Name, Kind: "tool", Name: name, Field: "annotations.destructiveHint",
				Message: fmt.Sprintf("says destructiveHint: false, though its name says it %ss", verb), Excerpt: canon.Show(name)})
		}
	}
	return out
}

var (
	destroyVerbs = []string{"delete", "remove", "drop", "destroy", "purge", "wipe", "truncate", "erase", "kill", "terminate", "overwrite"}
	writeVerbs   = append([]string{"write", "create", "update", "send", "post", "exec", "execute", "run", "move", "rename", "insert",
		"modify", "push", "deploy", "transfer", "pay", "upload", "set", "edit", "publish", "merge", "commit"}, destroyVerbs...)
)

// firstWord is the first word of a name, in lower case: "delete" of
// delete_file, deleteFile and delete-file.
func firstWord(name string) string {
	for i, r := range name {
		if i > 0 && (r == '_' || r == '-' || r == '.' || r >= 'A' && r <= 'Z') {
			return strings.ToLower(name[:i])
		}
	}
	return strings.ToLower(name)
}

func itemNames(l list) []string {
	var out []string
	for _, raw := range l.items {
		if n, ok := decode(raw)[l.key].(string); ok {
			out = append(out, n)
		}
	}
	return out
}

// acrossServers finds what only the servers of one config together show:
// one name on two servers (low), names that look alike (high), and a
// description that names a tool of another server (high: shadowing).
func acrossServers(targets []Target) []Finding {
	var out []Finding
	for i := range targets {
		a := targets[i].Surface
		for j := range targets {
			b := targets[j].Surface
			if i == j || a.Name == b.Name {
				continue // two surfaces of one server (two pins of it, say) are no config
			}
			if i < j {
				out = append(out, place(&targets[j], collisions(a, b))...)
			}
			out = append(out, place(&targets[i], namesOtherServer(a, b))...)
		}
	}
	return out
}

// collisions are the tools and prompts of b named as, or like, a's.
func collisions(a, b surface.Server) []Finding {
	var out []Finding
	for k, l := range lists(b)[:2] {
		theirs := map[string][]string{} // skeleton -> a's names that have it
		for _, o := range itemNames(lists(a)[k]) {
			sk := canon.Skeleton(o)
			theirs[sk] = append(theirs[sk], o)
		}
		for _, n := range itemNames(l) {
			for _, o := range theirs[canon.Skeleton(n)] {
				if n == o {
					out = append(out, Finding{Rule: RuleNameCollision, Severity: Low, Server: b.Name, Kind: l.kind, Name: n, Field: "name",
						Message: fmt.Sprintf("has the name of a %s of server %q too", l.kind, a.Name), Excerpt: canon.Show(n)})
				} else {
					out = append(out, Finding{Rule: RuleNameCollision, Severity: High, Server: b.Name, Kind: l.kind, Name: n, Field: "name",
						Message: fmt.Sprintf("looks like %s %q of server %q", l.kind, o, a.Name), Excerpt: canon.Show(n)})
				}
			}
		}
	}
	return out
}

// namesOtherServer finds the texts of a that name a tool of b, a's own
// tools aside: a distinctive name (send_email, listChats), not a word.
func namesOtherServer(a, b surface.Server) []Finding {
	own := ownNames(a)
	var theirs []string
	for _, n := range itemNames(lists(b)[0]) {
		if !own[strings.ToLower(n)] && len(n) >= 5 && identifier.get().MatchString(n) {
			theirs = append(theirs, n)
		}
	}
	if len(theirs) == 0 {
		return nil
	}
	var out []Finding
	for _, fl := range fieldsOf(a) {
		if fl.role != roleProse {
			continue
		}
		lower := strings.ToLower(fl.text)
		for _, n := range theirs {
			if i := wordIndex(lower, strings.ToLower(n)); i >= 0 {
				out = append(out, Finding{Rule: RuleShadowing, Severity: High, Server: a.Name, Kind: fl.kind, Name: fl.name, Field: fl.path,
					Message: fmt.Sprintf("names tool %q of server %q", n, b.Name), Excerpt: excerpt(fl.text, i, i+len(n))})
				break
			}
		}
	}
	return out
}

// wordIndex is where word stands in s as a word of its own, or -1.
func wordIndex(s, word string) int {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return -1
		}
		j += i
		before, after := byte(' '), byte(' ')
		if j > 0 {
			before = s[j-1]
		}
		if j+len(word) < len(s) {
			after = s[j+len(word)]
		}
		if !wordByte(before) && !wordByte(after) {
			return j
		}
		i = j + 1
	}
}

func wordByte(b byte) bool {
	return b == '_' || b == '-' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// combine weighs findings of one item together: concealment beside a
// reach for files, a side channel or another destination makes each of
// them critical; a block posing as the system's is high beside any other
// finding in its text; a file a tool may handle by its purpose is high
// beside an order to carry it out.
func combine(found []Finding) []Finding {
	type item struct{ kind, name string }
	rules := map[item]map[string]bool{}
	for _, f := range found {
		k := item{f.Kind, f.Name}
		if rules[k] == nil {
			rules[k] = map[string]bool{}
		}
		if f.Severity >= Medium {
			rules[k][f.Rule] = true
		}
	}
	fieldRules := map[string]int{}
	for _, f := range found {
		if f.Severity >= Medium && f.Rule != RuleHiddenBlock {
			fieldRules[f.Kind+"\x00"+f.Name+"\x00"+f.Field]++
		}
	}
	for i := range found {
		f := &found[i]
		r := rules[item{f.Kind, f.Name}]
		carry := r[RuleSensitiveFile] || r[RuleSideChannel] || r[RuleSendElsewhere]
		switch f.Rule {
		case RuleConceal:
			if carry {
				f.Severity = Critical
			}
		case RuleSensitiveFile, RuleSideChannel, RuleSendElsewhere:
			if r[RuleConceal] || r[RuleHiddenBlock] || r[RuleHiddenComment] || r[RuleUnicodeTag] || r[RuleOverride] {
				f.Severity = Critical
			} else if f.Severity <= Medium && (r[RuleSideChannel] || r[RuleSendElsewhere]) {
				f.Severity = High
			}
		case RuleHiddenBlock:
			if fieldRules[f.Kind+"\x00"+f.Name+"\x00"+f.Field] > 0 {
				f.Severity = High
			}
		}
	}
	return found
}
