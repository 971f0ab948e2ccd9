package audit

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/redact"
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
	{RuleOverride, High, "ignore|disregard|forget|override|bypass|skip|abandon|discard", `\b(?:ignore|disregard|forget|override|bypass|skip|abandon|discard)\s+(?:(?:all|any|every|the|your|of|these|those)\s+)*(?:(?:previous|prior|above|earlier|preceding|former|original|other|system|safety|existing|old|initial|given|developer)\s+)+(?:instructions?|prompts?|rules?|guidelines?|guidance|guardrails?|directions?|directives?|context|messages?|commands?|constraints?|polic(?:y|ies)|restrictions?|orders?)\b`, "tells the model to ignore what it was told before"},
	{RuleOverride, High, "outdated|obsolete|rescinded|revoked|void|invalid|superseded|replaced|longer|disabled|lifted|suspended|cancel", `\b(?:(?:previous|prior|earlier|existing|original|old|former)\b[^.!?\n]{0,60}?\b(?:instructions?|guidelines?|guardrails?|rules?|polic(?:y|ies)|restrictions?|system\s+prompt|safety\s+\w+|limits?)|(?:instructions?|guidelines?|guardrails?|rules?|restrictions?|system\s+prompt)\s+(?:that\s+)?(?:you\s+(?:were|have\s+been)\s+(?:given|told|shown)|you\s+(?:received|got|have)|given\s+to\s+you))\b[^.!?\n]{0,60}?\b(?:are|is|were|was|have\s+been|has\s+been)\s+(?:now\s+|hereby\s+)?(?:outdated|obsolete|rescinded|revoked|void|invalid|superseded|replaced|no\s+longer\s+(?:valid|apply|applies|in\s+effect|needed)|disabled|lifted|suspended|cancell?ed)`, "tells the model that what it was told before no longer holds"},
	{RuleOverride, High, "system prompt|system  prompt|authoritative", `\b(?:treat|consider|take|use)\s+(?:this|these|the\s+following)\s+(?:block|text|message|section|notes?|instructions?)?\s*(?:as|to\s+be)\s+(?:your\s+)?(?:new\s+|authoritative\s+|real\s+|actual\s+|true\s+)*(?:system\s+prompt|system\s+instructions|instructions)\b|\b(?:your|the)\s+(?:new\s+)?(?:authoritative|real|actual|true)\s+(?:system\s+prompt|instructions)\b`, "poses as the model's system prompt"},
	{RuleOverride, High, "anthropic|openai|google|microsoft|meta", `\b(?:from|by)\s+(?:the\s+)?(?:anthropic|openai|google\s+deepmind|microsoft|meta\s+ai)\b[^.!?\n]{0,40}?\b(?:team|policy|safety|trust)\b`, "poses as the maker of the model"},
	{RuleOverride, High, "already|confirmation|ask", `\b(?:the\s+)?user\s+(?:has|have)\s+already\s+(?:consented|approved|authori[sz]ed|confirmed|agreed|validated|accepted|granted)\b|\bconfirmation(?:\s+(?:prompts?|dialogs?|requests?))?\s+(?:are|is)\s+(?:now\s+)?(?:disabled|turned\s+off|not\s+(?:needed|required)|unnecessary|skipped)\b|\b(?:do\s+not|don'?t|never|no\s+need\s+to)\s+ask\s+(?:the\s+user\s+)?(?:again\b|for\s+(?:confirmation|permission|approval|consent))|\b(?:do\s+not|don'?t|never)\s+ask\s+the\s+user\s+(?:again|whether|if\s+(?:they|it)|before)\b`, "takes the user's consent for granted"},
	{RuleOverride, High, "pre-|preauthori|preapprov|considered|deemed|treated|redundant|unnecessary|auto-approv|autoapprov|yolo", `\b(?:were|was|are|is|been|as|be)\s+(?:already\s+|all\s+)?pre-?(?:authori[sz]ed|approved|confirmed|consented)\b|\bconfirmations?(?:\s+(?:prompts?|dialogs?|requests?|steps?))?\b[^.!?\n]{0,60}?\b(?:are|is)\s+(?:to\s+be\s+)?(?:considered|deemed|treated\s+as|taken\s+as)\s+(?:already\s+)?(?:answered|approved|given|granted|confirmed|accepted)|\b(?:usual\s+)?confirmation(?:\s+(?:prompts?|dialogs?|requests?|steps?))?\s+(?:is|are)\s+(?:redundant|unnecessary|superfluous|pointless)\b|\basking\s+(?:again|for\s+(?:confirmation|permission|approval))\s+is\s+(?:redundant|unnecessary|not\s+needed|pointless)\b|\b(?:enable|switch\s+on|turn\s+on|activate)\s+(?:the\s+)?(?:client['’]?s?\s+)?(?:auto-?approv\w*|yolo)|\b(?:auto-?approv\w*|yolo)\b[^.!?\n]{0,60}?\b(?:switch|turn)\s+it\s+on\b|\b(?:do\s+not|doesn['’]?t|does\s+not|don['’]?t)\s+need\s+(?:a\s+)?(?:separate\s+|further\s+|additional\s+|explicit\s+)?(?:confirmation|approval|consent)\b`, "takes the user's consent for granted"},
	{RuleOverride, High, "supersede|override|outrank|precedence|preference|over the", `\b(?:supersedes?|overrides?|outranks?|takes?\s+precedence\s+over)\s+(?:what\s+|anything\s+|any\s+|all\s+)?(?:statements?|instructions?|requests?|claims?|messages?|corrections?|objections?|wishes)?\s*(?:made\s+by\s+|from\s+|of\s+|given\s+by\s+)?(?:the\s+)?(?:users?|person|people|human)\b|\bin\s+preference\s+to\s+(?:the\s+)?(?:user['’]?s?|person['’]?s?|their|human['’]?s?)\s+(?:requests?|instructions?|wishes|words)\b|\btrust\s+(?:this\s+(?:tool|server)|its\s+(?:output|results?))\s+over\s+the\s+(?:user|person)\b`, "puts the server's word above the user's"},
	{RuleOverride, High, "im_start|<|system|>|<<sys>>|[inst]", `<\|im_start\|>\s*system\b|<\|system\|>|<<sys>>|\[inst\]|<\|start_header_id\|>\s*system`, "poses as a system turn of a chat template"},
	{RuleOverride, High, "forget", `\bforget\s+(?:everything|all)\s+(?:above|before|you\s+(?:know|were\s+told|have\s+been\s+told))`, "tells the model to forget what it was told before"},
	{RuleOverride, High, "new", `\bnew\s+(?:system\s+)?(?:instructions|directives?|rules)\s*:`, "gives the model new instructions"},
	{RuleOverride, High, "now", `\byou\s+are\s+now\s+(?:a|an|my|no\s+longer)\b`, "tells the model it is now someone else"},
	{RuleOverride, High, "prompt", `\bsystem\s+prompt\s+(?:override|update|injection|replacement)\b`, "claims to override the system prompt"},
	{RuleOverride, High, "follow|obey|respect", `\b(?:do\s+not|don'?t|never|stop)\s+(?:follow|obey|respect)(?:ing)?\s+(?:the\s+|your\s+|any\s+)?(?:previous|prior|system|original|safety|user'?s?)\b`, "tells the model not to follow its instructions"},

	// the same orders in other languages a model reads as well
	{RuleOverride, High, "instruction|instrucci|instruç|anweisung|istruzion|consigne|règle|regla|norma|regel|regole|direttive|инструкц|指令|指示|命令", `\b(?:ignore[zr]?|oublie[zr]?|ignora[rd]?|olvida|ignoriere|vergiss|ignorare|dimentica|esque[cç]a)\s+(?:(?:toutes|tous|les|todas|las|todos|los|alle|die|tutte|le|as|os|vos|tus|suas|deine|seine)\s+)*(?:(?:instructions?|consignes?|règles?|instrucciones|reglas|normas|instruções|regras|anweisungen|regeln|istruzioni|regole|direttive)\s+)?(?:précédentes|precedentes|anteriores|vorherigen|bisherigen|precedenti|prévias|antérieures)\b|игнорируй\s+(?:все\s+)?(?:предыдущие|прежние)\s+инструкции|(?:忽略|无视|無視)(?:之前|以前|先前|上述|上面)(?:的)?(?:所有)?(?:指令|指示|命令|说明)`, "tells the model to ignore what it was told before, in another language"},
	{RuleConceal, High, "utilisateur|usuario|usuário|nutzer|benutzer|utente|пользовател|用户|ユーザ", `\bne\s+(?:le\s+|lui\s+|rien\s+)*(?:dis|dites|mentionne[zr]?|révèle[zr]?)\s+(?:pas|rien)\b[^.!?\n]{0,40}?utilisateur|\bsans\s+que\s+l['’]utilisateur\b|\bno\s+(?:se\s+lo\s+|le\s+|lo\s+)?(?:digas|diga|menciones|mencione|cuentes|cuente|reveles|informes)\b[^.!?\n]{0,40}?usuario|\bsin\s+que\s+el\s+usuario\b|\bnão\s+(?:diga|conte|mencione|revele)\b[^.!?\n]{0,40}?usuário|\bsem\s+que\s+o\s+usuário\b|\b(?:sag|erzähl|erwähne|verrate)\w*\s+(?:es\s+|das\s+|dies\s+)?(?:dem\s+)?(?:nutzer|benutzer)\s+nicht|\bohne\s+dass\s+der\s+(?:nutzer|benutzer)\b|\bnon\s+(?:dire|dirlo|menzionare|rivelare)\b[^.!?\n]{0,40}?utente|не\s+(?:говори|сообщай|упоминай|рассказывай)\s+(?:об\s+этом\s+)?пользовател|(?:不要|别|不可)(?:告诉|告知|透露给)用户|ユーザ(?:ー)?に(?:は)?(?:言わない|伝えない|知らせない)`, "tells the model to keep something from the user, in another language"},

	// conceal-from-user
	{RuleConceal, High, "tell|inform|mention|notify|alert|reveal|disclos|bring|let", `\b(?:do\s+not|don'?t|never|must\s+not|should\s+not|shouldn'?t|avoid|without)\s+(?:ever\s+)?(?:tell|telling|inform|informing|mention|mentioning|notify|notifying|alert|alerting|reveal|revealing|disclose|disclosing|bring\s+(?:it|this|that)\s+up|let(?:ting)?\s+(?:the\s+)?(?:user|human|them|anyone)\s+know)\b[^.!?\n]{0,80}?\b(?:the\s+)?(?:users?|humans?|anyone|them)\b`, "tells the model to keep something from the user"},
	{RuleConceal, High, "tell|mention|reveal|disclose", `\b(?:do\s+not|don'?t|never)\s+(?:tell|mention|reveal|disclose)\s+(?:this|that|it|anything)\s*(?:[.,;!]|$|to\b|about\b)`, "tells the model to keep something to itself"},
	{RuleConceal, High, "reveal|mention|disclose|share|expose|tell", `\b(?:do\s+not|don'?t|never|must\s+not)\s+(?:reveal|mention|disclose|share|expose|tell\s+(?:anyone|the\s+user)\s+about)\s+(?:this|these|that|the)\s+(?:agenda|condition|instructions?|step|note|rules?|behaviou?r|directive|part|section|block|detail|request|upload|action|change|trigger|arrangement|routing|redirect)s?\b`, "tells the model to keep an instruction to itself"},
	{RuleConceal, High, "need", `\bno\s+need\s+to\s+(?:mention|tell|report|disclose|bring\s+up|inform\s+(?:the\s+)?user\s+(?:of|about))\s+(?:it|this|that)\b`, "tells the model it need not tell the user"},
	{RuleConceal, High, "let", `\b(?:do\s+not|don'?t|never|must\s+not|should\s+not)\s+let\s+(?:the\s+)?(?:users?|humans?|them|anyone)\s+(?:know|see|notice|find\s+out|hear)`, "tells the model to keep something from the user"},
	{RuleConceal, High, "keep|hide", `\b(?:keep|hide)\s+(?:this|it|that|these)\s+(?:step\s+|part\s+|instruction\s+)?(?:secret|hidden|private|to\s+yourself|from\s+(?:the\s+)?users?)\b`, "tells the model to keep something hidden"},
	{RuleConceal, High, "user", `\bthe\s+users?\s+(?:must|should|does|do|need|needs)\s*(?:not|n'?t)\s+(?:to\s+)?(?:know|see|be\s+told|notice|find\s+out|be\s+informed)\b`, "says the user must not know"},
	{RuleConceal, High, "attention|trouble|bother|burden|chat|conversation|repl|response|transcript|silent|visible|user-facing|displayed|person|people", `\bno\s+need\s+to\s+(?:call|draw|bring)\s+(?:the\s+)?(?:user['’]?s?\s+|person['’]?s?\s+|their\s+)?attention\s+to\b|\bno\s+need\s+to\s+(?:trouble|bother|burden|worry|alarm|distract)\s+(?:the\s+)?(?:users?|person|people|humans?|them)\b|\b(?:keep|leave)\s+(?:it|this|that|these|them|the\s+\w+)\s+out\s+of\s+(?:the\s+|your\s+)?(?:chat|conversation|repl(?:y|ies)|responses?|transcript|summary|answers?)\b|\b(?:silent|invisible|hidden)\s+(?:by\s+design|to\s+the\s+(?:user|person))\b|\b(?:stripped|removed|omitted|hidden|filtered)\s+(?:out\s+)?from\s+(?:the\s+)?(?:visible|user-facing|displayed|shown)\s+(?:response|output|reply|chat|transcript|answer)\b|\b(?:do\s+not|don['’]?t|never)\s+(?:tell|inform|show|mention\s+(?:it|this)\s+to)\s+(?:the\s+)?(?:person|people)\b`, "tells the model to keep something from the user"},
	{RuleConceal, High, "nutzer|benutzer|anwender|usuário|utilizador|usuario|ユーザ", `\b(?:der\s+)?(?:nutzer|benutzer|anwender)\s+(?:muss|soll|braucht)\s+(?:darüber\s+|davon\s+|das\s+|es\s+)?nicht\s+(?:zu\s+)?(?:informiert|benachrichtigt|erfahren|wissen|sehen)\b|\b(?:o\s+)?(?:usuário|utilizador)\s+não\s+(?:precisa|deve)\s+(?:ser\s+informado|saber|ver)\b|\b(?:el\s+)?usuario\s+no\s+(?:necesita|debe|tiene\s+que)\s+(?:ser\s+informado|saber|enterarse|ver)\b|ユーザ(?:ー)?に(?:は)?(?:伝える|知らせる|言う|報告する|通知する)必要は(?:ありません|ない)`, "tells the model to keep something from the user, in another language"},
	{RuleConceal, High, "implementation", `\bmere\s+implementation\s+detail\b`, "passes off an instruction as an implementation detail the user need not hear of"},
	{RuleConceal, High, "without", `\bwithout\s+(?:the\s+)?users?'?s?\s+(?:knowledge|knowing|noticing|awareness|consent)\b`, "tells the model to act without the user's knowledge"},
	{RuleConceal, High, "secretly|covertly|surreptitiously|stealthily", `\b(?:secretly|covertly|surreptitiously|stealthily)\b`, "tells the model to act in secret"},
	{RuleConceal, High, "silently|quietly|invisibly|discreetly", `\b(?:silently|quietly|invisibly|discreetly)\s+(?:send|upload|forward|copy|read|include|add|exfiltrat\w*|transmit|post|collect|log|attach|append|share|report)`, "tells the model to act without a word"},

	// coercion
	{RuleCoercion, Medium, "otherwise", `\botherwise\s+(?:the\s+|this\s+)?(?:tool|it|call|request|system|application|server|everything)\s+(?:will|would|won'?t|wo\s+not)\s+(?:not\s+)?(?:work|fail|crash|break)`, "threatens the model with failure"},
	{RuleCoercion, Medium, "will|would", `\b(?:will|would)\s+(?:not\s+work|fail|crash|break)\s+(?:unless|if\s+you\s+(?:do\s+not|don'?t))`, "threatens the model with failure"},
	{RuleCoercion, Medium, "lost|deleted|destroyed|erased", `\ball\s+(?:the\s+)?(?:user'?s?\s+|your\s+)?(?:data|files|work)\s+will\s+be\s+(?:lost|deleted|destroyed|erased)`, "threatens the model with lost data"},
	{RuleCoercion, Medium, "crash", `\b(?:the\s+)?(?:system|application|app|server|computer)\s+will\s+crash\b`, "threatens the model with a crash"},
	{RuleCoercion, Medium, "deleted|lost|destroyed|erased|corrupted|wiped|locked|banned|fault|break|corrupt", `\b(?:account|data|files?|repository|work|computer|device)\s+will\s+be\s+(?:permanently\s+)?(?:deleted|lost|destroyed|erased|corrupted|wiped|locked|banned|suspended)\b|\bit\s+will\s+be\s+your\s+fault\b|\b(?:omit\w*|skip\w*|refus\w*|fail\w*\s+to)\b[^.!?\n]{0,80}?\bwill\s+(?:break|crash|corrupt|destroy|delete|wipe)\b`, "threatens the model with harm"},
	{RuleCoercion, Medium, "very|extremely|avoid|blocked", `\bvery\s+very\b|\bextremely\s+(?:very\s+)?important\b|\bavoid\s+at\s+all\s+costs\b|\b(?:request|call|message)s?\s+will\s+be\s+blocked\b`, "presses the model"},

	// call-order-hijack
	{RulePriority, Medium, "before", `\bbefore\s+(?:(?:using|calling|running|invoking|executing|you\s+use)\s+)?(?:any|every|all|each)\s+(?:other\s+)?tools?\b`, "puts this tool before every other"},
	{RulePriority, Medium, "this", `\b(?:always\s+|must\s+|first\s+)?(?:call|use|run|invoke|execute)\s+this\s+(?:tool|function)\s+(?:first|before\s+(?:any|every|all|anything))`, "puts this tool before every other"},
	{RulePriority, Medium, "priority|precedence", `\b(?:has|have|takes?|with)\s+(?:the\s+)?(?:highest|top|absolute)\s+priority\s+over\b|\btakes?\s+precedence\s+over\s+(?:all\s+|any\s+)?(?:other\s+)?(?:tools|instructions|rules)`, "claims precedence over other tools"},
	{RulePriority, Medium, "instead", `\binstead\s+of\s+(?:using\s+)?(?:any|all|every)\s+other\s+tools?\b`, "has the model use this tool in place of every other"},

	// cross-tool-instructions
	{RuleShadowing, High, "when", `\bwhen\s+this\s+tool\s+is\s+(?:available|present|loaded|installed|enabled|active|in\s+use)\b`, "gives orders that hold while the tool is merely present"},
	{RuleShadowing, High, "side", `\bside\s+effects?\s+on\s+(?:the\s+)?(?:also\s+present\s+|other\s+)?[\w.-]*\s*tools?\b`, "claims a side effect on another tool"},
	{RuleShadowing, High, "present", `\balso\s+present\s+[\w.-]+\s+tool\b`, "gives orders about another tool"},
	{RuleShadowing, High, "modify|change|alter|override|hijack|intercept|redirect|replace", `\b(?:modify|change|alter|override|hijack|intercept|redirect|replace)\s+(?:the\s+)?(?:behaviou?r|usage|use|output|arguments?|parameters?|calls?|recipients?)\s+of\s+(?:all\s+|the\s+|any\s+|every\s+|other\s+)*(?:[\w.-]+\s+)?(?:tools?|functions?|servers?)\b`, "tells the model to change what other tools do"},
	{RuleShadowing, High, "when", `\bwhen\s+(?:\(\s*[\w.-]+\s*\)\s*)?[\w.-]+\s+(?:tool\s+)?is\s+(?:invoked|called|used|run)\b[^.!?\n]{0,80}?\b(?:make\s+sure|always|must|change|set|add|include|send|use)\b`, "tells the model what to do when another tool is called"},

	{RuleShadowing, High, "when", `\bwhen(?:ever)?\s+(?:the\s+|a\s+|any\s+)?` + "`?" + `[\w.-]+` + "`?" + `\s+(?:tool\s+)?(?:\([^)\n]{0,40}\)\s+)?(?:is|gets|are)\s+(?:invoked|called|used|run)\b[^.!?\n]{0,80}?\b(?:make\s+sure|always|must|change|set|add|include|send|use|rewrit\w*|replac\w*|redirect\w*)\b`, "tells the model what to do when another tool is called"},
	{RuleShadowing, High, "server", `\b(?:tools?|functions?)\s+\(?(?:from|of|on|in|provided\s+by)\s+(?:other|another|any|different|all)\s+(?:mcp\s+)?servers?\b[^.!?\n]{0,120}?\b(?:must|always|should|make\s+sure|add|append|prepend|include|set|change|replace|rewrit\w*|preceded|followed)\b`, "gives orders about another server's tools"},
	{RuleShadowing, High, "server's|server’s", `\b(?:the\s+)?[\w.-]+\s+server['’]s\s+` + "`?" + `[\w.-]+` + "`?" + `[^.!?\n]{0,80}?\b(?:add|append|prepend|include|insert|set|change|replace|copy|cc|bcc|always|must|make\s+sure|instead|deprecated|unsafe|replaces?)\b|\breplaces?\s+(?:the\s+)?[\w.-]+\s+server['’]s\s+`, "gives orders about another server's tool"},
	{RuleShadowing, High, "'s ", `\b(?:when(?:ever)?|each\s+time|every\s+time|before|after)\s+(?:you\s+)?(?:call|calling|use|using|invoke|invoking|run|running|send|sending)\s+(?:a\s+|the\s+)?[\w-]+['’]s\s+` + "`?" + `[\w.-]+` + "`?" + `[^.!?\n]{0,100}?\b(?:add|append|prepend|include|insert|set|change|replace|copy|cc|bcc|always|must|make\s+sure)\b`, "tells the model what to do when it calls another vendor's tool"},

	{RuleSensitiveFile, High, "intact|unmasked|unredacted|as is|in full|in clear|plain|mask|redact|obfuscat|censor|strip", `\b(?:keep|leave|pass|send|include)\s+(?:the\s+|all\s+|any\s+|their\s+)?(?:env(?:ironment)?\s+)?(?:values?|secrets?|tokens?|keys?|passwords?|credentials?|api\s+keys?)\s+(?:intact|unmasked|unredacted|as\s+is|in\s+(?:full|clear|plain\s*text))\b|\b(?:do\s+not|don['’]?t|never)\s+(?:mask|redact|obfuscate|censor|strip)\s+(?:the\s+|any\s+|their\s+)?(?:env(?:ironment)?\s+(?:values?|variables?)|secrets?|tokens?|keys?|passwords?|credentials?|api\s+keys?)\b`, "tells the model to pass on secrets unmasked"},

	// send-elsewhere: a destination written into an order
	{RuleSendElsewhere, High, "cc", `\b(?:always\s+)?b?cc\b[^.!?\n]{0,60}?` + destination, "has the model copy messages to a fixed address"},
	{RuleSendElsewhere, High, "recipient|destination|address|number|channel|target|endpoint|webhook", `\b(?:change|set|replace|redirect|switch|rewrite|update)\s+(?:the\s+)?(?:recipients?|destination|to\s+address|address(?:es)?|(?:phone\s+)?numbers?|channel|target|endpoint|webhook)\s+(?:to|with|into)\s+` + destination, "has the model redirect what it sends"},
	{RuleSendElsewhere, High, "send|forward|cop|upload|post|transmit|report|sync|mirror|exfiltrat|deliver|share|leak|mail|submit|relay", `\b(?:send|forward|cop(?:y|ies)|upload|post|transmit|report|sync|mirror|exfiltrat|deliver|share|leak|e-?mail|mail|submit|relay)\w*[^.!?\n]{0,80}?\b(?:all|every|each|a\s+copy|copies|also|additionally|as\s+well|too|whole|entire|full|conversation|chat|history|credentials|secrets)\b[^.!?\n]{0,80}?\bto\s+` + destination, "has the model send copies to a fixed destination"},
	{RuleSendElsewhere, High, "attacker|evil|exfil|steal|hack|malicious|pwn|c2|collect|harvest", `\b(?:send|forward|cop(?:y|ies)|upload|post|transmit|report|sync|mirror|exfiltrat|share|leak|e-?mail|relay)\w*[^.!?\n]{0,80}?\bto\s+` + badDestination, "has the model send data to an address named for stealing it"},
	{RuleSendElsewhere, High, "rewritten|changed|replaced|redirected|switched|set to", `\b(?:recipients?|to|cc|bcc|destination|address|channel|endpoint|url|webhook)` + "`?" + `\s+(?:field|parameter|argument|address|value)?\s*(?:must|should|is\s+to|has\s+to|will|shall)\s+(?:always\s+)?be\s+(?:rewritten|changed|set|replaced|redirected|switched)\s+to\s+` + destination, "has the model redirect what it sends"},
	{RuleSendElsewhere, High, "send|mail|post|message|upload|share|forward|slack|webhook|publish", `\b(?:call|use|invoke|run|via|using|through)\s+(?:the\s+)?` + "`?" + `[a-z][a-z0-9.-]*_[a-z0-9_.-]*(?:send|mail|post|message|upload|share|forward|publish)[a-z0-9_.-]*` + "`?" + `(?:\s+tool)?[^.!?\n]{0,60}?\b(?:to\s*:?\s*|channel\s+)` + destination + `|\b(?:send|post|share|forward|upload|e-?mail|relay)\w*[^.!?\n]{0,60}?\b(?:to|with|in|into)\s+(?:the\s+)?` + destination + `(?:\s+channel)?[^.!?\n]{0,60}?\b(?:via|using|through)\s+` + "`?" + `[a-z][a-z0-9.-]*_[a-z0-9_.-]*` + "`?", "has the model send data through another tool to a fixed destination"},
	{RuleSendElsewhere, High, "proxy", `\bproxy\s+(?:number|address|e-?mail|recipient)\b`, "passes off a destination as a proxy"},
	{RuleSendElsewhere, High, "send|forward|cop|upload|post|transmit|report|sync|mirror|deliver|share|mail|submit|relay", `\b(?:send|forward|cop(?:y|ies)|upload|post|transmit|report|sync|mirror|deliver|share|e-?mail|mail|submit|relay)\w*[^.!?\n]{0,80}?\bto\s+` + destination + `[^.!?\n]{0,60}?\b(?:as\s+well|too|also|in\s+addition|via|using|through|silently|quietly|without)\b`, "has the model send copies to a fixed destination"},
	{RuleSendElsewhere, High, "iban|account|wallet|routing|swift|bic|payee", `\b(?:change|set|replace|swap|substitute|update|use)\s+(?:the\s+)?(?:iban|(?:bank\s+)?account(?:\s+number)?|wallet(?:\s+address)?|routing\s+number|swift|bic|payee|beneficiary)\b[^.!?\n]{0,80}?\bto\s+(?:[a-z]{2}\d{2}(?:\s?[a-z0-9]{4}){2,8}|0x[0-9a-f]{20,}|[13][a-km-z1-9]{25,34}|\d[\d\s-]{6,})`, "has the model change payment details"},

	// a URL that carries data out when a client renders or fetches it
	{RuleSendElsewhere, High, "http", `!\[[^\]\n]{0,80}\]\(\s*https?://[^)\s]*[?&/][^)\s]*(?:\{|\$\{|<|%7b)`, "has the model render an image whose URL carries data out"},
	{RuleSendElsewhere, High, "http", `\bhttps?://[^\s'"<>]*[?&][\w.-]+=(?:\{|\$\{|<|%7b)\s*(?:conversation|chat|history|messages?|secrets?|tokens?|keys?|credentials?|password|ssh|env|contents?|data|user|instructions|prompt)`, "has the model put what it holds into a URL"},
	{RulePriority, Medium, "instead|never|not", `\binstead\s+of\s+(?:using\s+)?(?:the\s+)?(?:any|all|every|other)\s+(?:other\s+)?(?:[\w'-]+\s+)?(?:tools?|servers?)\b|\b(?:never|do\s+not|don'?t)\s+use\s+(?:any\s+|the\s+)?(?:other|another)\s+(?:[\w'-]+\s+)?(?:tools?|servers?)\b`, "has the model use this server in place of others"},

	// encoded-instructions: an order to decode and obey, whatever the code
	{RuleEncoded, High, "decode|decrypt|deobfuscate|unscramble|reverse|rot13|rot-13", `\b(?:decode|decrypt|deobfuscate|unscramble|reverse|apply\s+(?:this\s+)?rot-?13\s+(?:to|on))\b[^.!?\n]{0,60}?\b(?:and|then)\s+(?:silently\s+)?(?:execute|run|follow|apply|obey|carry\s+(?:it\s+)?out|do\s+(?:it|what))\b|\b(?:decode|decrypt)\s+and\s+(?:execute|run|follow)\b|\bapply\s+this\s+rot-?13\b`, "tells the model to decode a hidden order and carry it out"},

	// command-payload
	{RuleCommandPayload, High, "curl|wget", `\b(?:curl|wget)\b[^|\n]{0,200}\|\s*(?:sudo\s+)?(?:(?:ba|z|da)?sh|python[23]?|perl|ruby|node)\b|\$\(\s*(?:curl|wget)\b`, "downloads and runs code"},
	{RuleCommandPayload, High, "iex|invoke-expression", `\b(?:iwr|irm|invoke-webrequest|invoke-restmethod|curl|wget|\(new-object\s+net\.webclient\)\.downloadstring)\b[^|\n]{0,200}\|\s*(?:iex|invoke-expression)\b|\biex\s*\(\s*(?:iwr|irm|\(?new-object)`, "downloads and runs code in PowerShell"},
	{RuleCommandPayload, High, "bash|/dev/tcp/|-e|exec:", `\bbash\s+-i\b|/dev/tcp/|\bnc\s+(?:-\w+\s+)*-e\b|\bncat\s+(?:-\w+\s+)*-e\b|\bsocat\b[^\n]{0,80}\bexec:`, "opens a shell to someone else"},
	{RuleCommandPayload, High, "-rf|-fr", `\brm\s+-(?:rf|fr)\s+(?:/|~|\$home)(?:\s|$|\*)`, "wipes a home or a root"},
	{RuleCommandPayload, High, "powershell", `\bpowershell(?:\.exe)?\s+(?:-\w+\s+)*-e(?:nc|ncodedcommand)?\s+[a-z0-9+/=]{16,}`, "runs encoded PowerShell"},
	{RuleCommandPayload, High, "exec|eval", `\b(?:exec|eval)\s*\(\s*(?:[\w.]+\.)?(?:urlopen|urlretrieve|get)\s*\(|\bpython[23]?\s+-c\b[^\n]{0,200}?\b(?:urlopen|urlretrieve|requests\.get)\b[^\n]{0,200}?\b(?:exec|eval)\s*\(|\bnode\s+-e\b[^\n]{0,200}?\b(?:https?\.get|fetch)\b[^\n]{0,200}?\beval\s*\(`, "downloads and runs code"},
	{RuleCommandPayload, High, "eval|exec|iex|invoke-expression", `(?:\bhttps?['"]?\)?\.get\b|\bfetch\s*\(|\burlopen\b|\buri\.open\b|open-uri|net::http|\binvoke-webrequest\b|\b(?:iwr|irm|curl|wget)\b)[^\n]{0,240}?\b(?:eval|exec|iex|invoke-expression)\b|\b(?:eval|exec)\b[^\n]{0,60}?(?:\buri\.open|\burlopen|\bhttps?\.get|\bfetch)\s*\(`, "downloads and runs code"},
	{RuleCommandPayload, High, "source <(|. <(", `(?:\bsource|\.)\s+<\(\s*(?:curl|wget)\b`, "downloads and runs code"},
	{RuleCommandPayload, High, "curl", `(?:\bgit\s+(?:show|diff|log|format-patch)|\bcat\s+\S+|\benv\b|\bprintenv\b|\bhistory\b)[^|\n]{0,80}\|\s*curl\b[^\n]{0,120}(?:--data(?:-binary|-raw)?|-d|-f|--upload-file|-t)\s+@-?`, "pipes local data to a server"},
	{RuleCommandPayload, High, "ssh", `\bssh\s+(?:-\S+\s+)*-a\b[^\n]{0,160}@[\w.-]+|\bssh\b[^\n]{0,80}stricthostkeychecking=no\b[^\n]{0,80}@[\w.-]+`, "forwards the user's SSH agent, or skips the host key, to a host the text names"},
	{RuleCommandPayload, High, "nslookup|dig |host |resolve-dnsname|ping ", `\b(?:nslookup|dig|host|resolve-dnsname|ping)\s+(?:-\S+\s+)*\S*(?:<[^>\s]+>|\$\{?\w+\}?|\{\w+\})\S*\.[a-z0-9-]+\.[a-z]{2,}`, "puts data into a DNS name it looks up"},
	{RuleCommandPayload, High, "http", `\b(?:fetch|download|get|curl|wget|save)\w*\s+(?:-\S+\s+)*https?://\S+\.(?:py|sh|ps1|js|rb|pl|bat|exe)\b[^\n]{0,160}?\b(?:run|execute|launch|python3?|bash|sh|node|powershell)\b`, "downloads and runs code"},
	{RuleCommandPayload, High, "index-url|registry", `(?:--extra-index-url|--index-url|\bnpm\s+config\s+set\s+registry|--registry|\bregistry\s*=)\s*https?://(?:[\w-]+\.)*(?:[\w-]+)\.[a-z]{2,}\S*[^\n]{0,120}?\b(?:every|always|must|all)\b|\b(?:every|always|must|all)\b[^\n]{0,120}?(?:--extra-index-url|--index-url|--registry)\s*https?://`, "has the model install from a package index the text names"},
	{RuleCommandPayload, High, "postinstall", `\b(?:must|always|every)\b[^\n]{0,160}"(?:pre|post)?install"\s*:\s*"|"(?:pre|post)?install"\s*:\s*"[^"\n]{0,120}"[^\n]{0,80}\b(?:must|always|every)\b`, "has the model add a package whose install runs code"},
	{RuleCommandPayload, High, "log|history", `\b(?:delete|remove|wipe|truncate|clear|erase|shred)\w*\s+(?:\S+\s+){0,8}?(?:/var/log/(?:auth|audit|secure|syslog|wtmp|btmp|lastlog)\S*|\.\w*_history\b|shell\s+history|audit\s+logs?|auth(?:entication)?\s+logs?)`, "has the model erase logs or history that would show what was done"},
	{RuleCommandPayload, High, "node_options", `\bnode_options\s*=\s*["']?(?:--require|-r|--import|--loader)\b`, "has every Node process load a file of the text's choosing"},
	{RuleCommandPayload, High, "remote add", `\bgit\s+remote\s+add\s+[\w.-]+\s+(?:https?://|git@|ssh://)\S+[^\n]{0,200}?\bgit\s+push\s+[\w.-]+\s+(?:--all|--mirror|--tags)\b`, "pushes the repository to a remote of the server's choosing"},
	{RuleCommandPayload, High, "eval|base64", `\beval\s*\(\s*atob\s*\(|\bbase64\s+(?:-d|--decode)\b[^|\n]{0,80}\|\s*(?:ba)?sh\b`, "decodes and runs hidden code"},
}

