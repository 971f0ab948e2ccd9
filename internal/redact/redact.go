// Package redact keeps secrets out of what mcpv writes: it knows which names
// mark a secret (headers, environment variables, URL parameters, flags), masks
// them in URLs and argument lists, and scrubs known secret values from a stream.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// Mask is what a secret is replaced with.
const Mask = "***"

// secretWords are the parts of a name that mark its value as a secret.
// A webhook's URL (SLACK_WEBHOOK_URL) is one: whoever holds it posts.
var secretWords = []string{"token", "secret", "key", "password", "passwd", "credential", "auth", "cookie", "session", "webhook"}

// secretParts are the words of a name (between _, -, . and the ends)
// that mark its value as a secret, which inside a longer word do not: a
// password's short forms (DB_PASS, MYSQL_PWD, --pass), never "compass"
// or PWD, the working directory; a personal access token (GH_PAT, PAT),
// never PATH.
var secretParts = []string{"pass", "pwd", "passphrase", "pw", "pat"}

// Name reports whether a header, variable, parameter or flag called name
// holds a secret: Authorization, Cookie, and anything naming a token, secret,
// key, password or webhook (GITHUB_TOKEN, X-Api-Key, --client-secret,
// DB_PASS, MYSQL_PWD, GH_PAT, SLACK_WEBHOOK_URL).
func Name(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	if n == "pwd" {
		return false // the working directory
	}
	return slices.ContainsFunc(nameWords(n), func(w string) bool { return slices.Contains(secretParts, w) })
}

// nameWords are the words of a name, in lower case, between _, -, ., a
// capital after a small letter or a digit (dbPass) and the ends; at
// least one.
func nameWords(name string) []string {
	var b strings.Builder
	for i := range len(name) {
		if c := name[i]; i > 0 && 'A' <= c && c <= 'Z' && ('a' <= name[i-1] && name[i-1] <= 'z' || '0' <= name[i-1] && name[i-1] <= '9') {
			b.WriteByte('_')
		}
		b.WriteByte(name[i])
	}
	words := strings.FieldsFunc(strings.ToLower(b.String()), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(words) == 0 {
		return []string{""}
	}
	return words
}

// jsonSecretName says whether a JSON member's name, decoded, marks its
// string value as a secret. The list is narrower than Name's: inside a
// message, "key" and "session" are ordinary words of tool arguments.
var jsonSecretName = &lazy.Regexp{Pattern: `(?i:token|secret|password|passwd|api[_-]?key|authorization|credential|cookie)`}

// JSON masks the string values of secret-named members in JSON text (whole
// or clipped), as a trace of the messages shows them: a name is read as it
// decodes ("pass\u0077ord" is a password's), and a value whose closing
// quote is missing, in a message clipped inside a secret, is masked to the
// end. One pass over the bytes: each unescaped quote followed by a colon
// and a string ends a member's name, which began at the quote before it.
func JSON(msg []byte) []byte {
	out := make([]byte, 0, len(msg))
	done, last := 0, -1 // msg[:done] is in out; the last unescaped quote
	for i := 0; i < len(msg); i++ {
		switch {
		case msg[i] == '\\':
			i++ // what it escapes is no quote
			continue
		case msg[i] != '"':
			continue
		}
		open := last
		last = i
		v := rawjson.SkipSpace(msg, i+1)
		if open < 0 || v >= len(msg) || msg[v] != ':' {
			continue
		}
		if v = rawjson.SkipSpace(msg, v+1); v >= len(msg) || msg[v] != '"' || !secretMember(msg[open:i+1]) {
			continue
		}
		for i = v + 1; i < len(msg) && msg[i] != '"'; i++ {
			if msg[i] == '\\' {
				i++
			}
		}
		out = append(append(out, msg[done:v]...), `"***"`...)
		done, last = min(i+1, len(msg)), i
	}
	return append(out, msg[done:]...)
}

// secretMember says whether a member's quoted name marks its string value
// as a secret: MCP's progressToken names a request, it opens nothing.
func secretMember(quoted []byte) bool {
	name := string(quoted[1 : len(quoted)-1])
	if bytes.IndexByte(quoted, '\\') >= 0 && json.Unmarshal(quoted, &name) != nil {
		return false
	}
	return name != "progressToken" && jsonSecretName.Get().MatchString(name)
}

// URL masks the credentials in a URL: the password of its user info and the
// values of secret-named query parameters. Text that does not parse as a URL
// is masked whole when it looks like it might hold credentials.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if strings.ContainsAny(raw, "@?") {
			return Mask
		}
		return raw
	}
	const placeholder = "MCPV-MASKED-PASSWORD"
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), placeholder)
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		changed := false
		for k, vs := range q {
			if queryName(k) {
				for i := range vs {
					vs[i] = Mask
				}
				changed = true
			}
		}
		if changed {
			u.RawQuery = encodeQuery(q)
		}
	}
	return strings.Replace(u.String(), placeholder, Mask, 1)
}

