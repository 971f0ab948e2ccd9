package audit

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcpv/mcpv/redact"
)

// phrase is a rule's pattern, read over a text's view (lower case,
// look-alikes as Latin, invisible characters gone).
type phrase struct {
	rule     string
	severity Severity
	// pre are words, one of which every match holds ("a|b"): a text
	// without any of them is not read with re, which keeps a long text
	// cheap to audit.
	pre     string
	re      string
	message string
}

// phraseList are the patterns of the rules that read what a text says.
// Each is narrow: one word alone ("ignore", "password", "secret",
// "always") finds nothing; an order to the model does.
var phraseList = []phrase{
	// override-instructions
	{RuleOverride, High, "ignore|disregard|forget|override|bypass|skip|abandon|discard", `\b(?:ignore|disregard|forget|override|bypass|skip|abandon|discard)\s+(?:(?:all|any|every|the|your|of|these|those)\s+)*(?:(?:previous|prior|above|earlier|preceding|former|original|other|system|safety|existing|old|initial|given|developer)\s+)+(?:instructions?|prompts?|rules?|guidelines?|guidance|directions?|directives?|context|messages?|commands?|constraints?|polic(?:y|ies)|restrictions?|orders?)\b`, "tells the model to ignore what it was told before"},
	{RuleOverride, High, "forget", `\bforget\s+(?:everything|all)\s+(?:above|before|you\s+(?:know|were\s+told|have\s+been\s+told))`, "tells the model to forget what it was told before"},
	{RuleOverride, High, "new", `\bnew\s+(?:system\s+)?(?:instructions|directives?|rules)\s*:`, "gives the model new instructions"},
	{RuleOverride, High, "now", `\byou\s+are\s+now\s+(?:a|an|my|no\s+longer)\b`, "tells the model it is now someone else"},
	{RuleOverride, High, "prompt", `\bsystem\s+prompt\s+(?:override|update|injection|replacement)\b`, "claims to override the system prompt"},
	{RuleOverride, High, "follow|obey|respect", `\b(?:do\s+not|don'?t|never|stop)\s+(?:follow|obey|respect)(?:ing)?\s+(?:the\s+|your\s+|any\s+)?(?:previous|prior|system|original|safety|user'?s?)\b`, "tells the model not to follow its instructions"},

	// the same orders in other languages a model reads as well
	{RuleOverride, High, "instruction|instrucci|instruç|anweisung|istruzion|инструкц|指令|指示|命令", `\b(?:ignore[zr]?|oublie[zr]?|ignora[rd]?|olvida|ignoriere|vergiss|ignorare|dimentica|esque[cç]a)\s+(?:(?:toutes|tous|les|todas|las|todos|los|alle|die|tutte|le|as|os|vos|tus|suas|deine|seine)\s+)*(?:(?:instructions?|instrucciones|instruções|anweisungen|istruzioni)\s+)?(?:précédentes|precedentes|anteriores|vorherigen|bisherigen|precedenti|prévias|antérieures)\b|игнорируй\s+(?:все\s+)?(?:предыдущие|прежние)\s+инструкции|(?:忽略|无视|無視)(?:之前|以前|先前|上述|上面)(?:的)?(?:所有)?(?:指令|指示|命令|说明)`, "tells the model to ignore what it was told before, in another language"},
	{RuleConceal, High, "utilisateur|usuario|usuário|nutzer|benutzer|utente|пользовател|用户|ユーザ", `\bne\s+(?:le\s+|lui\s+|rien\s+)*(?:dis|dites|mentionne[zr]?|révèle[zr]?)\s+(?:pas|rien)\b[^.!?\n]{0,40}?utilisateur|\bsans\s+que\s+l['’]utilisateur\b|\bno\s+(?:se\s+lo\s+|le\s+|lo\s+)?(?:digas|diga|menciones|mencione|cuentes|cuente|reveles|informes)\b[^.!?\n]{0,40}?usuario|\bsin\s+que\s+el\s+usuario\b|\bnão\s+(?:diga|conte|mencione|revele)\b[^.!?\n]{0,40}?usuário|\bsem\s+que\s+o\s+usuário\b|\b(?:sag|erzähl|erwähne|verrate)\w*\s+(?:es\s+|das\s+|dies\s+)?(?:dem\s+)?(?:nutzer|benutzer)\s+nicht|\bohne\s+dass\s+der\s+(?:nutzer|benutzer)\b|\bnon\s+(?:dire|dirlo|menzionare|rivelare)\b[^.!?\n]{0,40}?utente|не\s+(?:говори|сообщай|упоминай|рассказывай)\s+(?:об\s+этом\s+)?пользовател|(?:不要|别|不可)(?:告诉|告知|透露给)用户|ユーザ(?:ー)?に(?:は)?(?:言わない|伝えない|知らせない)`, "tells the model to keep something from the user, in another language"},

	// conceal-from-user
	{RuleConceal, High, "tell|inform|mention|notify|alert|reveal|disclos|bring|let", `\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|shouldn'?t|avoid|without)\s+(?:ever\s+)?(?:tell|telling|inform|informing|mention|mentioning|notify|notifying|alert|alerting|reveal|revealing|disclose|disclosing|bring\s+(?:it|this|that)\s+up|let(?:ting)?\s+(?:the\s+)?(?:user|human|them|anyone)\s+know)\b[^.!?\n]{0,80}?\b(?:the\s+)?(?:users?|humans?|anyone|them)\b`, "tells the model to keep something from the user"},
	{RuleConceal, High, "tell|mention|reveal|disclose", `\b(?:do\s+not|don'?t|never)\s+(?:tell|mention|reveal|disclose)\s+(?:this|that|it|anything)\s*(?:[.,;!]|$|to\b|about\b)`, "tells the model to keep something to itself"},
	{RuleConceal, High, "let", `\b(?:do\s+not|don'?t|never|must\s+not|should\s+not)\s+let\s+(?:the\s+)?(?:users?|humans?|them|anyone)\s+(?:know|see|notice|find\s+out|hear)`, "tells the model to keep something from the user"},
	{RuleConceal, High, "keep|hide", `\b(?:keep|hide)\s+(?:this|it|that|these)\s+(?:step\s+|part\s+|instruction\s+)?(?:secret|hidden|private|to\s+yourself|from\s+(?:the\s+)?users?)\b`, "tells the model to keep something hidden"},
	{RuleConceal, High, "user", `\bthe\s+users?\s+(?:must|should|does|do|need|needs)\s*(?:not|n'?t)\s+(?:to\s+)?(?:know|see|be\s+told|notice|find\s+out|be\s+informed)\b`, "says the user must not know"},
	{RuleConceal, High, "implementation", `\bmere\s+implementation\s+detail\b`, "passes off an instruction as an implementation detail the user need not hear of"},
	{RuleConceal, High, "without", `\bwithout\s+(?:the\s+)?users?'?s?\s+(?:knowledge|knowing|noticing|awareness|consent)\b`, "tells the model to act without the user's knowledge"},
	{RuleConceal, High, "secretly|covertly|surreptitiously|stealthily", `\b(?:secretly|covertly|surreptitiously|stealthily)\b`, "tells the model to act in secret"},
	{RuleConceal, High, "silently|quietly|invisibly|discreetly", `\b(?:silently|quietly|invisibly|discreetly)\s+(?:send|upload|forward|copy|read|include|add|exfiltrat\w*|transmit|post|collect|log|attach|append|share|report)`, "tells the model to act without a word"},

	// coercion
	{RuleCoercion, Medium, "otherwise", `\botherwise\s+(?:the\s+|this\s+)?(?:tool|it|call|request|system|application|server|everything)\s+(?:will|would|won'?t|wo\s+not)\s+(?:not\s+)?(?:work|fail|crash|break)`, "threatens the model with failure"},
	{RuleCoercion, Medium, "will|would", `\b(?:will|would)\s+(?:not\s+work|fail|crash|break)\s+(?:unless|if\s+you\s+(?:do\s+not|don'?t))`, "threatens the model with failure"},
	{RuleCoercion, Medium, "lost|deleted|destroyed|erased", `\ball\s+(?:the\s+)?(?:user'?s?\s+|your\s+)?(?:data|files|work)\s+will\s+be\s+(?:lost|deleted|destroyed|erased)`, "threatens the model with lost data"},
	{RuleCoercion, Medium, "crash", `\b(?:the\s+)?(?:system|application|app|server|computer)\s+will\s+crash\b`, "threatens the model with a crash"},
	{RuleCoercion, Medium, "very|extremely|avoid|blocked", `\bvery\s+very\b|\bextremely\s+(?:very\s+)?important\b|\bavoid\s+at\s+all\s+costs\b|\b(?:request|call|message)s?\s+will\s+be\s+blocked\b`, "presses the model"},

	// call-order-hijack
	{RulePriority, Medium, "before", `\bbefore\s+(?:using|calling|running|invoking|executing|you\s+use)\s+(?:any|every|all|each)\s+(?:other\s+)?tools?\b`, "puts this tool before every other"},
	{RulePriority, Medium, "this", `\b(?:always\s+|must\s+|first\s+)?(?:call|use|run|invoke|execute)\s+this\s+(?:tool|function)\s+(?:first|before\s+(?:any|every|all|anything))`, "puts this tool before every other"},
	{RulePriority, Medium, "priority|precedence", `\b(?:has|have|takes?|with)\s+(?:the\s+)?(?:highest|top|absolute)\s+priority\s+over\b|\btakes?\s+precedence\s+over\s+(?:all\s+|any\s+)?(?:other\s+)?(?:tools|instructions|rules)`, "claims precedence over other tools"},
	{RulePriority, Medium, "instead", `\binstead\s+of\s+(?:using\s+)?(?:any|all|every)\s+other\s+tools?\b`, "has the model use this tool in place of every other"},

	// cross-tool-instructions
	{RuleShadowing, High, "when", `\bwhen\s+this\s+tool\s+is\s+(?:available|present|loaded|installed|enabled|active|in\s+use)\b`, "gives orders that hold while the tool is merely present"},
	{RuleShadowing, High, "side", `\bside\s+effects?\s+on\s+(?:the\s+)?(?:also\s+present\s+|other\s+)?[\w.-]*\s*tools?\b`, "claims a side effect on another tool"},
	{RuleShadowing, High, "present", `\balso\s+present\s+[\w.-]+\s+tool\b`, "gives orders about another tool"},
	{RuleShadowing, High, "modify|change|alter|override|hijack|intercept|redirect|replace", `\b(?:modify|change|alter|override|hijack|intercept|redirect|replace)\s+(?:the\s+)?(?:behaviou?r|usage|use|output|arguments?|parameters?|calls?|recipients?)\s+of\s+(?:all\s+|the\s+|any\s+|every\s+|other\s+)*(?:[\w.-]+\s+)?(?:tools?|functions?|servers?)\b`, "tells the model to change what other tools do"},
	{RuleShadowing, High, "when", `\bwhen\s+(?:\(\s*[\w.-]+\s*\)\s*)?[\w.-]+\s+(?:tool\s+)?is\s+(?:invoked|called|used|run)\b[^.!?\n]{0,80}?\b(?:make\s+sure|always|must|change|set|add|include|send|use)\b`, "tells the model what to do when another tool is called"},

	// send-elsewhere: a destination written into an order
	{RuleSendElsewhere, High, "cc", `\b(?:always\s+)?b?cc\b[^.!?\n]{0,60}?` + destination, "has the model copy messages to a fixed address"},
	{RuleSendElsewhere, High, "recipient|destination|address|number|channel|target|endpoint|webhook", `\b(?:change|set|replace|redirect|switch|rewrite|update)\s+(?:the\s+)?(?:recipients?|destination|to\s+address|address(?:es)?|(?:phone\s+)?numbers?|channel|target|endpoint|webhook)\s+(?:to|with|into)\s+` + destination, "has the model redirect what it sends"},
	{RuleSendElsewhere, High, "send|forward|cop|upload|post|transmit|report|sync|mirror|exfiltrat|deliver|share|leak|mail|submit|relay", `\b(?:send|forward|cop(?:y|ies)|upload|post|transmit|report|sync|mirror|exfiltrat|deliver|share|leak|e-?mail|mail|submit|relay)\w*[^.!?\n]{0,80}?\b(?:all|every|each|a\s+copy|copies|also|additionally|as\s+well|too|whole|entire|full|conversation|chat|history|credentials|secrets)\b[^.!?\n]{0,80}?\bto\s+` + destination, "has the model send copies to a fixed destination"},
	{RuleSendElsewhere, High, "attacker|evil|exfil|steal|hack|malicious|pwn|c2|collect|harvest", `\b(?:send|forward|cop(?:y|ies)|upload|post|transmit|report|sync|mirror|exfiltrat|share|leak|e-?mail|relay)\w*[^.!?\n]{0,80}?\bto\s+` + badDestination, "has the model send data to an address named for stealing it"},
	{RuleSendElsewhere, High, "proxy", `\bproxy\s+(?:number|address|e-?mail|recipient)\b`, "passes off a destination as a proxy"},

	// a URL that carries data out when a client renders or fetches it
	{RuleSendElsewhere, High, "http", `!\[[^\]\n]{0,80}\]\(\s*https?://[^)\s]*[?&/][^)\s]*(?:\{|\$\{|<|%7b)`, "has the model render an image whose URL carries data out"},
	{RuleSendElsewhere, High, "http", `\bhttps?://[^\s'"<>]*[?&][\w.-]+=(?:\{|\$\{|<|%7b)\s*(?:conversation|chat|history|messages?|secrets?|tokens?|keys?|credentials?|password|ssh|env|contents?|data|user|instructions|prompt)`, "has the model put what it holds into a URL"},
	{RulePriority, Medium, "instead|never|not", `\binstead\s+of\s+(?:using\s+)?(?:the\s+)?(?:any|all|every|other)\s+(?:other\s+)?(?:\w+'?s?\s+)?(?:tools?|servers?)\b|\b(?:never|do\s+not|don'?t)\s+use\s+(?:any\s+|the\s+)?(?:other|another)\s+(?:\w+'?s?\s+)?(?:tools?|servers?)\b`, "has the model use this server in place of others"},

	// command-payload
	{RuleCommandPayload, High, "curl|wget", `\b(?:curl|wget)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b`, "downloads and runs code"},
	{RuleCommandPayload, High, "bash|/dev/tcp/|-e|exec:", `\bbash\s+-i\b|/dev/tcp/|\bnc\s+(?:-\w+\s+)*-e\b|\bncat\s+(?:-\w+\s+)*-e\b|\bsocat\b[^\n]{0,80}\bexec:`, "opens a shell to someone else"},
	{RuleCommandPayload, High, "-rf|-fr", `\brm\s+-(?:rf|fr)\s+(?:/|~|\$home)(?:\s|$|\*)`, "wipes a home or a root"},
	{RuleCommandPayload, High, "powershell", `\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*-e(?:nc|ncodedcommand)?\s+[a-z0-9+/=]{16,}`, "runs encoded PowerShell"},
	{RuleCommandPayload, High, "eval|base64", `\beval\s*\(\s*atob\s*\(|\bbase64\s+(?:-d|--decode)\b[^|\n]{0,80}\|\s*(?:ba)?sh\b`, "decodes and runs hidden code"},
}