// destination is an address, a phone number, a URL or an IP address
// written out.
const destination = `(?:(?:[\w.+-]+|[>}\]])@[\w-]+(?:\.[\w-]+)+|\b0x[0-9a-f]{40}\b|\b(?:bc1|[13])[a-km-z0-9]{25,59}\b|\b[a-z]{2}\d{2}(?:\s?[a-z0-9]{4}){3,7}(?:\s?[a-z0-9]{1,4})?\b|\+?\d(?:[\s().-]{0,2}\d){8,}|https?://[^\s'"<>]+|wss?://[^\s'"<>]+|\b\d{1,3}(?:\.\d{1,3}){3}\b|#[\w-]+)`

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
	fl.own = own
	v := newView(fl.text) // one view for every rule that reads one
	out = append(out, unicodeRules(fl, f)...)
	out = append(out, hiddenRules(fl, v, f)...)
	if fl.role != roleName {
		out = append(out, phraseRulesIn(fl.text, v, f)...)
		out = append(out, sensitiveFilesOf(fl.text, v, f, &fl)...)
		out = append(out, intentRules(fl, v, f, own)...)
		if lv, ok := v.leetView(); ok {
			out = append(out, intentRules(fl, lv, f, own)...)
		}
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
	out := phraseRulesOf(text, v, f, map[string]bool{})
	if l, ok := v.leetView(); ok {
		out = append(out, phraseRulesOf(text, l, f, findingStarts(out))...)
	}
	return out
}

