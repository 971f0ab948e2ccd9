// Package redact keeps secrets out of what mcpv writes: it knows which names
// mark a secret (headers, environment variables, URL parameters, flags), masks
// them in URLs and argument lists, and scrubs known secret values from a stream.
package redact

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Mask is what a secret is replaced with.
const Mask = "***"

// secretWords are the parts of a name that mark its value as a secret.
var secretWords = []string{"token", "secret", "key", "password", "passwd", "credential", "auth", "cookie", "session"}

// Name reports whether a header, variable, parameter or flag called name
// holds a secret: Authorization, Cookie, and anything naming a token, secret,
// key or password (GITHUB_TOKEN, X-Api-Key, --client-secret).
func Name(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// jsonSecretMember matches a JSON member with a string value whose name says
// it holds a secret. The list is narrower than Name's: inside a message,
// "key" and "session" are ordinary words of tool arguments. The closing
// quote may be missing, so that a message clipped inside a secret still
// loses it.
var jsonSecretMember = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`("[^"\\]*(?i:token|secret|password|passwd|api[_-]?key|authorization|credential|cookie)[^"\\]*"\s*:\s*)"(?:[^"\\]|\\.)*(?:"|\\?\z)`)
})

// JSON masks the string values of secret-named members in JSON text (whole
// or clipped), as a trace of the messages shows them.
func JSON(msg []byte) []byte {
	return jsonSecretMember().ReplaceAllFunc(msg, func(m []byte) []byte {
		if bytes.HasPrefix(m, []byte(`"progressToken"`)) {
			return m // MCP's progress token names a request, it opens nothing
		}
		return append(jsonSecretMember().FindSubmatch(m)[1], `"***"`...)
	})
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
			if Name(k) {
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
		if err1 == nil && err2 == nil && Name(name) {
			out = append(out, v, value)
		}
	}
	return out
}

// encodeQuery is url.Values.Encode without escaping the mask.
func encodeQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
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
// word of its own (name "") or the value of a "--name=value" word.
func eachSecretArg(args []string, fn func(i int, name, value string)) {
	for i, a := range args {
		if i > 0 && isSecretFlag(args[i-1]) && !strings.Contains(args[i-1], "=") && !strings.HasPrefix(a, "-") {
			fn(i, "", a)
			continue
		}
		if name, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") && Name(name) {
			fn(i, name, value)
		}
	}
}

func isSecretFlag(a string) bool {
	return strings.HasPrefix(a, "-") && Name(strings.TrimLeft(a, "-"))
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

func isScheme(s string) bool {
	switch strings.ToLower(s) {
	case "bearer", "basic", "token", "digest", "dpop":
		return true
	}
	return false
}

// MinLength is the shortest value a Writer scrubs: shorter ones would mask
// ordinary words and numbers all over the output.
const MinLength = 4

// Writer returns w with every occurrence of the given secret values replaced
// by Mask (see Scrubber), or w itself when none of them is long enough to
// mask.
func Writer(w io.Writer, secrets []string) io.Writer {
	s := NewScrubber(w)
	s.Add(secrets...)
	if len(s.secrets) == 0 {
		return w
	}
	return s
}

// Scrubber writes to an io.Writer with every occurrence of the secrets it
// knows replaced by Mask. Secrets may be added at any time: a token learned
// halfway through a run is masked from then on. It is safe for concurrent
// use. A secret split across two writes is still caught: the end of a write
// that could be the start of a secret is held back until the next write, or
// Flush.
type Scrubber struct {
	w io.Writer

	mu      sync.Mutex // guards the fields below and serialises writes
	secrets [][]byte   // longest first, so a secret that contains another is masked whole
	held    []byte     // the end of the last write, which may begin a secret
}

// NewScrubber returns a Scrubber that writes to w and knows no secret yet.
func NewScrubber(w io.Writer) *Scrubber { return &Scrubber{w: w} }

// Add makes the scrubber mask these values too; ones shorter than
// MinLength, which would mask ordinary words, are left alone.
func (s *Scrubber) Add(secrets ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sec := range secrets {
		if len(sec) < MinLength || containsBytes(s.secrets, sec) {
			continue
		}
		s.secrets = append(s.secrets, []byte(sec))
	}
	sort.Slice(s.secrets, func(i, j int) bool { return len(s.secrets[i]) > len(s.secrets[j]) })
}

// String masks every secret in text that is at least MinLength long,
// longest first, so a secret that contains another is masked whole, as the
// Scrubber does.
func String(text string, secrets []string) string {
	sorted := slices.Clone(secrets)
	slices.SortFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	for _, sec := range sorted {
		if len(sec) >= MinLength {
			text = strings.ReplaceAll(text, sec, Mask)
		}
	}
	return text
}

func containsBytes(list [][]byte, s string) bool {
	for _, b := range list {
		if string(b) == s {
			return true
		}
	}
	return false
}

func (s *Scrubber) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data := p
	if len(s.held) > 0 {
		data = append(s.held, p...)
		s.held = nil
	}
	for _, sec := range s.secrets {
		if bytes.Contains(data, sec) {
			data = bytes.ReplaceAll(data, sec, []byte(Mask))
		}
	}
	if n := s.secretPrefixAtEnd(data); n > 0 {
		s.held = append([]byte(nil), data[len(data)-n:]...)
		data = data[:len(data)-n]
	}
	if len(data) > 0 {
		if _, err := s.w.Write(data); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Mask returns one whole message with every secret the scrubber knows
// replaced by Mask, nothing held back; p is never changed, and comes back
// as it is when it holds no secret.
func (s *Scrubber) Mask(p []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sec := range s.secrets {
		if bytes.Contains(p, sec) {
			p = bytes.ReplaceAll(p, sec, []byte(Mask))
		}
	}
	return p
}

// secretPrefixAtEnd is the length of the longest end of data that is the
// beginning of a secret (and not a whole one).
func (s *Scrubber) secretPrefixAtEnd(data []byte) int {
	best := 0
	for _, sec := range s.secrets {
		for n := min(len(sec)-1, len(data)); n > best; n-- {
			if bytes.Equal(data[len(data)-n:], sec[:n]) {
				best = n
				break
			}
		}
	}
	return best
}

// Flush writes what was held back.
func (s *Scrubber) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.held) == 0 {
		return nil
	}
	_, err := s.w.Write(s.held)
	s.held = nil
	return err
}