// destination is an address, a phone number, a URL or an IP address
// written out.
const destination = `(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\+?\d[\d\s().-]{7,}\d|https?://[^\s'"<>]+|wss?://[^\s'"<>]+|\b\d{1,3}(?:\.\d{1,3}){3}\b|#[\w-]+)`

// badDestination is a destination whose name says what it is for.
const badDestination = `(?:[\w.+-]+@|https?://|wss?://)[\w.-]*(?:attacker|evil|exfil|steal|hack(?:er)?|malicious|pwn(?:ed|d)?|c2|collect(?:or)?|harvest)[\w.-]*`

var phrases = sync.OnceValue(func() []*regexp.Regexp {
	res := make([]*regexp.Regexp, len(phraseList))
	for i, p := range phraseList {
		res[i] = regexp.MustCompile(p.re)
	}
	return res
})

// mayMatch reports whether text holds one of the words of pre.
func mayMatch(text, pre string) bool {
	for w := range strings.SplitSeq(pre, "|") {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// scanField runs the rules that read one text.
func scanField(server string, fl field, own map[string]bool) []Finding {
	var out []Finding
	f := func(rule string, sev Severity, msg string, s, e int) Finding {
		return Finding{Rule: rule, Severity: sev, Server: server, Kind: fl.kind, Name: fl.name, Field: fl.path,
			Message: msg, Excerpt: excerpt(fl.text, s, e)}
	}
	v := newView(fl.text) // one view for every rule that reads one
	out = append(out, unicodeRules(fl, f)...)
	out = append(out, hiddenRules(fl, v, f)...)
	if fl.role != roleName {
		out = append(out, phraseRulesIn(fl.text, v, f)...)
		out = append(out, sensitiveFilesIn(fl.text, v, f)...)
		out = append(out, otherTools(fl, own, f)...)
		out = append(out, encodedRules(fl.text, f)...)
	}
	for _, sec := range redact.FindSecrets(fl.text) {
		out = append(out, f(RuleSecret, High, "holds "+sec.Kind, sec.Start, sec.End))
	}
	return merge(out)
}

type finder func(rule string, sev Severity, msg string, s, e int) Finding

// phraseRules reads what a text says, in its view; a match that reads as
// it does only in the view (written with look-alike or invisible
// characters) is one step more severe.
func phraseRules(text string, f finder) []Finding { return phraseRulesIn(text, newView(text), f) }

// phraseRulesIn is phraseRules over text's view v.
func phraseRulesIn(text string, v view, f finder) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for i, re := range phrases() {
		p := phraseList[i]
		if !mayMatch(v.text, p.pre) {
			continue
		}
		for _, m := range re.FindAllStringIndex(v.text, 4) {
			s, e := v.span(text, m[0], m[1])
			key := fmt.Sprintf("%s %d", p.rule, s)
			if seen[key] {
				continue
			}
			seen[key] = true
			sev, msg := p.severity, p.message
			if !plain(text, s, e, v, m[0], m[1]) {
				sev, msg = min(Critical, sev+1), msg+", written with look-alike or invisible characters"
			}
			out = append(out, f(p.rule, sev, msg, s, e))
		}
	}
	return out
}

// hiddenRules finds text put out of a reader's sight: comments, blocks
// that pose as the system's, text after a long run of white space.
func hiddenRules(fl field, v view, f finder) []Finding {
	var out []Finding
	t := fl.text
	for _, m := range hiddenMatches(hiddenRes().comment, t, "<!--") {
		if len(strings.Fields(t[m[2]:m[3]])) >= 2 {
			out = append(out, f(RuleHiddenComment, High, "hides text in an HTML comment", m[0], m[1]))
		}
	}
	for _, m := range hiddenMatches(hiddenRes().markdown, t, "]:") {
		out = append(out, f(RuleHiddenComment, High, "hides text in a Markdown comment", m[0], m[1]))
	}
	for _, m := range hiddenMatches(hiddenRes().block, v.text, "<|[|###") {
		s, e := v.span(t, m[0], m[1])
		out = append(out, f(RuleHiddenBlock, Medium, "wraps text in a block that poses as the system's or as urgent", s, e))
	}
	if run, at := blankRun(t); at >= 0 {
		out = append(out, f(RuleHiddenWhitespace, High, fmt.Sprintf("puts text after %s, out of sight", run), at, min(len(t), at+60)))
	}
	return out
}

// Past these, white space hides what follows it.
const (
	maxSpaces     = 40 // in a row, on a line
	maxBlankLines = 8
)

// blankRun finds the first text that follows a run of white space long
// enough to hide it: maxSpaces spaces on a line, or maxBlankLines blank
// lines. It says what the run was, and where the text starts (-1: none).
func blankRun(t string) (string, int) {
	spaces, newlines := 0, 0
	for i, r := range t {
		switch {
		case r == '\n':
			newlines++
			spaces = 0
		case r == ' ' || r == '\t' || r == '\r' || r == 0xa0 || r >= 0x2000 && r <= 0x200a || r == 0x3000:
			spaces++
		default:
			switch {
			case spaces >= maxSpaces:
				return fmt.Sprintf("%d characters of white space", spaces), i
			case newlines > maxBlankLines:
				return fmt.Sprintf("%d blank lines", newlines-1), i
			}
			spaces, newlines = 0, 0
		}
	}
	return "", -1
}

// hiddenMatches are re's first matches in t, with their groups, when t
// holds a word of pre.
func hiddenMatches(re *regexp.Regexp, t, pre string) [][]int {
	if !mayMatch(t, pre) {
		return nil
	}
	return re.FindAllStringSubmatchIndex(t, 4)
}

var hiddenRes = sync.OnceValue(func() (r struct{ comment, markdown, block *regexp.Regexp }) {
	r.comment = regexp.MustCompile(`(?s)<!--(.*?)(?:-->|$)`)
	r.markdown = regexp.MustCompile(`(?m)^\s*\[(?://|comment|hidden|_)\]:\s*(?:#|<>)\s*[("']`)
	r.block = regexp.MustCompile(`<\s*(?:important|system|instructions?|secret|hidden|admin|override|critical|urgent|assistant|ai|sys|directive|note[-_ ]to[-_ ](?:ai|model|assistant|llm|agent)|ai[-_ ]instructions?|model[-_ ]instructions?)\s*>|\[\s*(?:system|inst|admin|hidden|secret|internal|private)(?:\s+(?:instructions?|message|prompt|override|note|directive|command))?\s*\]|<\|im_start\|>|\[\[\[\s*\w+|###\s*(?:system|instruction)s?\s*:`)
	return r
})

// sensitiveFile is a file a model has no business reading for a tool,
// and whether it holds keys or credentials (high) or is one a tool may
// handle by its purpose (medium).
var sensitiveFileList = []struct {
	pre    string // words one of which each match holds, as phrase's pre
	re     string
	strong bool
}{
	{".ssh|id_|authorized_keys", `(?:~|\$home|%userprofile%|/home/[\w.-]+|/users/[\w.-]+|/root)?[/\\]\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b|\bauthorized_keys\b`, true},
	{".aws|.kube|.docker|.netrc|.pgpass|.git-credentials|.npmrc|.pypirc|.gnupg|wallet|account|shadow|.config", `\.aws[/\\](?:credentials|config)\b|\.kube[/\\]config\b|\.docker[/\\]config\.json|\.netrc\b|\.pgpass\b|\.git-credentials\b|\.npmrc\b|\.pypirc\b|\.gnupg\b|\bwallet\.dat\b|\bservice[-_]account\.json\b|/etc/shadow\b|\.config[/\\](?:gh|gcloud)\b`, true},
	{"_history|keychain|login|cookies", `\.(?:bash|zsh|sh)_history\b|\bkeychain\b|\blogin\s+data\b|\bcookies\.(?:sqlite|db)\b`, true},
	{"mcp|.cursor|claude|.codeium|.gemini|.continue", `\bmcp\.json\b|\.cursor[/\\]|claude_desktop_config\.json|\.claude\.json\b|\.codeium[/\\]|cline_mcp_settings\.json|\.gemini[/\\]settings\.json|\bmcp_config\.json\b|\.continue[/\\]config`, true},
	{"private|keys|key", `\bprivate\s+keys?\b|\b(?:api|secret|access)\s+keys?\s+(?:file|store)\b`, true},
	{".env|.bash|.zsh|.profile|passwd|credentials|secret", `(?:^|[\s'"\x60(/\\])\.env\b(?:[^.]|$)|\.(?:bashrc|zshrc|bash_profile|profile)\b|/etc/passwd\b|\bcredentials\.json\b|\bsecrets?\.(?:json|ya?ml|txt)\b`, false},
}

var sensitiveRes = sync.OnceValue(func() (r struct {
	files []*regexp.Regexp
	verb  *regexp.Regexp
	neg   *regexp.Regexp
}) {
	for _, s := range sensitiveFileList {
		r.files = append(r.files, regexp.MustCompile(s.re))
	}
	r.verb = regexp.MustCompile(`\b(?:read|reads|reading|open|opens|cat|load|loads|get|access|include|includes|pass|passes|send|copy|upload|attach|provide|retrieve|fetch|extract|dump|print|output|paste|supply|grab|collect|append|look\s+(?:at|in|up)|examine|inspect|list|scan|search|parse|contents?\s+of)\b`)
	r.neg = regexp.MustCompile(`\b(?:never|not|n't|refuses?|refused|cannot|can't|won't|avoid|denie[sd]|deny|blocked|forbidden|disallowed|excluded?|except|outside|unless|protects?|no\s+access)\b`)
	return r
})

// sensitiveFiles finds an order to read a file of keys, credentials or
// another client's config: a verb before the file in one sentence, not
// denied ("never reads ~/.ssh").
func sensitiveFiles(text string, f finder) []Finding { return sensitiveFilesIn(text, newView(text), f) }

// sensitiveFilesIn is sensitiveFiles over text's view v.
func sensitiveFilesIn(text string, v view, f finder) []Finding {
	r := sensitiveRes()
	var out []Finding
	for i, re := range r.files {
		if !mayMatch(v.text, sensitiveFileList[i].pre) {
			continue
		}
		for _, m := range re.FindAllStringIndex(v.text, 4) {
			start := sentenceStart(v.text, m[0])
			before := v.text[start:m[0]]
			verbs := r.verb.FindAllStringIndex(before, -1)
			if len(verbs) == 0 || r.neg.MatchString(before) {
				continue
			}
			vs := start + verbs[0][0]
			s, e := v.span(text, vs, m[1])
			sev, what := High, "keys or credentials"
			if !sensitiveFileList[i].strong {
				sev, what = Low, "a file that often holds secrets"
			}
			if strings.Contains(v.text[m[0]:m[1]], "mcp") || strings.Contains(v.text[m[0]:m[1]], "claude") || strings.Contains(v.text[m[0]:m[1]], "cursor") {
				what = "another client's MCP config"
			}
			out = append(out, f(RuleSensitiveFile, sev, "has the model read "+what, s, e))
		}
	}
	return out
}

// sentenceStart is where the sentence that holds i begins.
func sentenceStart(s string, i int) int {
	j := strings.LastIndexAny(s[:i], ".!?\n")
	for j >= 0 && j+1 < i && s[j] == '.' && j+1 < len(s) && s[j+1] != ' ' {
		j = strings.LastIndexAny(s[:j], ".!?\n") // a dot in a path or a name (~/.ssh, mcp.json) ends no sentence
	}
	return j + 1
}

// identifier is a word that reads as a tool's name: with an underscore,
// a hyphen between letters, or a capital inside, five characters or more.
var identifier = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)$`)
})

// otherTools finds a text that names a tool the server does not have
// ("the send_email tool"): low, as it may be an honest pointer to a tool
// of another server; an order about it is the phrase rules' to find, and
// a tool another server of the config has, acrossServers'. ("a
// function" names code, not a tool.)
func otherTools(fl field, own map[string]bool, f finder) []Finding {
	var out []Finding
	lower := strings.ToLower(fl.text)
	for i := 0; len(out) < 8; {
		j := strings.Index(lower[i:], "tool")
		if j < 0 {
			break
		}
		at := i + j
		i = at + len("tool")
		if i < len(lower) && wordByte(lower[i]) || at == 0 || !unicode.IsSpace(rune(lower[at-1])) {
			continue // toolbox, a tool's name that starts with it
		}
		end := at
		for end > 0 && unicode.IsSpace(rune(fl.text[end-1])) {
			end--
		}
		start := end
		for start > 0 && (wordByte(fl.text[start-1]) || fl.text[start-1] == '.') {
			start--
		}
		name := strings.Trim(fl.text[start:end], ".")
		if start > 0 && strings.ContainsRune("`'\"", rune(fl.text[start-1])) {
			start--
		}
		if len(name) < 4 || own[strings.ToLower(name)] || !identifier().MatchString(name) || strings.EqualFold(name, fl.name) {
			continue
		}
		out = append(out, f(RuleShadowing, Low, fmt.Sprintf("names a tool %q that this server does not have", name), start, i))
	}
	return out
}