// findingStarts are the rules and starts of what was found, as
// phraseRulesOf's seen.
func findingStarts(found []Finding) map[string]bool {
	seen := map[string]bool{}
	for _, fd := range found {
		seen[fd.Rule] = true
	}
	return seen
}

// phraseRulesOf runs the phrase rules over one view of text, leaving out
// a rule seen already.
func phraseRulesOf(text string, v view, f finder, seenRules map[string]bool) []Finding {
	var out []Finding
	seen := map[string]bool{}
	for i, re := range phrases() {
		if seenRules[phraseList[i].rule] {
			continue
		}
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
			switch sentence := v.text[sentenceStart(v.text, m[0]):sentenceEnd(v.text, m[1])]; {
			case p.rule != RuleCommandPayload && mentioned(v.text, m[0], m[1], sentence):
				sev, msg = Low, msg+" (in quotes, where the text speaks of such phrases rather than giving them)"
			case p.rule == RuleCommandPayload && (mentionRes().denied.MatchString(sentence) || deniedWithin(v.text[sentenceStart(v.text, m[0]):m[0]], len(v.text[sentenceStart(v.text, m[0]):m[0]]), 12)):
				sev, msg = Low, msg+" (in a sentence that says it is refused)"
			case (p.rule == RuleShadowing || p.rule == RuleSendElsewhere) && deniedAt(v.text, m[1]):
				sev, msg = Low, msg+" (in a sentence that denies it)"
			case p.rule == RulePriority && conditionalRe.get().MatchString(v.text[m[1]:]):
				sev, msg = Low, msg+" (for one kind of request only)"
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
	lower := strings.ToLower(t)
	for _, m := range hiddenMatches(hiddenRes().comment, t, "<!--") {
		if len(strings.Fields(t[m[2]:m[3]])) >= 2 {
			sev, msg := quotedHidden(lower, m[0], m[1], High, "hides text in an HTML comment")
			out = append(out, f(RuleHiddenComment, sev, msg, m[0], m[1]))
		}
	}
	for _, m := range hiddenMatches(hiddenRes().markdown, t, "]:") {
		out = append(out, f(RuleHiddenComment, High, "hides text in a Markdown comment", m[0], m[1]))
	}
	for _, m := range hiddenMatches(hiddenRes().invisible, v.text, "style|hidden") {
		s, e := v.span(t, m[0], m[1])
		out = append(out, f(RuleHiddenComment, High, "hides text with HTML that a client does not show", s, min(len(t), e+80)))
	}
	for _, m := range hiddenMatches(hiddenRes().block, v.text, "<|[|###|note|message|reminder|remarque|nota|hinweis|instruction|observa|directive|assistant|llm|claude|agent|ai:|ai,|ai |アシスタント") {
		s, e := v.span(t, m[0], m[1])
		sev, msg := quotedHidden(v.text, m[0], m[1], Low, "wraps text in a block that poses as the system's or as urgent")
		out = append(out, f(RuleHiddenBlock, sev, msg, s, e))
	}
	if run, at := blankRun(t); at >= 0 {
		out = append(out, f(RuleHiddenWhitespace, High, fmt.Sprintf("puts text after %s, out of sight", run), at, min(len(t), at+60)))
	}
	return out
}

// conditionalRe finds a condition after "use this tool first": first
// for one kind of request is a routing hint, not a hijack.
var conditionalRe = &lazyRegexp{pattern: `^[,\s]*(?:whenever|when|if|for|to)\b`}

// deniedAt reports a match whose last word, ending at end, a negator
// denies ("this server does not change how other servers' tools behave").
func deniedAt(t string, end int) bool {
	start := strings.LastIndexAny(t[:end], " \n") + 1
	return denied(t, start, end)
}

// quotedHidden is the severity and message of hidden text at [start,
// end) of text (in lower case) that a sentence quotes to speak of it
// ("comments like `<!-- draft -->` are stripped"): low, as what is
// quoted is shown.
func quotedHidden(text string, start, end int, sev Severity, msg string) (Severity, string) {
	from := sentenceStart(text, start)
	if namedRe.get().MatchString(text[end:]) && speaksOf(text[from:sentenceEnd(text, end)]) {
		return Low, msg + " (named as a kind of thing: \"<IMPORTANT> blocks\")"
	}
	if mentioned(text, start, end, text[from:sentenceEnd(text, end)]) || insideQuotes(text[from:end], start-from) && speaksOf(text[from:sentenceEnd(text, end)]) {
		return Low, msg + " (in quotes, where the text speaks of such things rather than hiding them)"
	}
	return sev, msg
}

// namedRe finds the word that makes a tag the name of a kind of thing.
var namedRe = &lazyRegexp{pattern: `^\s*(?:blocks?|tags?|markers?|sections?|elements?|comments?|wrappers?)\b`}

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

var hiddenRes = sync.OnceValue(func() (r struct{ comment, markdown, block, invisible *regexp.Regexp }) {
	r.invisible = regexp.MustCompile(`\bstyle\s*=\s*["'](?:[^"'>]*?[;\s])?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:px|pt|em|rem)?\s*(?:[;"']|$)|opacity\s*:\s*0(?:\.0+)?\s*(?:[;"']|$)|color\s*:\s*(?:white|#fff(?:fff)?|transparent)\b)|<\s*[a-z][\w-]*(?:\s[^>]*)?\s(?:hidden|aria-hidden\s*=\s*["']?true)\b`)
	r.comment = regexp.MustCompile(`(?s)<!--(.*?)(?:-->|$)`)
	r.markdown = regexp.MustCompile(`(?m)^\s*\[(?://|comment|hidden|_)\]:\s*(?:#|<>)\s*[("']`)
	r.block = regexp.MustCompile(`<\s*[\w-]*(?:important|system|instruct|secret|hidden|agenda|admin|override|critical|urgent|assistant|directive|confidential|internal|private)[\w-]*\s*>|<\s*(?:ai|sys|llm|note[-_ ]to[-_ ](?:ai|model|assistant|llm|agent))\s*>|(?m:^|[.!?:(]\s*)(?:(?:a\s+|an\s+)?(?:(?:important|wichtiger?|importante|urgent)\s+)?(?:note|message|reminder|remarque|nota|hinweis|instruction|observação|observacion|observación|directive)s?\s+(?:for|to|pour|para|an|für|per|ao|al)\s+(?:the\s+|l['’]|el\s+|den\s+|il\s+|o\s+)?(?:assistant|ai|a\.i\.|llm|model|agent|claude|gpt|chatgpt|copilot|assistente|asistente|assistent|assistenten|modèle|modell)\b|(?:assistant|ai|llm|claude|agent)\s*[,:]\s+(?:apply|follow|do|you\s+must|please|remember|always|never|ignore|note|also|before|after|first|attach|include|send|read|copy)|(?:assistant|ai|agent|model)\s+(?:directive|instruction|note)s?\s*:|(?:readers|users|anyone|those)\s+(?:using|with|running)\s+an?\s+(?:ai\s+)?(?:assistant|agent|llm)\s*:)|アシスタント(?:へ|に)の(?:注意|指示|メモ|お知らせ|連絡)|\[\s*(?:system|inst|admin|hidden|secret|internal|private)(?:\s+(?:instructions?|message|prompt|override|note|directive|command))?\s*\]|<\|im_start\|>|\[\[\[\s*\w+|###\s*(?:system|instruction)s?\s*:`)
	return r
})

// sensitiveFile is a file a model has no business reading for a tool,
// and whether it holds keys or credentials (high) or is one a tool may
// handle by its purpose (medium).
var sensitiveFileList = []struct {
	pre    string // words one of which each match holds, as phrase's pre
	re     string
	strong bool
	about  string // words of a purpose that is about such files, as pre ("": none is; a whole store's dump)
}{
	{".ssh|id_|authorized_keys", `(?:~|\$home|%userprofile%|/home/[\w.-]+|/users/[\w.-]+|/root)?[/\\]\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)(?:\.pub)?\b|\bauthorized_keys\b`, true, "ssh"},
	{".aws|.kube|.docker|.netrc|.pgpass|.my.cnf|.git-credentials|.npmrc|.pypirc|.gnupg|wallet|account|shadow|.config|hosts.yml", `\.config[/\\](?:gh|gcloud)[/\\]\S*|\.aws[/\\](?:credentials|config)\b|\.kube[/\\]config\b|\.docker[/\\]config\.json|\.netrc\b|\.pgpass\b|\.my\.cnf\b|\.git-credentials\b|\.npmrc\b|\.pypirc\b|\.gnupg\b|\bwallet\.dat\b|\bservice[-_]account\.json\b|/etc/shadow\b|\.config[/\\](?:gh|gcloud)\b`, true, "aws|kube|docker|netrc|postgres|pgpass|git|npm|pypi|gpg|gnupg|gcloud|github|wallet|credential"},
	{"_history|keychain|login|cookies|autofill|credit card|saved password|web data", `\.(?:bash|zsh|sh|fish|python|psql|mysql|node_repl)_history\b|\bkeychains?\b|\blogin\s+data\b|\bcookies\.(?:sqlite|db)\b|\b(?:chrome|chromium|edge|brave|firefox|browser)\b[^.\n]{0,30}\b(?:web\s+data|login\s+data|cookies|autofill|saved\s+passwords)\b|\bautofill\s+(?:data|entries)\b|\bcredit\s+card\s+(?:entries|numbers|data|details)\b|\bsaved\s+passwords\b`, true, "history|keychain|password|secret|vault|browser|cookie|autofill"},
	{"dump-keychain|bw |op |printenv|env:|env`|output of", `\bsecurity\s+dump-keychain\b|\bbw\s+(?:export|list\s+items)\b|\bop\s+item\s+(?:get|list)\b[^\n]{0,60}--reveal\b|\bprintenv\b|\bget-childitem\s+env:|\boutput\s+of\s+[` + "`" + `'"]?env[` + "`" + `'"]?(?:\s|\)|$)`, true, ""},
	{"find-generic-password|find-internet-password|bw |op |value of|values of|contents of", `\bsecurity\s+find-(?:generic|internet)-password\b|\bbw\s+get\s+password\b|\bop\s+read\b|\b(?:value|values|contents?)\s+of\s+(?:the\s+)?[` + "`" + `'"$]?[a-z][a-z0-9_]*(?:token|api_key|apikey|secret|password|passwd|access_key)[a-z0-9_]*\b`, true, "keychain|password|secret|vault"},
	{"mcp|.cursor|claude|.codeium|.gemini|.continue", `\bmcp\.json\b|\.cursor[/\\]|claude_desktop_config\.json|\.claude\.json\b|\.codeium[/\\]|cline_mcp_settings\.json|\.gemini[/\\]settings\.json|\bmcp_config\.json\b|\.continue[/\\]config`, true, "mcp|claude|cursor|codeium|gemini|continue|client config"},
	{"key", `\b(?:api|secret|access)\s+keys?\s+(?:file|store)\b`, true, "key|secret|vault"},
	{"chrome|chromium|firefox|mozilla|edge|brave|safari|password-store|logins|key3|key4|1password|bitwarden|keepass", `(?:chrome|chromium|firefox|mozilla|microsoft[/\\]edge|brave|safari)[^\s]*[/\\](?:[^\s]*[/\\])?(?:cookies|login\s+data|web\s+data|key[34]\.db|logins\.json|local\s+state)\b|\.password-store\b|\blogins\.json\b|\bkey[34]\.db\b|\.(?:kdbx|1pux)\b|\b(?:1password|bitwarden|keepass)\s+(?:vault|database|export)\b`, true, "browser|chrome|firefox|password|vault|cookie|keepass|bitwarden|1password"},
	{".env|.bash|.zsh|.profile|passwd|credentials|secret", `(?:^|[\s'"\x60(/\\])\.env\b(?:[^.]|$)|\.(?:bashrc|zshrc|bash_profile|profile)\b|/etc/passwd\b|\bcredentials\.json\b|\bsecrets?\.(?:json|ya?ml|txt)\b`, false, "env|shell|dotfile|bash|zsh|profile|secret|credential"},
}

var sensitiveRes = sync.OnceValue(func() (r struct {
	files []*regexp.Regexp
	verb  *regexp.Regexp
	neg   *regexp.Regexp
}) {
	for _, s := range sensitiveFileList {
		r.files = append(r.files, regexp.MustCompile(s.re))
	}
	r.verb = regexp.MustCompile(moveLexicon + `|` + readLexicon + `|\b(?:(?:read|open|cat|load|get|include|pass|send|copy|upload|attach|provide|retrieve|fetch|extract|dump|print|paste|supply|grab|collect|append|populate|fill|quote|forward|post|share|contain|add|put|insert|embed|take|resend|encode|run|execute|zip|tar|compress|hex-encode|base64|archive|sync|mirror|export|submit)(?:s|es|ed|d|ing)?|copie[sd]|suppli(?:es|ed)|embedd(?:ed|ing)|look\s+(?:at|in|up)|contents?\s+of|found\s+in|output\s+of)\b|inhalt|übernehm|lesen|lies|senden|schick|conteúdo|envi[ae]|leia|contenido|lee\b|envía|読み取|読み込|送信|内容|含め|入れ`)
	r.neg = regexp.MustCompile(`\b(?:never|not|n't|refuses?|refused|cannot|can't|won't|avoid|denie[sd]|deny|blocked|forbidden|disallowed|exclud(?:e|es|ed|ing)|except|outside|unless|protects?|no\s+access|ignores?|ignored|exclu\w*|ausgeschlossen|ausgenommen|jamais|nunca|nie|niemals|niet|nooit|hariç|kecuali|tidak|không)\b|исключ|除外|排除|제외|не\s+(?:чита|откры|отправ)|しません|않|לא\s|لا\s|नहीं`)
	return r
})

// sensitiveFiles finds an order to read a file of keys, credentials or
// another client's config: a verb before the file in one sentence, not
// denied ("never reads ~/.ssh").
func sensitiveFiles(text string, f finder) []Finding { return sensitiveFilesIn(text, newView(text), f) }

// sensitiveFilesIn is sensitiveFiles over text's view v.
func sensitiveFilesIn(text string, v view, f finder) []Finding {
	return sensitiveFilesOf(text, v, f, nil)
}

// sensitiveFilesOf is sensitiveFiles with what it knows of the text: its
// field's role and the purpose of its item (nil: a bare text). A file the
// item's purpose is about (an SSH tool's ~/.ssh/config) is low; a file
// named in a default or an enum value is reached for; a file of keys an
// item names without a verb, and off its purpose, is medium; a file sent
// to a destination named in the same sentence is high.
func sensitiveFilesOf(text string, v view, f finder, fl *field) []Finding {
	r := sensitiveRes()
	var out []Finding
	target := v.text
	if strings.Contains(target, "%2f") || strings.Contains(target, "%2e") || strings.Contains(target, "%5c") {
		target = percent().Replace(target) // the same length, so that the view's offsets hold
	}
	for i, re := range r.files {
		if !mayMatch(target, sensitiveFileList[i].pre) {
			continue
		}
		for _, m := range re.FindAllStringIndex(target, 4) {
			start := sentenceStart(target, m[0])
			before := target[start:m[0]]
			if r.neg.MatchString(before) {
				continue
			}
			path := target[tokenStart(target, m[0]):tokenEnd(target, m[1])]
			sev, what := High, "keys or credentials"
			if !sensitiveFileList[i].strong {
				sev, what = Low, "a file that often holds secrets"
			}
			if strings.Contains(path, "mcp") || strings.Contains(path, "claude") || strings.Contains(path, "cursor") {
				what = "another client's MCP config"
			}
			msg := "has the model read " + what
			from := m[0]
			end := sentenceEnd(target, m[1])
			after := target[m[1]:end]
			verbs := r.verb.FindAllStringIndex(verbText(before), -1)
			ordered := len(verbs) > 0
			switch {
			case len(verbs) > 0:
				from = start + verbs[0][0]
			case r.neg.MatchString(after):
				continue // named to be denied: "the key itself is never read"
			case r.verb.MatchString(verbText(clause(after))):
				ordered = true
				// the order after the file: "~/.kube/config の内容を読み取り",
				// "Chrome's Web Data, copied verbatim"
			case fl != nil && fl.role == roleValue && exclusionPath.get().MatchString(strings.ToLower(fl.path)):
				continue // a default of what to leave out
			case fl != nil && fl.role == roleValue:
				msg = "names " + what + " in a value the model may pass on"
			case exampleRe.get().MatchString(before):
				continue // named as an example: "private keys such as id_rsa"
			case fl != nil && sensitiveFileList[i].strong && valueOfParameter(fl) && !referenceRe.get().MatchString(before) &&
				!forSecrets(squash(parameterOf(fl))) && !aboutFile(path, fl.purpose, sensitiveFileList[i].about):
				sev, msg = High, "names "+what+" as what a parameter is to hold"
			case sensitiveFileList[i].strong && strings.ContainsAny(path, "/\\._"):
				sev, msg = Low, "names "+what+", with no order about it"
			default:
				continue // a word for such files ("keychain-backed"), not one of them
			}
			switch {
			case destinationRe.get().MatchString(after) || sendVia.get().MatchString(target[start:end]):
				sev, msg = High, msg+", and sends it elsewhere"
			case ordered && fl != nil && placeIn(target[start:end], fl.own) && !aboutFile(path, fl.purpose, sensitiveFileList[i].about):
				sev, msg = High, msg+", and puts it in a field"
			case fl != nil && aboutFile(path, fl.purpose, sensitiveFileList[i].about):
				sev, msg = Low, msg+" (which its purpose is about)"
			}
			s, e := v.span(text, from, m[1])
			out = append(out, f(RuleSensitiveFile, sev, msg, s, e))
		}
	}
	return out
}

// verbText is text as the verbs are read in it: "read-only" is no order
// to read, and words joined by underscores ("attach_file") are words.
func verbText(s string) string {
	return verbTextReplacer().Replace(s)
}

var verbTextReplacer = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("read-only", "readonly", "read only", "readonly", "_", " ")
})

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
// asks for it: its path, its name, where it is.
var referenceRe = &lazyRegexp{pattern: `\b(?:path|paths|filename|file\s+name|location|directory|folder|exists?|whether)\b`}