// URLSecrets are the values URL masks, both as written and decoded, since
// either may turn up in a message. User info also gives the Basic
// credential an HTTP client builds from it, the Base64 of "user:password"
// (padded or not, the password possibly empty), which a server may echo.
// A user name alone (https://TOKEN@host/mcp) is the secret itself; with a
// password, the password is masked and the user name kept.
func URLSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if u.User != nil {
		pw, has := u.User.Password()
		if has {
			_, written, _ := strings.Cut(u.User.String(), ":")
			out = append(out, pw, written)
		} else if name := u.User.Username(); name != "" {
			out = append(out, name, u.User.String())
		}
		if basic := []byte(u.User.Username() + ":" + pw); len(basic) > 1 {
			out = append(out, base64.StdEncoding.EncodeToString(basic), base64.RawStdEncoding.EncodeToString(basic))
		}
	}
	for kv := range strings.SplitSeq(u.RawQuery, "&") {
		k, v, _ := strings.Cut(kv, "=")
		name, err1 := url.QueryUnescape(k)
		value, err2 := url.QueryUnescape(v)
		if err1 == nil && err2 == nil && queryName(name) {
			out = append(out, v, value)
		}
	}
	return out
}

// queryName reports whether a URL's query parameter called name holds a
// secret: a secret-named one, or the signature of a signed URL (AWS's
// X-Amz-Signature, Google's X-Goog-Signature, CloudFront's Signature,
// Azure's sig), which lets whoever holds the URL in until it expires.
func queryName(name string) bool {
	n := strings.ToLower(name)
	return Name(n) || n == "sig" || strings.HasSuffix(n, "signature")
}

// encodeQuery is url.Values.Encode without escaping the mask.
func encodeQuery(q url.Values) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k))
			b.WriteByte('=')
			if v == Mask {
				b.WriteString(v)
			} else {
				b.WriteString(url.QueryEscape(v))
			}
		}
	}
	return b.String()
}

// Args masks the values of secret-named flags in a command line:
// "--api-key=abc" and "--token abc" both lose abc.
func Args(args []string) []string {
	out := append([]string(nil), args...)
	eachSecretArg(args, func(i int, name, _ string) {
		if name == "" {
			out[i] = Mask
		} else {
			out[i] = name + "=" + Mask
		}
	})
	return out
}

// ArgSecrets are the values Args masks.
func ArgSecrets(args []string) []string {
	var out []string
	eachSecretArg(args, func(_ int, _, value string) { out = append(out, value) })
	return out
}

// eachSecretArg calls fn for each secret value in args: at index i, either a
// word of its own (name "") or the value, not read as a setting (EnvSecrets),
// of a "--name=value" word or of a variable's "NAME=value" (env API_KEY=…).
func eachSecretArg(args []string, fn func(i int, name, value string)) {
	for i, a := range args {
		if i > 0 && isSecretFlag(args[i-1]) && !strings.Contains(args[i-1], "=") && !strings.HasPrefix(a, "-") {
			fn(i, "", a)
			continue
		}
		name, value, ok := strings.Cut(a, "=")
		if ok && Name(name) && !settingValue(name, value) && (strings.HasPrefix(name, "-") || strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == "") {
			fn(i, name, value)
		}
	}
}

// isSecretFlag reports whether a is a secret-named flag that takes the
// next word as its value. A word with a space or a colon names no flag:
// it is a short flag joined to its value (-HAuthorization: Bearer ...),
// which takes no next word.
func isSecretFlag(a string) bool {
	return strings.HasPrefix(a, "-") && !strings.ContainsAny(a, " \t:") && Name(strings.TrimLeft(a, "-"))
}

// HeaderValue masks a header's value when its name marks a secret, keeping
// an authorization scheme ("Bearer ***") so a reader can tell what was sent.
func HeaderValue(name, value string) string {
	if !Name(name) {
		return value
	}
	if scheme, _, ok := strings.Cut(value, " "); ok && isScheme(scheme) {
		return scheme + " " + Mask
	}
	return Mask
}

// ConfigValue masks a secret-named value as a config file holds it, unless
// it only names variables ("${GITHUB_TOKEN}", "Bearer ${TOKEN}"): then the
// secret is not in the file, and the names say what it will be.
func ConfigValue(name, value string) string {
	if !Name(name) {
		return value
	}
	rest := value
	if scheme, after, ok := strings.Cut(value, " "); ok && isScheme(scheme) {
		rest = after
	}
	for part := range strings.FieldsSeq(rest) {
		if !strings.HasPrefix(part, "${") || !strings.HasSuffix(part, "}") || strings.Count(part, "${") != 1 {
			return HeaderValue(name, value)
		}
	}
	return value
}

func isScheme(s string) bool {
	return slices.Contains([]string{"bearer", "basic", "token", "digest", "dpop"}, strings.ToLower(s))
}