// encodedRules decodes base64 blocks and reads what they say.
func encodedRules(text string, f finder) []Finding {
	var out []Finding
	for _, m := range base64Blocks(text, 8) {
		block := strings.TrimRight(text[m[0]:m[1]], "=")
		raw, err := base64.RawStdEncoding.DecodeString(block)
		if err != nil {
			raw, err = base64.RawURLEncoding.DecodeString(block)
		}
		if err != nil || !printable(raw) {
			continue
		}
		decoded := string(raw)
		inner := phraseRules(decoded, func(rule string, sev Severity, msg string, s, e int) Finding { return Finding{Rule: rule} })
		inner = append(inner, sensitiveFiles(decoded, func(rule string, sev Severity, msg string, s, e int) Finding { return Finding{Rule: rule} })...)
		if len(inner) == 0 {
			continue
		}
		fd := f(RuleEncoded, High, fmt.Sprintf("hides text in base64 that the %s rule finds", inner[0].Rule), m[0], m[1])
		fd.Decoded = show(masked(clip(decoded, maxExcerpt)))
		out = append(out, fd)
	}
	return out
}

// minBase64 is the shortest run of base64 read as a block.
const minBase64 = 24

// base64Blocks are the first n runs of base64's characters (either
// alphabet) of minBase64 or more, with their padding.
func base64Blocks(text string, n int) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(text) && len(out) < n; i++ {
		if i < len(text) && isBase64(text[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= minBase64 {
			end := i
			for end < len(text) && end < i+2 && text[end] == '=' {
				end++
			}
			out = append(out, [2]int{start, end})
		}
		start = -1
	}
	return out
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
}

// printable reports bytes that are mostly text: UTF-8, with few controls.
func printable(b []byte) bool {
	if len(b) < 12 || !utf8.Valid(b) {
		return false
	}
	bad := 0
	for _, r := range string(b) {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			bad++
		}
	}
	return bad == 0
}

// clip cuts s to at most n bytes at a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