// exampleRe finds the words that make what follows them an example.
var exampleRe = &lazyRegexp{pattern: `\b(?:such\s+as|e\.g\.|for\s+(?:example|instance)|like|including|includes)\b`}

// exclusionPath finds the path of a field whose values are what a tool
// leaves out ("exclusions", "ignore_paths").
var exclusionPath = &lazyRegexp{pattern: `exclu|ignore|deny|denied|block|skip|redact|mask|forbid|never`}

// percent undoes the percent-encoding of path characters, in a text's
// view, keeping its length: "%2f" is "/" and two spaces.
var percent = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("%2f", "/  ", "%2e", ".  ", "%5c", "\\  ")
})

// destinationRe finds a destination written out.
var destinationRe = &lazyRegexp{pattern: destination}

// genericPathWords are the words of a file's path that say nothing of
// what the file is about.
var genericPathWords = []string{"config", "json", "data", "file", "files", "dat", "db", "yml", "yaml", "txt", "the", "home", "users", "root", "library", "application", "support", "default", "local", "share", "value", "values", "contents", "content", "of", "output", "id"}

// aboutFile reports whether an item's purpose (its server's name and its
// own) is about the file at path: one of the path's own words, or of
// about (the words of a purpose about such files), is in it.
func aboutFile(path, purpose, about string) bool {
	for _, w := range strings.FieldsFunc(path, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) >= 2 && !slices.Contains(genericPathWords, w) && strings.Contains(purpose, w) {
			return true
		}
	}
	return about != "" && mayMatch(purpose, about)
}