// MinLength is the shortest value a Scrubber masks: shorter ones would mask
// ordinary words and numbers all over the output.
const MinLength = 4

// Scrubber is a run's masker: it knows the secrets of the run, each in
// every form a server may echo it in (Forms), and every sink of the run
// (stderr, the trace, spans, reports, logs) masks what it knows, with
// Mask or String, or by writing through it. Secrets may be added at any
// time: a token learned halfway through a run is masked from then on. It
// is safe for concurrent use. Written to, it writes to an io.Writer with
// every secret replaced by Mask; a secret split across two writes is
// still caught: the end of a write that could be the start of a secret,
// as it is or behind JSON escapes, is held back until the next write, or
// Flush. A long piece of a secret where the text breaks off beside it (a
// clip's cut, a message's end or start) is masked too (matcher). It
// finds every secret it
// knows in one pass over the text, so that knowing many (each in its
// forms) costs little more than knowing one.
type Scrubber struct {
	*known // shared by the scrubbers Writer makes

	w    io.Writer
	mu   sync.Mutex // guards held, and serialises writes
	held []byte     // the end of the last write, which may begin a secret
	mid  bool       // what was written last ends in a letter or a digit: a piece of a secret cannot start after it
}

// known are the secrets a Scrubber knows.
type known struct {
	mu      sync.Mutex      // guards secrets and seen
	secrets [][]byte        // longest first, so a secret that contains another is masked whole
	seen    map[string]bool // the secrets, to add each once
	// m indexes secrets; each Add stores a new one, so that Mask reads
	// it without the lock (several clients' messages at once).
	m atomic.Pointer[matcher]
}

// NewScrubber returns a Scrubber that writes to w and knows no secret yet.
func NewScrubber(w io.Writer) *Scrubber { return &Scrubber{known: &known{}, w: w} }

// Writer returns a Scrubber that writes to w and knows what s knows, now
// and from now on: one masker for two streams.
func (s *Scrubber) Writer(w io.Writer) *Scrubber { return &Scrubber{known: s.known, w: w} }

// Add makes the scrubber mask these values too, each in every form a
// server may echo it in (Forms); ones shorter than MinLength, which would
// mask ordinary words, are left alone.
func (k *known) Add(secrets ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	added := false
	for _, sec := range Forms(secrets) {
		if k.seen[sec] {
			continue
		}
		lazy.Put(&k.seen, sec, true)
		k.secrets = append(k.secrets, []byte(sec))
		added = true
	}
	if added {
		sort.SliceStable(k.secrets, func(i, j int) bool { return len(k.secrets[i]) > len(k.secrets[j]) })
		m := &matcher{}
		m.build(slices.Clone(k.secrets))
		k.m.Store(m)
	}
}

// matcher is the index of the secrets known now (an empty one before
// the first).
func (k *known) matcher() *matcher {
	if m := k.m.Load(); m != nil {
		return m
	}
	return &noSecrets
}

var noSecrets matcher

// Mask returns one whole message with every secret the scrubber knows
// replaced by Mask, nothing held back; p is never changed, and comes back
// as it is when it holds no secret.
func (k *known) Mask(p []byte) []byte { return k.matcher().mask(p, whole) }

// String is Mask for a text.
func (k *known) String(text string) string {
	if m := k.matcher(); len(m.secrets) > 0 {
		return string(m.mask([]byte(text), whole))
	}
	return text
}

func (s *Scrubber) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data := p
	if len(s.held) > 0 {
		data = append(s.held, p...)
		s.held = nil
	}
	// What may begin a secret waits for the next write, and so does a
	// run of secrets that reaches into it, which the next write may
	// lengthen.
	m := s.matcher()
	e := edges{start: !s.mid}
	hold := min(len(data)-m.pending(data), m.pendingEscaped(data))
	m.cover(data, e, func(start, end int) {
		if start < hold && end > hold {
			hold = start
		}
	})
	if len(m.secrets) > 0 {
		// A run of backslashes is cut where four of them end (\\\\ reads
		// as \\, then \): what is held is read, once and twice, as the
		// stream is.
		n := 0
		for hold-n > 0 && data[hold-n-1] == '\\' {
			n++
		}
		hold -= n % 4
	}
	if hold < len(data) {
		s.held = append([]byte(nil), data[hold:]...)
		e.end = e.breaksAt(data, hold)
		data = data[:hold]
	}
	if err := s.write(m.mask(data, e)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// write writes what is masked, and notes how it ends.
func (s *Scrubber) write(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	s.mid = wordByte(data[len(data)-1])
	_, err := s.w.Write(data)
	return err
}

// Flush writes what was held back.
func (s *Scrubber) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.held) == 0 {
		return nil
	}
	err := s.write(s.matcher().mask(s.held, edges{!s.mid, true}))
	s.held = nil
	return err
}
