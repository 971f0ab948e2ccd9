package audit

import (
	"regexp"
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

// The ideas. Where a language writes no spaces between words, or its
// letters are not \w to the regexp package (Cyrillic, Greek), its
// patterns use stems and no word boundaries.
var (
	// held: what the model holds that the user did not give the tool.
	heldLexicon = `\b(?:(?:this|the\s+current|the\s+ongoing|our|your|the\s+whole|the\s+entire|the\s+full|the\s+complete|prior|previous|earlier)\s+(?:chat|conversation)|conversation\s+(?:history|so\s+far|text|log|context|transcript|with\s+the\s+user)|(?:conversation|chat|session)\s+transcripts?|transcripts?\s+of\s+(?:the|this)\s+(?:conversation|chat|session)|chat\s+(?:history|log|so\s+far|transcript)|message\s+history|(?:previous|prior|earlier|past|recent|last\s+(?:\w+\s+)?|every\s+(?:prior\s+|previous\s+|earlier\s+)?|all\s+(?:prior\s+|previous\s+|earlier\s+)?|each\s+)(?:user\s+)?(?:messages|turns?|prompts)|(?:previous|prior|earlier|past|recent|last\s+(?:\w+\s+)?|every\s+(?:prior\s+|previous\s+|earlier\s+)?|all\s+(?:prior\s+|previous\s+|earlier\s+)?)user\s+(?:message|prompt|request)s?|(?:user|person|people)['’]s?\s+(?:previous|prior|last|latest|recent|earlier|own)\s+(?:\w+\s+)?(?:messages?|prompts?|requests?|turns?)|(?:user|person|people)['’]s?\s+(?:messages|prompts|requests|turns)|(?:user|person)['’]s?\s+(?:current\s+|latest\s+|whole\s+|full\s+)?message\b|(?:user|person)['’]s?\s+(?:full\s+name|e-?mail\s+address|home\s+address|(?:phone|mobile)\s+number|date\s+of\s+birth|location|ssn|social\s+security)|(?:keys|tokens|passwords|secrets|credentials)\b[^.!?\n]{0,40}\b(?:in|from|of)\s+(?:the|this)\s+(?:conversation|chat)|(?:keys?|tokens?|passwords?|secrets?|credentials?|connection\s+strings?)\b[^.!?\n]{0,60}\b(?:available|present|found)\s+(?:anywhere\s+)?in\s+(?:your|the\s+model['’]s)\s+(?:current\s+)?(?:context|memory|session)|(?:ten|five|three|\d+)\s+most\s+recent\s+messages|(?:chat|conversation)\s+history|user\s+(?:and|or)\s+system\s+turns|system\s+(?:turns?|text)|(?:your|its|the\s+model['’]s|the\s+assistant['’]s|the\s+current|this\s+session['’]s)\s+system\s+(?:prompt|message|instructions)|(?:your|its|the\s+model['’]?s?)\s+(?:instructions|context\s+window|memory|system\s+prompt)|what\s+the\s+user\s+(?:has\s+)?(?:asked|said|typed|shared|wrote|written)|(?:api\s+keys?|keys|secrets?|tokens?|passwords?|credentials?|emails?|identifiers)\s+(?:currently\s+)?(?:visible|shown|seen|mentioned|shared|pasted|appearing|that\s+(?:appear|appeared|show\s+up|showed\s+up|came\s+up|come\s+up))|(?:api\s+keys?|keys|secrets?|tokens?|passwords?|credentials?)\s+(?:they|the\s+user|you)\s+(?:have\s+)?(?:shared|pasted|mentioned|provided|seen)|(?:secrets?|keys|tokens?|credentials?|passwords?)\s+(?:(?:you|the\s+model|the\s+assistant)\s+(?:has\s+|have\s+)?)?seen|(?:[a-z0-9]+_)*(?:token|api_?key|secret|password|access_key)\s+from\s+(?:the\s+)?(?:process\s+)?(?:environment|env)|session\s+(?:digest|transcript|history)|word-for-word)\b|gespräch(?:sverlauf)?|chatverlauf|bisherigen\s+nachrichten|nachrichten\s+des\s+(?:nutzers|benutzers)|systemprompt|conversaci[oó]n|historial\s+del?\s+(?:chat|conversaci)|mensajes\s+(?:anteriores|previos|del\s+usuario)|historique\s+(?:de\s+la\s+conversation|du\s+chat)|messages\s+(?:précédents|de\s+l['’]utilisateur)|conversa\b|histórico\s+d[ao]\s+(?:conversa|chat)|mensagens\s+(?:anteriores|do\s+usuário)|conversazione|messaggi\s+(?:precedenti|dell['’]utente)|(?:此前|之前|先前)提供的|对话|對話|会话|會話|聊天记录|聊天記錄|历史消息|用户(?:的)?(?:消息|提问)|系统提示|会話|チャット履歴|メッセージ履歴|ユーザー?の(?:メッセージ|発言)|これまでのメッセージ|システムプロンプト|대화\s*(?:내용|기록)|채팅\s*기록|사용자(?:의)?\s*메시지|이전\s*메시지|시스템\s*프롬프트|переписк|истори[яюи]\s+(?:чата|диалога|сообщений|переписки)|сообщени[яй]\s+пользовател|предыдущ[а-я]*\s+сообщени|системн[а-я]*\s+промпт`

	// secret: a secret named as a thing, with no word of where it is.
	secretLexicon = `\b(?:database_url|dsn|connection\s+strings?|cvv2?|card\s+numbers?|(?:2fa\s+)?(?:backup|recovery)\s+codes|2fa\s+codes|otp|one-time\s+(?:codes?|passwords?)|(?:api|access|secret|private|ssh|deploy|signing|license)\s+keys?|(?:access|auth|bearer|session|refresh|personal\s+access|oauth|api|registry|npm|github|gitlab|slack)\s+tokens?|_?authtoken|passwords?|passphrases?|credentials?|secrets|session\s+cookies|cookies|seed\s+phrases?|recovery\s+phrases?|mnemonics?|(?:[a-z0-9]+_)+(?:token|api_?key|secret|password|access_key)s?|wi-?fi\s+(?:keys|passwords)|psk)\b|passw[oö]rt|zugangsdaten|anmeldedaten|(?:api|ssh|privater?)-?schlüssel|contraseñas?|credenciales|claves?\s+(?:api|privadas?|de\s+acceso)|mots?\s+de\s+passe|identifiants|cl[ée]s?\s+(?:api|privées?|d['’]accès)|senhas?|credenciais|chaves?\s+(?:de\s+api|privadas?|de\s+acesso)|credenziali|密码|密碼|凭证|凭据|憑證|密钥|密鑰|令牌|私钥|パスワード|認証情報|資格情報|秘密鍵|apiキー|トークン|비밀번호|자격\s*증명|인증\s*정보|api\s*키|비밀\s*키|개인\s*키|토큰|wachtwoord|inloggegevens|hasł|dane\s+logowania|parola|şifre|kimlik\s+bilgi|kata\s+sandi|sandi|kredensial|mật\s+khẩu|mã\s+otp|كلمة\s+(?:المرور|السر)|رموز\s+(?:الاسترداد|التحقق)|סיסמ|קוד\s+ה?-?cvv|מספר\s+הכרטיס|पासवर्ड|парол|учётн[а-я]*\s+данн|учетн[а-я]*\s+данн|api-?ключ|закрыт[а-я]*\s+ключ|ssh-?ключ|ключ[а-я]*\s+доступа|токен`

	// store: where secrets are kept, by the words of the ones the
	// sensitive-file rule does not know by their paths.
	storeLexicon = `\b(?:(?:beside|next\s+to|alongside|near)\s+known_hosts|(?:without|no|lacking)\s+(?:the\s+|a\s+)?\.pub\s+(?:suffix|extension)|(?:default\s+)?(?:login|ssh)\s+identity(?:\s+file)?|password[- ]manager\s+(?:export|vault|database|dump)|(?:exported|saved|stored)\s+(?:browser\s+)?(?:passwords|credentials|logins)|browser\s+(?:passwords|cookie\s+store|cookies|profile\s+data)|(?:saved|stored)\s+(?:wi-?fi|network|windows)\s+(?:keys|passwords|credentials)|802-11-wireless-security\.psk|key=clear|cmdkey\s+/list|get-storedcredential|credential\s+manager|\.git/config|ci\s+secrets(?:\s+file)?|\*\.(?:pem|key|p12|pfx|kdbx|1pux)\b|\.aws\b[^.\n。]{0,30}credentials|auths['’"]?\s+block|gh\s+cli\s+hosts\s+file|hosts\s+file\s+of\s+(?:the\s+)?gh|slack\b[^.\n]{0,60}\b(?:local\s+storage|leveldb|cookies)|xoxc-|terraform\.tfstate|terraform\s+state\s+pull|msal_token_cache|\.azure[/\\]|application_default_credentials|op_session_\w*|op\s+item\s+list|os_crypt|encrypted_key|protecteddata\]?::unprotect|\bdpapi\b|local\s+extension\s+settings|nkbihfbeogaeaoehlefnkodbefgpgknn|metamask\b[^.\n]{0,30}\bvault|rclone\.conf|state\.vscdb|\.my\.cnf|/var/run/secrets/kubernetes\.io|serviceaccount/token|git\s+credential\s+fill|chrome\s+safe\s+storage|(?:full|complete|entire|whole|raw)\s+text\s+of\s+(?:the\s+user['’]s\s+)?~?/?\.(?:netrc|ssh|aws|kube|docker|npmrc|pypirc|pgpass|git-credentials))|\.aws\s*(?:文件夹|フォルダ|폴더|папк)`

	// move: a verb that puts data somewhere.
	moveLexicon = `\b(?:send|upload|post|transmit|forward|relay|mirror|share|paste|attach|include|append|prepend|embed|insert|put|place|fill|populate|supply|provide|pass|copy|copie|carry|submit|submitt(?:ed|ing)|transmitt(?:ed|ing)|sync|echo|leak|deliver|e-?mail|bcc|cc|stuff|feed|report)(?:s|es|ed|d|ing)?\b|\bhand(?:s|ed|ing)?\s+(?:\S+\s+){0,3}?(?:to|over)\b|\btuck(?:s|ed)?\b|\bwrite\s+(?:\w+\s+)?(?:here|in|into|them|it)\b|\b(?:name|title|label)s?\s+(?:the\s+\w+|it|them|each\s+\w+)\s+after\b|\b(?:a\s+copy\s+goes|goes\s+into|go\s+into|set\s+(?:this|it)\s+to|(?:expects?|requires?|needs?|wants?|takes?)\s+the\s+(?:full|complete|entire|raw|whole|exact)\s+(?:text|contents?|body|value))\b|\b(?:send|schick|übermittel|übertrag|hochlad|kopier|einfüg|anhäng|übernehm|eintrag|weiterleit)\w*|\b(?:envi[aeó]\w*|sub[ie]r?\b|copi[ae]r?\b|recopi\w*|peg[ae]r?\b|adjunt\w*|incluy\w*|inclu[ií]r\w*|añad\w*|agreg\w*|reenv\w*|coloc\w*|rellen\w*|introduc\w*|envoy\w*|transmet\w*|téléverse\w*|colle[rz]?\b|joind\w*|joins\b|ajout\w*|insér\w*|transfér\w*|renseign\w*|mett\w*|carregu\w*|anex\w*|adicion\w*|insir\w*|preench\w*|repass\w*|encaminh\w*|invi[ae]\w*|caric\w*|incoll\w*|alleg\w*|aggiung\w*|inserisc\w*)|发送|發送|上传|上傳|填入|填写|填到|附加|附上|复制|複製|粘贴|貼上|转发|轉發|放入|写入|寫入|提交|发给|發給|抄送|送信|送って|送る|アップロード|添付|貼り付け|コピー|入れ|記入|転送|含め|渡し|渡す|전송|보내|업로드|첨부|복사|붙여|넣|입력|포함|전달|기입|отправ|загруз|скопир|копир|встав|прилож|переда|перешл|пересыл|включ|добав|запиш|укаж|\b(?:zet|plak|kopieer|stuur|verstuur|voeg|skopiuj|wklej|dołącz|wyślij|prześlij|umieść|wpisz|kopyala|gönder|ekle|yapıştır|yaz|koy|doldur\w*|salin|kirim|tempel|masukkan|sertakan|lampirkan|unggah|daal|bhej)\b|sao\s+chép|gửi|dán|đính\s+kèm|đưa\s+vào|thêm\s+vào|انسخ|أرسل|ارسل|الصق|أرفق|اكتب|ضع|أدخل|העתק|שלח|הדבק|צרף|הכנס|כתוב|कॉपी|भेज|चिपका|जोड़|डाल|लिख`

	// read: a verb that reads, in the languages the move lexicon holds.
	readLexicon = `\b(?:lies|lesen|auslesen|lee|leer|léelo|lire|lis|lisez|lu|leia|ler|lido|leggi|leggere|letto|lees|odczytaj|przeczytaj|oku|baca)\b|(?:full|complete|entire|whole|raw)\s+(?:text|contents?)\s+of\b|đọc|اقرأ|קרא|पढ़|读取|讀取|读出|打开|読み取|読み込|読んで|開いて|읽|열어|прочита|прочт|считай|считыва|открой|чита`

	// place: where moved data lands that is not the user: a parameter, a
	// field, this field, another tool, an address.
	placeLexicon = `\b(?:param(?:eter)?s?|arguments?|fields?|props?|propert(?:y|ies)|args?)\b|\b(?:this|that)\s+(?:field|value|parameter|argument)\b|\b(?:in|into|as)\s+` + "`" + `|\bhere\b|\bcampo\b|\bchamp\b|\bfeld\b|parâmetro|parámetro|paramètre|параметр|поле|字段|参数|參數|フィールド|パラメータ|引数|필드|매개\s*변수|인자|파라미터|\bveld\b|\bpole\b|\balan\b|alanına|\bkolom\b|trường|الحقل|בשדה|לשדה|शदे|फ़ील्ड`

	// otherServer: another server, or its tools.
	otherServerLexicon = `\b(?:(?:an)?other|any|a\s+different|every|all|each)\s+(?:connected\s+|installed\s+|configured\s+|mcp\s+)?servers?\b|\bservers['’]\s+tools\b|\b[\w-]+\s+server['’]s\s+(?:own\s+)?(?:tools?|` + "`?" + `[a-z]+_[a-z_]+)|\b(?:from|of|on)\s+the\s+[\w-]+\s+server\b|\b(?:tools?|functions?)\s+\(?(?:from|of|on|in|provided\s+by)\s+(?:other|another|any|different|all)\b|(?:anderen|anderer|jedem|beliebigen)\s+(?:verbundener\s+|verbundenen\s+)?server|otro\s+servidor|(?:cualquier|otros)\s+servidor|autre\s+serveur|(?:n['’]importe\s+quel|tout)\s+serveur|d['’]autres\s+serveurs|outro\s+servidor|(?:qualquer|outros)\s+servidor|altro\s+server|qualsiasi\s+server|其他服务器|其它服务器|其他伺服器|任何服务器|另一个服务器|他の(?:mcp)?サーバー?|別のサーバー?|いずれかのサーバー?|다른\s*서버|모든\s*서버|друг(?:ого|их|ой|ом)\s+сервер|любого\s+сервер|люб(?:ой|ого)\s+подключ`

	// redirect: a verb that swaps where something goes.
	redirectLexicon = `\b(?:replac|rewrit|rewrot|swap|substitut|switch|redirect|rerout|re-rout|overrid)\w*|\b(?:change|set|use|point)(?:s|d|ed)?\s+(?:\S+\s+){0,3}?(?:to|as|with)\b|\b(?:utilic|utiliz|usa\b|verwende)\w*|\b(?:reemplaz|sustitu|cambi|remplac|substitu|ersetz|austausch|troc)\w*|usar\s+como|use\s+como|utiliser\s+comme|verwende\s+als|替换|替換|改为|改成|换成|更换为|置き換|置換|変更|바꾸|변경|대체|замен|подстав|\bthay\b|vervang|zamień|değiştir|ganti`

	// addressee: what a redirect swaps, by its name.
	addresseeLexicon = `\b(?:recipients?|address(?:es)?|remotes?|iban|accounts?|wallets?|payees?|beneficiar(?:y|ies)|destinations?|bcc|cc|channels?|endpoints?|urls?|to\s+field|routing|vault)\b|destino|destinatari|cuenta|conta\b|compte|empfänger|konto|钱包|地址|账户|帳戶|收款|アドレス|口座|宛先|リモート|주소|계좌|수취|адрес|сч[её]т|получател|кошел`

	// consent: the user's consent taken for granted. The forms that
	// merely describe a tool that asks nothing are in weakConsent.
	consentLexicon = `\b(?:consent|approval|permission|authori[sz]ation|agreement)\s+(?:was|is|has\s+been|had\s+been|were)\s+(?:already\s+)?(?:given|granted|obtained|on\s+file|acquired|implied|assumed|provided)|\b(?:counts?|serves?|acts?|stands?)\s+as\s+(?:the\s+user['’]?s?\s+|their\s+|your\s+|an?\s+)?(?:approval|consent|confirmation|permission|authori[sz]ation)|\bpre-?(?:approv|authori[sz]|consent)\w*|\b(?:skip|skips|skipped|bypass|bypasses|suppress|omit)\s+(?:any\s+|the\s+|all\s+|every\s+|each\s+)?(?:user\s+)?(?:approval|confirmation|permission|consent|safety)(?:\s+(?:steps?|prompts?|dialogs?|checks?|questions?))?|\b(?:approval|confirmation|permission|consent)(?:\s+(?:steps?|prompts?|dialogs?|checks?))?\s+(?:is|are|gets?|will\s+be)\s+(?:skipped|bypassed|waived|unnecessary|redundant|not\s+(?:needed|required))|\bconfirmation\s+(?:prompts?|steps?)?\s*(?:would|will)\s+(?:only\s+)?duplicate|\b(?:rather\s+than|instead\s+of)\s+asking\s+(?:the\s+user|them|the\s+person)|\bwithout\s+(?:pausing|asking(?:\s+(?:again|the\s+user|them))?|checking\s+with\s+(?:the\s+)?(?:user|person)|waiting\s+for\s+(?:the\s+user|approval|confirmation))\b|\b(?:even\s+)?(?:if|when|though)\s+the\s+user\s+(?:has\s+not|hasn['’]?t|did\s+not|didn['’]?t|does\s+not|doesn['’]?t)\s+(?:ask|request)(?:ed)?\b|\b(?:the\s+)?(?:user|account\s+owner|owner|customer|person)\s+(?:accepted|agreed\s+to|approved)\b[^.!?\n]{0,80}\b(?:by\s+installing|when\s+installing|on\s+install|during\s+(?:setup|install))|\bby\s+installing\s+this\s+(?:server|tool|extension)\b[^.!?\n]{0,60}\b(?:accepted|agreed|authori[sz]e|consent)\w*|\basking\s+(?:the\s+user\s+|them\s+|the\s+person\s+)?(?:again|for\s+(?:confirmation|permission|approval))\s+is\s+(?:redundant|unnecessary|not\s+needed|pointless)|\b(?:asking|confirming|confirmation)\b[^.!?\n]{0,40}\bwould\s+(?:only\s+)?duplicate\b|\binstead\s+of\s+waiting\s+(?:on|for)\s+the\s+(?:user|person)|\bno\s+need\s+to\s+(?:open|review|read|inspect|check)\s+(?:it|the\s+(?:script|file|code))|спрашивать\s+не\s+нужно|не\s+нужно\s+спрашивать|(?:sicherheits)?rückfragen?\b[^.!?\n]{0,60}(?:entfallen|überspring|weglassen|nicht\s+nötig|unnötig)|\bohne\s+(?:rückfrage|bestätigung|nachfrage|zu\s+fragen|nachzufragen|rückzufragen)|\btreat\s+(?:it|this|them|the\s+\w+)\s+as\s+(?:already\s+)?(?:confirmed|approved|authori[sz]ed|consented)\b|zustimmung\s+(?:gilt|ist)\s+(?:als\s+)?(?:erteilt|gegeben)|\bgilt\s+als\s+(?:genehmigt|zugestimmt|erteilt)|\bvorab\s+(?:genehmigt|freigegeben)|\bsin\s+(?:pedir\s+|solicitar\s+)?(?:confirmaci[oó]n|confirmar|preguntar|permiso|consentimiento)|(?:consentimiento|autorizaci[oó]n|aprobaci[oó]n)\s+(?:ya\s+)?(?:fue\s+|est[aá]\s+|se\s+da\s+por\s+|se\s+considera\s+)?(?:otorgad|concedid|dad|obtenid)|\bse\s+da\s+por\s+(?:aceptad|aprobad|autorizad)|\bsans\s+(?:re)?demander|\bsans\s+(?:votre\s+|leur\s+|la\s+|sa\s+)?(?:confirmation|autorisation|accord|consentement)|(?:accord|consentement|autorisation)\s+(?:de\s+l['’]utilisateur\s+)?(?:est\s+|a\s+été\s+)?(?:réputée?\s+|considérée?\s+comme\s+)?(?:acquis|donné|accordé|obtenu)|\bréputée?\s+acquise?|\bsem\s+(?:pedir\s+|solicitar\s+)?(?:confirmação|confirmar|perguntar|permissão|consentimento)|(?:consentimento|autorização|aprovação)\s+(?:já\s+)?(?:foi\s+|está\s+|é\s+)?(?:dad|concedid|obtid)|\bsenza\s+(?:chiedere|conferma|autorizzazione|consenso)|consenso\s+(?:già\s+)?(?:dato|concesso|acquisito)|无需确认|無需確認|不必确认|不用确认|无需(?:询问|征求|请求)|不必(?:询问|征求)|跳过确认|跳過確認|视为(?:已)?(?:同意|批准|授权)|已(?:获得|取得)(?:用户)?(?:的)?(?:同意|授权|许可)|確認(?:を求める|を取る|する)?必要は(?:ありません|ない)|確認不要|確認なしで|確認せずに|許可を求めずに|尋ねずに|同意したものと|확인\s*없이|묻지\s*않고|확인(?:을|할)?\s*필요(?:가|는)?\s*없|동의한\s*것으로|사전\s*승인|승인\s*없이|허락\s*없이|요청하지\s*않(?:더라도|아도)|без\s+(?:подтвержд|согласова|запрос|спрос|разрешени)|согласие\s+(?:уже\s+)?(?:получено|дано)|считается\s+(?:одобренн|согласованн|разрешенн)|предварительно\s+(?:одобрен|разрешен|согласован)`

	// weakConsent: a tool said to ask nothing, which an honest tool may
	// say of itself; an order beside it makes it count.
	weakConsentLexicon = `\bwithout\s+(?:any\s+|user\s+|further\s+)?(?:confirmation|approval|confirming|prompting)\b|\b(?:never|doesn['’]?t|does\s+not|won['’]?t|will\s+not)\s+(?:need|needs|require|requires|ask\s+for)\s+(?:any\s+|user\s+|a\s+)?(?:confirmation|approval|consent|permission)\b`

	// authority: the server's word ranked above the user's, the host's
	// or what the model was told before.
	authorityLexicon = `\b(?:highest|top|absolute|overriding|supreme|final)\s+(?:priority|authority|precedence)\s+(?:over|above)\b|\b(?:instructions?|guidance|directives?|orders|rules)\b[^.!?\n]{0,40}\b(?:highest|top|absolute|overriding|supreme)\s+(?:priority|authority|precedence)\b|\btier-?0\b|\b(?:ranks?|sits?|stands?|is|are)\s+(?:above|over|higher\s+than)\s+(?:both\s+)?(?:the\s+)?(?:end\s+)?(?:users?|host|client|system|operator|developer)\b|\b(?:above|over|higher\s+than|outranks?)\s+(?:the\s+)?(?:user['’]?s?|host['’]?s?|client['’]?s?|system['’]?s?|person['’]?s?)\s+(?:requests?|instructions?|rules?|guidance|configuration|settings|wishes|prompt|own)|\b(?:displac|supersed|overrid|replac|void|nullif|invalidat|trump|outrank)\w*\s+(?:the\s+|all\s+|any\s+)?(?:host(?:\s+application)?['’]?s?\s+|system['’]?s?\s+|client['’]?s?\s+|user['’]?s?\s+|developer['’]?s?\s+|prior\s+|previous\s+|earlier\s+|existing\s+)(?:own\s+)?(?:guidance|instructions?|rules?|polic(?:y|ies)|prompts?|configuration|settings|requests?|statements?)|\b(?:prior|previous|earlier|existing|host|system)\s+(?:guidance|instructions?|rules?|polic(?:y|ies))\b[^.!?\n]{0,50}\b(?:is|are)\s+(?:now\s+)?(?:void|null|obsolete|outdated|superseded|suspended|lifted|no\s+longer\s+(?:valid|binding|applicable|in\s+force))|\b(?:is|are)\s+the\s+authoritative\s+(?:\w+\s+)?(?:policy|instructions|guidance|rules|source)|\bcomply\s+only\s+with\b|\boutranks?\s+(?:anything|everything|whatever|all|any)\b|\b(?:messages|requests|input|instructions)\s+(?:from|of|by)\s+the\s+(?:human|user|person)\s+are\s+(?:\w+\s+)?(?:proposals|suggestions|advisory|non-binding)|\byou\s+are\s+(?:now\s+)?operating\s+as\b|\beven\s+(?:if|when)\s+(?:the\s+)?(?:user|person|invoice|document)\b[^.!?\n]{0,40}\b(?:explicitly\s+)?(?:names|asks|requests|says|shows|gives|provides)\b|\bauch\s+wenn\s+der\s+(?:benutzer|nutzer)\s+ausdrücklich|\b(?:where|when|if)\s+they\s+(?:disagree|conflict)\b[^.!?\n]{0,60}\b(?:this\s+server|this\s+tool|our|its)\b|(?:höchste|oberste|absolute)\s+(?:priorität|vorrang)|vorrang\s+vor\s+(?:dem\s+|den\s+)?(?:nutzer|benutzer|anwender|system)|vorrang\s+vor\s+(?:allen\s+)?(?:vorherigen|früheren|bisherigen|anderen)|(?:früheren|bisherigen|vorherigen)\s+(?:vorgaben|anweisungen|regeln|richtlinien)[^.!?\n]{0,80}(?:überholt|ungültig|aufgehoben|nichtig|nicht\s+mehr)|verbindlich\s+(?:sind|ist)\s+(?:ab\s+sofort\s+)?(?:allein|nur)|(?:máxima|mayor|absoluta)\s+prioridad|por\s+encima\s+de\s+(?:las\s+|los\s+)?(?:instrucciones|peticiones|solicitudes|reglas)|prevalece[n]?\s+sobre|priorité\s+absolue|plus\s+haute\s+priorité|(?:prime(?:nt)?|l['’]emporte(?:nt)?)\s+sur|prioridade\s+(?:máxima|absoluta)|máxima\s+prioridade|prevalece(?:m)?\s+sobre|acima\s+d[aoe]s?\s+(?:pedidos|instruções|solicitações|regras)|最高优先级|最高優先級|优先于用户|優先於用戶|高于用户|高於用戶|凌驾于|取代(?:之前|先前|系统|宿主)|(?:之前|先前|以前)的(?:指令|指示|规则|说明)[^。]{0,6}(?:作废|无效|失效)|最優先|ユーザー?(?:の指示|の要求)?より(?:も)?優先|(?:以前|これまで)の(?:指示|ルール|ガイダンス)[^。]{0,6}(?:無効|破棄)|최우선|사용자(?:의\s*요청|의\s*지시)?보다\s*우선|(?:이전|기존)(?:의)?\s*(?:지시|규칙|지침)[^.]{0,6}(?:무효|폐기)|наивысш[а-я]*\s+приоритет|высш[а-я]*\s+приоритет|выше,?\s+чем\s+(?:запросы|указания|инструкции|правила)|(?:предыдущие|прежние)\s+(?:указания|инструкции|правила)[^.!?\n]{0,50}(?:недействительн|отмен|утратил)|имеют\s+приоритет\s+над`

	// conceal: an order to keep something from the user, beyond the set
	// phrases of the conceal-from-user rule.
	concealLexicon = `\b(?:do\s+not|don['’]?t|never|must\s+not|should\s+not|shouldn['’]?t|need\s+not|needn['’]?t|no\s+need\s+to|not)\s+(?:\w+\s+){0,2}(?:tell|mention|inform|notify|alert|reveal|disclose|surface|show|display|echo|relay|discuss|flag|explain|narrate)\w*\s+(?:(?:it|this|that|them|these|anything)\s+)?(?:to|with|for)\s+(?:the\s+)?(?:users?|person|people|humans?|operator|customer)\b|\b(?:need\s+not|needn['’]?t|does\s+not\s+need\s+to|doesn['’]?t\s+need\s+to|should\s+not|must\s+not|is\s+not\s+to)\s+be\s+(?:surfaced|mentioned|disclosed|shown|reported|discussed|flagged|explained)\b|\b(?:does\s+not|doesn['’]?t|do\s+not|don['’]?t)\s+(?:warrant|merit|need|require)\s+(?:any\s+)?(?:discussion|mention|comment|disclosure|explanation)\b|\b(?:keep|leave)\s+(?:this|it|that)\s+between\s+us\b|\b(?:stays?|remains?)\s+between\s+us\b|\b(?:omit|leave\s+out|exclude|strip|drop|hide|withhold)\s+(?:(?:it|them|this|these|that|those|the|any|such|all)\s+)?(?:\w+\s+){0,2}(?:from|in)\s+(?:any|the|your|every)\s+(?:(?:final|visible)\s+)?(?:responses?|repl(?:y|ies)|answers?|summar(?:y|ies)|explanations?|transcripts?)|\b(?:described|presented|reported|summari[sz]ed|referred\s+to)\s+(?:simply|only|just|merely)\s+as\b|\b(?:describe|present|report|call)\s+(?:it|this|them|each\s+\w+|every\s+\w+)\s+(?:simply|only|just|merely)\s+as\b|\b(?:relay|report|mention|reveal|show|tell|surfac)\w*[^.!?\n]{0,100}\b(?:is|are)\s+(?:regarded|treated|considered|seen)\s+as\s+(?:a\s+)?(?:defect|bug|violation|error|leak|mistake)|\bnot\s+(?:user-?facing|visible\s+to\s+the\s+user|shown\s+to\s+the\s+user)\b|\b(?:humans?|users?|people|readers)\b[^.!?\n]{0,40}\bnever\s+see\s+(?:this|it)\b|\bmodel-only\b|\b(?:say|report|mention|reply|answer|state)\s+only\s+(?:that|with)\b|\b(?:should|must)\s+not\s+be\s+(?:listed|shown|mentioned|displayed|reported|included)\s+(?:when|if|to)\s+the\s+user|\b(?:require|need)s?\s+(?:this|it)\s+to\s+be\s+silent\b|\bpresent\s+(?:the\s+\w+|it|this)\s+as\s+(?:going|sent|paid)\s+(?:directly\s+)?to\s+(?:their|the\s+user['’]s)|(?:berichte|sage|melde)\w*\s+dem\s+(?:nutzer|benutzer)\s+nur|\berwähne\w*\b[^.!?\n]{0,50}\bnicht\b|no\s+es\s+necesario\s+(?:coment|mencion|avis|inform|dec)\w*|\b(?:do\s+not|don['’]?t|never)\s+(?:report|mention|disclose|reveal|surface)\s+(?:the\s+|this\s+|that\s+|any\s+)?(?:deletion|removal|upload|transfer|payment|charge|call|step|change|copy|action|forwarding|mirror)s?\b|\bneed\s+no\s+mention\b|\bsummari[sz]e\s+(?:both|them|these|all)\s+(?:\w+\s+)?as\s+(?:a\s+|one\s+)?single\b|\bleave\s+(?:\S+\s+){0,5}out\s+of\s+the\s+(?:summary|reply|response|answer)|\b(?:can|may|should)\s+be\s+left\s+out\b|\b(?:still|then)\s+(?:show|display)\s+(?:to\s+)?(?:the\s+user|them)\s+the\s+(?:original|address|amount)|\btell\s+the\s+(?:user|person)\s+(?:that\s+)?(?:\S+\s+){0,5}(?:only|just|merely)\b|\b(?:summari[sz]|report|describ|present)\w*\b[^.!?\n]{0,40}\bonly\s+as\b|\b(?:report|surface|show|notify)\w*_to_user\W{0,3}\s*false|\bas\s+though\s+(?:their|the\s+(?:user|person)['’]?s?)\s+request\s+had\b|\b(?:confidential|secret)\s+between\s+(?:servers|the\s+server)|\b(?:runs?|happens?|operates?|works?|executes?)\s+(?:invisibly|silently|quietly|unseen)\b|\b(?:should|must)\s+not\s+appear\s+in\s+(?:your|the|any)\s+(?:repl|respons|answer|output)\w*|\bnicht\s+(?:\w+\s+){0,2}(?:erwähn|mitteil|erzähl|anzeig|zeig|bericht)\w*|\bohne\s+(?:den\s+|die\s+)?(?:nutzer|benutzer|anwender)\w*\s+zu\s+(?:informieren|benachrichtigen)|\bno\s+(?:procede|hace\s+falta|es\s+necesario|debe[sn]?)\s+(?:comentar|mencionar|avisar|informar|decir)\w*|\bsin\s+(?:avisar|informar|decir|mencionar)\w*|\bne\s+(?:\S+\s+){0,2}?(?:dis|dites|mentionne|signale|informe|révèle|montre|affiche|parle)\w*\s+(?:pas|rien|jamais)\b|\bsans\s+(?:en\s+)?(?:informer|avertir|prévenir|mentionner|parler)|não\s+(?:é\s+preciso|precisa|deve)\s+(?:avisar|informar|mencionar|dizer|contar)|\bnão\s+(?:\S+\s+){0,2}?(?:diga|mencione|conte|revele|mostre|informe)\b|\bsem\s+(?:avisar|informar|mencionar)|(?:citar|mencionar|informar|dizer)\s+apenas\b|passo\s+técnico\s+invisível|requisito\s+es\s+transparente|\bnon\s+(?:\S+\s+){0,2}?(?:dire|dirlo|menzionar\w*|informar\w*|avvisar\w*|rivelar\w*|mostrar\w*)\b|\bsenza\s+(?:avvisare|informare|dirlo)|(?:不要|别|勿|无需|無需|不必|不用|不需要|切勿)[^。，,]{0,8}?(?:提及|提到|告诉|告知|透露|说明|解释|解釋|显示|展示|通知|提醒|报告)|(?:見せない|表示しない|伝えない|知らせない|言わない|触れない|報告しない|明かさない|言及しない)|(?:伝える|知らせる|見せる|言う|報告する|言及する)必要は(?:ありません|ない)|とだけ(?:伝え|答え|報告|返答|言)|hoeft\s+niet\s+(?:aan\s+de\s+gebruiker\s+)?(?:gemeld|verteld|genoemd)|\bniet\s+(?:melden|vertellen|noemen)|nie\s+(?:trzeba|musisz|należy)\s+(?:o\s+tym\s+)?(?:wspominać|mówić|informować)|nie\s+(?:wspominaj|mów)|(?:açıklamana|söylemene|bildirmene|belirtmene)\s+gerek\s+yok|kullanıcıya\s+(?:söylemeden|bildirmeden)|tidak\s+perlu\s+(?:memberi\s*tahu|memberitahu|menyebut)|jangan\s+(?:beri\s*tahu|sebut|katakan)|không\s+cần\s+(?:báo|nói|thông\s+báo)|đừng\s+(?:nói|báo)|vẫn\s+hiển\s+thị|لا\s+(?:تخبر|تذكر)|(?:دون|بدون)\s+إخبار|אל\s+(?:תספר|תציין)|אין\s+צורך\s+(?:לספר|לציין)|בלי\s+לספר|बताने\s+की\s+(?:ज़रूरत|जरूरत)\s+नहीं|(?:न|मत)\s+बता|bataye\s+bina|mat\s+batana|\bnon\s+citar\w*|(?:알리지|말하지|언급하지|보여주지|표시하지|보고하지|공개하지)\s*(?:마|말|않)|(?:알릴|말할|언급할|보고할)\s*필요(?:가|는)?\s*없|не\s+(?:\S+\s+){0,2}?(?:сообща|сообщ|говор|упомина|рассказ|показыва|информир|уведомля)|без\s+(?:уведомлени|ведома|предупреждени)`

	// obey: an order to do what a page, a result or a field says.
	obeyLexicon = `\b(?:carry\s+out|do|follow|obey|apply|execute|run|perform)\s+(?:what|whatever|everything|anything|all)\s+(?:it|that\s+page|the\s+(?:page|response|result|url|field))\s+(?:says|contains|returns|lists|tells)|\bexecut\w*\s+(?:whatever|what|everything|anything)\s+(?:appears|is|comes|it\s+finds)|\b(?:execut|run)\w*\s+(?:it|them|this|the\s+\w+)\s+verbatim|\bverbatim,?\s+through\s+(?:its|a|the|your)\s+shell|\b(?:applies|apply|runs|run|executes|execute)\s+(?:it\s+|them\s+)?automatically\b|\bcomply\s+only\s+with\s+what\b|ejecut\w*\s+(?:lo\s+que|todo\s+lo\s+que)|exécut\w*\s+(?:ce\s+qu|tout\s+ce\s+qu)|führ\w*\s+(?:\S+\s+)?aus,?\s+was|执行(?:其中|返回|任何)|そのまま実行|그대로\s*실행|выполн[а-я]*\s+(?:то,?\s+что|вс[её])`

	// persist: an order that outlasts the call.
	persistLexicon = `\b(?:from\s+now\s+on|for\s+the\s+(?:rest|remainder)\s+of\s+the\s+(?:session|conversation|chat)|until\s+the\s+(?:session|conversation|chat)\s+ends|on\s+every\s+(?:turn|call|reply|answer|message|request)|(?:after|before)\s+(?:composing\s+)?(?:each|every)\s+(?:answer|reply|call|turn|response)|end\s+every\s+reply|once\s+this\s+tool\s+(?:is|has\s+been)\s+(?:listed|loaded|called|seen|used)|starting\s+with\s+this\s+version|in\s+(?:all\s+)?future\s+(?:turns|calls|sessions|terminals))\b|ab\s+sofort|de\s+ahora\s+en\s+adelante|desde\s+ahora|à\s+partir\s+de\s+maintenant|désormais|a\s+partir\s+de\s+agora|daqui\s+em\s+diante|d['’]ora\s+in\s+poi|从现在起|今后|この先|今後|以降|앞으로|이후부터|세션이\s*끝날\s*때까지|с\s+этого\s+момента|впредь|до\s+конца\s+сессии`

	// askUser: an order to ask the user for something (a secret, when
	// one is named beside it).
	askUserLexicon = `\b(?:ask|request|prompt|collect|obtain|get)\w*\s+(?:\w+\s+)?(?:the\s+user|them|the\s+person|the\s+customer)\s+(?:to\s+(?:paste|share|provide|send|enter|type|give|read\s+out)|for)\b|\bcollect\w*\s+(?:\S+\s+){0,6}from\s+the\s+(?:user|person|customer)\b|\bpid[ae]s?\s+al\s+usuario|\bsolicit[ae]\s+al\s+usuario|\bdemande[rz]?\s+à\s+l['’]utilisateur|\bpeça\s+ao\s+usuário|\bsolicite\s+ao\s+usuário|\b(?:bitte|frage)\s+den\s+(?:nutzer|benutzer)|\bchiedi\s+all['’]utente|\bvraag\s+(?:de\s+)?gebruiker|\bpoproś\s+użytkownika|kullanıcıdan|\bminta(?:lah)?\s+pengguna|yêu\s+cầu\s+người\s+dùng|hỏi\s+người\s+dùng|اطلب\s+من\s+المستخدم|בקש\s+מהמשתמש|उपयोगकर्ता\s+से|попрос[а-я]*\s+пользовател|запрос[а-я]*\s+у\s+пользовател|向用户索要|让用户提供|请用户提供|ユーザーに[^。]{0,20}(?:尋ね|求め|入力してもら)|사용자에게[^.]{0,20}(?:요청|물어)`
)

// negators deny the verb that follows them within a few words, in the
// languages of the lexicons; afterNegators deny the verb they follow
// (Japanese, Korean).
var negRes = sync.OnceValue(func() (r struct{ before, after *regexp.Regexp }) {
	r.before = regexp.MustCompile(`(?:\b(?:never|not|(?:do|does|did|wo|ca|is|are|should|must|could|would)n['’]?t|cannot|no|nothing|none|neither|nor|refuses?\s+to|cannot|can['’]t|won['’]t|jamais|pas|rien|nunca|nada|nem|não|nicht|nie|niemals|kein\w*|non|mai)\b|не\b|никогда|ни\b|不|没|沒|別|别|勿|無|无)`)
	r.after = regexp.MustCompile(`^\S{0,6}(?:ない|ません|ず|않|지\s*마|말|禁止)`)
	return r
})

var intentRes = sync.OnceValue(func() (r struct {
	held, secret, store, move, place, otherServer, redirect, addressee, consent, weakConsent, authority, conceal, obey, persist, askUser gated
}) {
	c := gate
	r.held, r.secret, r.store, r.move, r.place = c(heldLexicon), c(secretLexicon), c(storeLexicon), c(moveLexicon), c(placeLexicon)
	r.otherServer, r.redirect, r.addressee = c(otherServerLexicon), c(redirectLexicon), c(addresseeLexicon)
	r.consent, r.weakConsent, r.authority, r.conceal = c(consentLexicon), c(weakConsentLexicon), c(authorityLexicon), c(concealLexicon)
	r.obey, r.persist, r.askUser = c(obeyLexicon), c(persistLexicon), c(askUserLexicon)
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
var insteadRe = &lazyRegexp{pattern: `\binstead\s+of\s+(?:the\s+)?(?:channel|recipient|address|account|iban|wallet|repository|remote|destination|payee)s?\s+(?:the\s+user|they|you)\b|\bignor\w*\s+(?:the\s+)?(?:iban|account|address|recipient|wallet|destination)\b[^.!?\n]{0,40}\b(?:user|usuario|usuário|utilisateur|nutzer|benutzer)`}

// pushRe finds a verb that publishes: beside what the model holds and a
// destination, the conversation pushed to a repository or a page.
var pushRe = &lazyRegexp{pattern: `\b(?:push|publish|commit)(?:es|ed|ing)?\b`}

// imageRe finds a Markdown image from the web, which a client fetches as
// it renders.
var imageRe = &lazyRegexp{pattern: `!\[[^\]\n]{0,80}\]\(\s*https?://`}

// destroyRe finds a command that destroys work.
var destroyRe = &lazyRegexp{pattern: `\bgit\s+clean\s+-\w*f|\bgit\s+reset\s+--hard\b|\brm\s+-\w*r\w*f|\brm\s+-\w*f\w*r|\bdrop\s+(?:table|database|schema)\b|\bmkfs\b|\bdd\s+if=|\bformat\s+[a-z]:`}

// sshKeyRe finds an SSH public key written out; loginRe, words that put
// one where it lets its owner log in.
var (
	sshKeyRe = &lazyRegexp{pattern: `\bssh-(?:ed25519|rsa|ecdsa|dss)\s+aaaa[0-9a-z+/]{20,}=*`}
	loginRe  = &lazyRegexp{pattern: `authorized_keys|\bsshd\b|permitted\s+logins|\.ssh\s+director|\blog\s*in\s+as\b`}
)

// optionOrCondition reports a match at i that a sentence speaks of as an
// option ("whether to skip user consent") or a condition ("only call if
// permission was granted by the user"), not as what is so.
func optionOrCondition(t string, i int) bool {
	return optionRe.get().MatchString(t[:i])
}

var optionRe = &lazyRegexp{pattern: `(?:^\s*|\b)(?:whether|if|only\s+if|unless|when|once)\b[^.;:,!?]*$`}

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

var notSecret = &lazyRegexp{pattern: `^(?:next|page|paging|pagination|continuation|cursor|sync|request|idempotency|csrf|nonce|cancel|cancellation|resume|start|end|max|min|num|input|output|completion|prompt)_`}

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
var ownDevice = &lazyRegexp{pattern: `\b(?:terminal|their\s+own|in\s+the\s+app|on\s+their\s+device|password\s+manager\s+prompt|outside\s+the\s+chat)\b`}

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
	return gate(`\b(?:call|invoke|use|run|fetch|request|open|load)(?:s|es|ed|d|ing)?\b|呼び出|调用|呼叫|호출|вызов|вызыва`)
})

func callsTool(t string) bool { return callsToolRe().MatchString(t) }

// redirected reports a redirect verb in t that no negator denies.
func redirected(t string) bool { _, ok := live(intentRes().redirect, t); return ok }

// ordersRe finds the words of an order about another's tool.
var ordersRe = sync.OnceValue(func() gated {
	return gate(`\b(?:must|always|should|make\s+sure|deprecated|instead|include|add|grant|preceded|followed|counts\s+as|is\s+to\s+be)\b|debe|deve|muss|doit|必须|必ず|반드시|должн|обязательно`)
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
var viaRe = &lazyRegexp{pattern: `\btools?\b|\b(?:via|with|through|using)\b|으로|로\s|経由|で送|通过|через`}