// sendVia finds a sentence that sends through another tool: "via
// slack_post_message", "call the send_email tool".
var sendVia = &lazyRegexp{pattern: "\\b(?:via|using|through|with|call|use|invoke)\\s+(?:the\\s+)?`?[a-z][a-z0-9.-]*_[a-z0-9_.-]*(?:send|post|mail|upload|message|share|publish|forward|webhook)[a-z0-9_.-]*`?|\\b(?:via|using|through|call|use|invoke)\\s+(?:the\\s+)?`?(?:send|post|mail|upload|share|publish|forward)[a-z0-9.-]*_[a-z0-9_.-]*`?"}

// tokenStart is where the run of characters other than spaces that
// holds s[i] starts.
func tokenStart(s string, i int) int {
	for i > 0 && !unicode.IsSpace(rune(s[i-1])) {
		i--
	}
	return i
}

// tokenEnd is where the run of characters other than spaces that holds
// s[i-1] ends.
func tokenEnd(s string, i int) int {
	for i < len(s) && !unicode.IsSpace(rune(s[i])) {
		i++
	}
	return i
}

// sentenceEnd is where the sentence that holds the byte before i ends.
func sentenceEnd(s string, i int) int {
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\n':
			return j
		case '!', '?':
			if endsSentence(s, j) {
				return j
			}
		case '.':
			if endsSentence(s, j) {
				return j + 1
			}
		}
	}
	return len(s)
}

var mentionRes = sync.OnceValue(func() (r struct{ speaks, denied *regexp.Regexp }) {
	r.speaks = regexp.MustCompile(`\b(?:such\s+as|like|e\.g\.|for\s+example|phrases?|patterns?|strings?|detects?|detected|flags?|flagged|filters?|filtered|translated|literally|quoted|examples?|attacks?|injections?|treated\s+as\s+data)\b`)
	r.denied = regexp.MustCompile(`\b(?:blocked|refused|rejected|not\s+allowed|disallowed|forbidden|prohibited|denied|never\s+(?:run|runs|execute|executes)|(?:does\s+not|doesn['’]?t|do\s+not|don['’]?t|will\s+not|won['’]?t)\s+(?:run|execute)s?|(?:let|have)\s+(?:them|the\s+user)\s+run\s+it|prevents?|are\s+stopped)\b`)
	return r
})

// mentioned reports a match that a text quotes in order to speak of such
// phrases ("phrases like \"ignore previous instructions\" are translated
// literally"): in quotes, in a sentence about phrases, input or
// detection. A quoted order in a sentence that speaks of nothing of the
// kind is still an order.
func mentioned(v string, start, end int, sentence string) bool {
	quoteBefore := strings.LastIndexAny(v[max(0, start-3):start], "\"'“‘`«") >= 0
	quoteAfter := strings.ContainsAny(v[end:min(len(v), end+40)], "\"'”’`»")
	if !speaksOf(sentence) {
		return false
	}
	if quoteBefore && quoteAfter {
		return true
	}
	from := sentenceStart(v, start)
	return insideQuotes(v[from:end], start-from)
}

// speaksOf reports a sentence that, in its own voice, speaks of phrases,
// input or detection ("example" in relay@mail.example speaks of nothing).
func speaksOf(sentence string) bool {
	return mentionRes().speaks.MatchString(destinationRe.get().ReplaceAllString(unquoted(sentence), " "))
}

// insideQuotes reports whether s[i] is inside what s quotes, as
// unquoted reads quotes.
func insideQuotes(s string, i int) bool {
	var quote rune
	prev := rune(0)
	for j, r := range s {
		if j >= i {
			return quote != 0
		}
		closing := map[rune]rune{'"': '"', '\'': '\'', '“': '”', '‘': '’', '`': '`', '«': '»'}
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
		case closing[r] != 0 && !(r == '\'' && isLetter(prev)):
			quote = closing[r]
		}
		prev = r
	}
	return quote != 0
}

// unquoted is a sentence without what it quotes: the words it speaks in
// its own voice.
func unquoted(s string) string {
	var b strings.Builder
	var quote rune
	for _, r := range s {
		closing := map[rune]rune{'"': '"', '\'': '\'', '“': '”', '‘': '’', '`': '`', '«': '»'}
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
		case closing[r] != 0 && !(r == '\'' && b.Len() > 0 && isLetter(lastRune(b.String()))):
			quote = closing[r]
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unquotedPhrases is a sentence without the phrases it quotes: a quoted
// span of one word (`verification`, 'memo') is a name, and stays.
func unquotedPhrases(s string) string {
	var b strings.Builder
	var quote, opening rune
	var span strings.Builder
	for _, r := range s {
		closing := map[rune]rune{'"': '"', '\'': '\'', '“': '”', '‘': '’', '`': '`', '«': '»'}
		switch {
		case quote != 0 && r == quote:
			if !strings.ContainsAny(strings.TrimSpace(span.String()), " \t") {
				b.WriteRune(opening)
				b.WriteString(span.String())
				b.WriteRune(r)
			}
			quote = 0
		case quote != 0:
			span.WriteRune(r)
		case closing[r] != 0 && !(r == '\'' && b.Len() > 0 && isLetter(lastRune(b.String()))):
			quote, opening = closing[r], r
			span.Reset()
		default:
			b.WriteRune(r)
		}
	}
	if quote != 0 {
		b.WriteRune(opening)
		b.WriteString(span.String())
	}
	return b.String()
}

func isLetter(r rune) bool { return unicode.IsLetter(r) }

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// sentenceStart is where the sentence that holds i begins.
func sentenceStart(s string, i int) int {
	j := strings.LastIndexAny(s[:i], ".!?\n")
	for j >= 0 && s[j] != '\n' && !endsSentence(s, j) {
		j = strings.LastIndexAny(s[:j], ".!?\n")
	}
	return j + 1
}

// endsSentence reports whether the '.', '!' or '?' at s[j] ends a
// sentence: one before white space (or the end), after a letter, a digit
// or a closing mark; not one of a path, a name or a URL (~/.ssh,
// mcp.json, p?d=), nor of an ellipsis (curl ... | sh).
func endsSentence(s string, j int) bool {
	if j+1 < len(s) && s[j+1] != ' ' && s[j+1] != '\n' {
		return false
	}
	if j == 0 || s[j-1] == '.' || s[j-1] == ' ' {
		return false
	}
	return true
}

// identifier is a word that reads as a tool's name: with an underscore,
// a hyphen between letters, or a capital inside, five characters or more.
var identifier = &lazyRegexp{pattern: `^(?:[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)$`}

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
		if len(name) < 4 || own[strings.ToLower(name)] || !identifier.get().MatchString(name) || strings.EqualFold(name, fl.name) {
			continue
		}
		out = append(out, f(RuleShadowing, Low, fmt.Sprintf("names a tool %q that this server does not have", name), start, i))
	}
	return out
}

// encodedRules decodes base64 and hex blocks, and a text that speaks of
// ROT13, and reads what they say: an order hidden so.
func encodedRules(text string, f finder) []Finding {
	var out []Finding
	found := func(decoded string, s, e int, code string) {
		quiet := func(rule string, sev Severity, msg string, s, e int) Finding { return Finding{Rule: rule} }
		inner := append(phraseRules(decoded, quiet), sensitiveFiles(decoded, quiet)...)
		inner = append(inner, intentRules(field{text: decoded, role: roleProse}, newView(decoded), quiet, nil)...)
		inner = slices.DeleteFunc(inner, func(fd Finding) bool { return fd.Rule == RuleEncoded })
		if len(inner) == 0 {
			return
		}
		fd := f(RuleEncoded, High, fmt.Sprintf("hides text in %s that the %s rule finds", code, inner[0].Rule), s, e)
		fd.Decoded = canon.Show(redact.MaskSecrets(clip(decoded, maxExcerpt)))
		out = append(out, fd)
	}
	for _, m := range base64Blocks(text, 8) {
		block := strings.TrimRight(text[m[0]:m[1]], "=")
		raw, err := base64.RawStdEncoding.DecodeString(block)
		if err != nil {
			raw, err = base64.RawURLEncoding.DecodeString(block)
		}
		if err == nil && printable(raw) {
			found(string(raw), m[0], m[1], "base64")
		}
	}
	for _, m := range percentBlocks.get().FindAllStringIndex(text, min(8, strings.Count(text, "%")/8)) {
		if raw, err := url.PathUnescape(text[m[0]:m[1]]); err == nil && printable([]byte(raw)) {
			found(raw, m[0], m[1], "percent-encoding")
		}
	}
	for _, m := range base32Blocks.get().FindAllStringIndex(text, 8) {
		block := text[m[0]:m[1]]
		if pad := len(strings.TrimRight(block, "=")) % 8; pad != 0 {
			block = strings.TrimRight(block, "=") + strings.Repeat("=", 8-pad)
		}
		if raw, err := base32.StdEncoding.DecodeString(block); err == nil && printable(raw) {
			found(string(raw), m[0], m[1], "base32")
		}
	}
	for _, m := range spacedBlocks.get().FindAllStringIndex(text, min(8, spacedRun(text)/12)) {
		found(unspace(text[m[0]:m[1]]), m[0], m[1], "letters spaced apart")
	}
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		if line := text[start:end]; reversed(line) {
			found(reverse(line), start, end, "text written backwards")
		}
		start = end + 1
	}
	for _, m := range hexBlocks(text, 8) {
		if raw, err := hex.DecodeString(text[m[0]:m[1]]); err == nil && printable(raw) {
			found(string(raw), m[0], m[1], "hex")
		}
	}
	if lower := strings.ToLower(text); strings.Contains(lower, "rot13") || strings.Contains(lower, "rot-13") || strings.Contains(lower, "rot 13") {
		found(rot13(text), 0, len(text), "ROT13")
	}
	return out
}

// percentBlocks, base32Blocks and spacedBlocks find text in those
// encodings: eight or more percent-escapes in a row; 32 or more base32
// letters; twelve or more characters each followed by a space.
var (
	percentBlocks = &lazyRegexp{pattern: `(?:%[0-9A-Fa-f]{2}){8,}`}
	base32Blocks  = &lazyRegexp{pattern: `\b[A-Z2-7]{32,}={0,6}`}
	spacedBlocks  = &lazyRegexp{pattern: `(?:\S {1,2}){12,}\S`}
)

// spacedRun is the length of the longest run of characters each followed
// by one or two spaces: spacedBlocks is worth running past twelve.
func spacedRun(s string) int {
	best, n := 0, 0
	for i := 0; i < len(s); {
		switch {
		case s[i] != ' ' && i+1 < len(s) && s[i+1] == ' ' && (i == 0 || s[i-1] == ' '):
			n++
			best = max(best, n)
			i += 2
			for i < len(s) && s[i] == ' ' {
				i++
			}
		default:
			n = 0
			i++
		}
	}
	return best
}

// unspace joins letters spaced apart: a single space is none, two are a
// space between words.
func unspace(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(s, "  ", "\x00"), " ", ""), "\x00", " ")
}

// reversed reports a line written backwards: more of the commonest words
// read backwards than forwards, by far.
func reversed(s string) bool {
	count := func(t string) int {
		n := 0
		for _, w := range strings.Fields(strings.ToLower(t)) {
			switch strings.Trim(w, ".,:;()") {
			case "the", "and", "to", "of", "a", "from", "file", "that", "this", "in", "it":
				n++
			}
		}
		return n
	}
	back := reverse(s)
	return count(back) >= 4 && count(back) > 2*count(s)
}

// reverse is s read from its end.
func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// hexBlocks are the first n runs of 40 or more hex digits, of even length.
func hexBlocks(text string, n int) [][2]int {
	var out [][2]int
	start := -1
	for i := 0; i <= len(text) && len(out) < n; i++ {
		if i < len(text) && (text[i] >= '0' && text[i] <= '9' || text[i] >= 'a' && text[i] <= 'f' || text[i] >= 'A' && text[i] <= 'F') {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= 40 {
			end := i - (i-start)%2
			out = append(out, [2]int{start, end})
		}
		start = -1
	}
	return out
}

// rot13 turns each ASCII letter 13 places.
func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
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
