package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestName(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "Cookie": true, "GITHUB_PERSONAL_ACCESS_TOKEN": true, "X-Api-Key": true,
		"DB_PASSWORD": true, "client_secret": true, "--api-key": true,
		"PATH": false, "LOG_LEVEL": false, "Content-Type": false, "HOME": false,
	} {
		if got := Name(name); got != want {
			t.Errorf("Name(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/mcp":                        "https://example.com/mcp",
		"https://user:pw@example.com/mcp":                "https://user:***@example.com/mcp",
		"https://user@example.com/mcp":                   "https://user@example.com/mcp",
		"http://h/mcp?api_key=abc&x=1":                   "http://h/mcp?api_key=***&x=1",
		"http://h/mcp?access_token=abc&token=d&mode=all": "http://h/mcp?access_token=***&mode=all&token=***",
		"http://[::1:bad/?token=x":                       "***",
		// A signed URL's signature lets its holder in.
		"https://b.s3.amazonaws.com/k?X-Amz-Expires=60&X-Amz-Signature=f00dfeed": "https://b.s3.amazonaws.com/k?X-Amz-Expires=60&X-Amz-Signature=***",
		"https://a.blob.core.windows.net/c?sv=2022&sig=f00d%2Bfeed":              "https://a.blob.core.windows.net/c?sig=***&sv=2022",
		"https://h/x?X-Goog-Signature=f00d&signed=yes":                           "https://h/x?X-Goog-Signature=***&signed=yes",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestArgs(t *testing.T) {
	got := Args([]string{"srv", "--api-key=abc", "--token", "def", "--verbose", "--secret-file", "-x", "plain", "--auth=none"})
	want := []string{"srv", "--api-key=***", "--token", "***", "--verbose", "--secret-file", "-x", "plain", "--auth=none"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	// A variable given to the server's launcher (env, docker run -e).
	got = Args([]string{"env", "GITHUB_TOKEN=ghp_1", "docker", "run", "-e", "Api_Key=k2", "-e", "PATH=/bin", "x=token=3", "LOG_LEVEL=debug", "AUTH_MODE=oauth", "TOKEN_CHECK=true", "=x"})
	want = []string{"env", "GITHUB_TOKEN=***", "docker", "run", "-e", "Api_Key=***", "-e", "PATH=/bin", "x=token=3", "LOG_LEVEL=debug", "AUTH_MODE=oauth", "TOKEN_CHECK=true", "=x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	// A short flag joined to its value (-HName: value) takes no next
	// word, whatever its value names; a single-dash long flag does.
	got = Args([]string{"-HAuthorization: Bearer abc", "ping", "-HX-Api-Key:abc", "list", "-token", "ghi"})
	want = []string{"-HAuthorization: Bearer abc", "ping", "-HX-Api-Key:abc", "list", "-token", "***"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestHeaderValue(t *testing.T) {
	for _, c := range [][3]string{
		{"Authorization", "Bearer abc", "Bearer ***"},
		{"Authorization", "abc", "***"},
		{"Cookie", "a=b", "***"},
		{"Accept", "text/plain", "text/plain"},
	} {
		if got := HeaderValue(c[0], c[1]); got != c[2] {
			t.Errorf("HeaderValue(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b, []string{"s3cr3t", "s3cr3t-longer", "ab", ""})
	n, err := w.Write([]byte("x s3cr3t-longer y s3cr3t z ab\n"))
	if err != nil || n != 30 {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got := b.String(); got != "x *** y *** z ab\n" {
		t.Errorf("got %q", got)
	}
	if Writer(&b, nil) != &b {
		t.Error("no secrets should mean no wrapper")
	}
}

// A secret learned halfway (a token) is masked from then on.
func TestScrubberAddsSecrets(t *testing.T) {
	var b bytes.Buffer
	s := NewScrubber(&b)
	s.Write([]byte("before: tok-1234567890\n"))
	s.Add("tok-1234567890", "tok-1234567890", "x")
	s.Write([]byte("after: tok-1234567890\n"))
	s.Flush()
	if got := b.String(); got != "before: tok-1234567890\nafter: ***\n" {
		t.Errorf("got %q", got)
	}
	n := len(s.secrets)
	s.Add("tok-1234567890", "x")
	if len(s.secrets) != n || n != len(Forms([]string{"tok-1234567890"})) {
		t.Errorf("%d secrets kept, want the forms of the one long enough, once", len(s.secrets))
	}
}

func TestWriterCatchesASecretSplitAcrossWrites(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b, []string{"sk-abcdefgh"})
	for _, part := range []string{"key=sk-ab", "cdef", "gh and sk-a", "lso not\n", "tail sk-"} {
		w.Write([]byte(part))
	}
	if got := b.String(); got != "key=*** and sk-also not\ntail " {
		t.Errorf("before flush: %q", got)
	}
	w.(interface{ Flush() error }).Flush()
	if got := b.String(); got != "key=*** and sk-also not\ntail sk-" {
		t.Errorf("after flush: %q", got)
	}
}

func TestJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"access_token":"abc","n":1}`:                   `{"access_token":"***","n":1}`,
		`{"Authorization": "Bearer x\"y", "name":"a"}`:   `{"Authorization": "***", "name":"a"}`,
		`{"api_key":"k","key":"ordinary","session":"s"}`: `{"api_key":"***","key":"ordinary","session":"s"}`,
		`{"client_secret":"clipped-in-the-mid`:           `{"client_secret":"***"`,
		`{"password":"ends-with-escape\`:                 `{"password":"***"`,
		`{"progressToken":7}`:                            `{"progressToken":7}`,
		`{"progressToken":"mcpv-1","accessToken":"t"}`:   `{"progressToken":"mcpv-1","accessToken":"***"}`,
		// A name written with escapes is read as it decodes.
		`{"pass\u0077ord":"hunter2","n":"a\"b"}`:         `{"pass\u0077ord":"***","n":"a\"b"}`,
		`{"x\/token":"t","api\u005fkey":"k"}`:            `{"x\/token":"***","api\u005fkey":"***"}`,
		`{"progress\u0054oken":"mcpv-1","k\u0065y":"v"}`: `{"progress\u0054oken":"mcpv-1","k\u0065y":"v"}`,
		`{"note":"a \"token\": \"abc\""}`:                `{"note":"a \"token\": \"abc\""}`,
		`{"\u0063ookie":"clipped-in-the-mid`:             `{"\u0063ookie":"***"`,
		`{"token\\":"v","a":"x\"","token":"s"}`:          `{"token\\":"***","a":"x\"","token":"***"}`,
		`He said "hi. {"cookie": "c"}`:                   `He said "hi. {"cookie": "***"}`,
	} {
		if got := string(JSON([]byte(in))); got != want {
			t.Errorf("JSON(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestURLSecrets(t *testing.T) {
	got := URLSecrets("https://u:p%40ss@h/mcp?token=abcdef&to%6Ben=x%2By&mode=fast#frag")
	want := []string{"p@ss", "p%40ss", "dTpwQHNz", "dTpwQHNz", "abcdef", "abcdef", "x%2By", "x+y"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	if got := URLSecrets("https://h/k?X-Amz-Signature=f00d%2Bfeed&X-Amz-Expires=60"); !cmp.Equal(got, []string{"f00d%2Bfeed", "f00d+feed"}) {
		t.Errorf("a signed URL's secrets: %q", got)
	}
	// A user name alone is the secret, and so is the Basic credential a
	// client builds from it (https://TOKEN@host: Base64 of "TOKEN:").
	token := "tok-0123456789abcdef"
	basic := base64.StdEncoding.EncodeToString([]byte(token + ":"))
	echo := "you sent Basic " + basic + " (" + base64.RawStdEncoding.EncodeToString([]byte(token+":")) + "), that is " + token + ":"
	known := NewScrubber(nil)
	known.Add(URLSecrets("https://" + token + "@h/mcp")...)
	if got := known.String(echo); strings.Contains(got, token) || strings.Contains(got, basic[:20]) {
		t.Errorf("a user name alone, echoed: %q", got)
	}
	if got := ArgSecrets([]string{"srv", "--api-key=abc", "--token", "def", "-v"}); !cmp.Equal(got, []string{"abc", "def"}) {
		t.Errorf("ArgSecrets = %q", got)
	}
}

// TestString: a secret that contains another is masked whole, whatever
// the order the secrets come in; short values are left alone.
func TestString(t *testing.T) {
	for _, secrets := range [][]string{{"abcd1234", "abcd1234efgh5678"}, {"abcd1234efgh5678", "abcd1234"}} {
		s := NewScrubber(nil)
		s.Add(append(secrets, "ab")...)
		if got := s.String("x abcd1234efgh5678 y abcd1234 z ab"); got != "x *** y *** z ab" {
			t.Errorf("String with %q = %q", secrets, got)
		}
	}
}

func TestConfigValue(t *testing.T) {
	for _, tt := range []struct{ name, value, want string }{
		{"GITHUB_TOKEN", "ghp_abc", Mask},
		{"GITHUB_TOKEN", "${GITHUB_TOKEN}", "${GITHUB_TOKEN}"},
		{"Authorization", "Bearer ${TOKEN}", "Bearer ${TOKEN}"},
		{"Authorization", "Bearer abc", "Bearer " + Mask},
		{"Authorization", "Bearer ${TOKEN}x", "Bearer " + Mask},
		{"Authorization", "Bearer ${A}${B}", "Bearer " + Mask},
		{"API_KEY", "${A} ${B}", "${A} ${B}"},
		{"API_KEY", "${A} b", Mask},
		// A first word that is no authorization scheme is part of the
		// secret, not a word to keep.
		{"API_KEY", "sk-live-51Habc ${SUFFIX}", Mask},
		{"client_secret", "hunter2 ${X}", Mask},
		{"Authorization", "token ${GH}", "token ${GH}"},
		{"LOG_LEVEL", "debug", "debug"},
	} {
		if got := ConfigValue(tt.name, tt.value); got != tt.want {
			t.Errorf("ConfigValue(%q, %q) = %q, want %q", tt.name, tt.value, got, tt.want)
		}
	}
}

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

// A secret a JSON message holds behind escapes no encoder needs (every
// letter as \u00XX, some of them, in upper case, or twice escaped, in a
// document held in a string) is masked with the escapes it was read from;
// a message with escapes and no secret is as it was.
func TestMaskFindsEscapedSecrets(t *testing.T) {
	const secret, hostile = "ghp_abcdefghijklmnopqrstuvwxyz0123", `pw"q\x/y+z &é<9/`
	s := NewScrubber(nil)
	s.Add(secret, hostile)
	esc := func(v, hex string) string {
		var b strings.Builder
		for _, r := range v {
			fmt.Fprintf(&b, hex, r)
		}
		return b.String()
	}
	for _, msg := range []string{
		`{"data":"all ` + esc(secret, `\u%04x`) + `!"}`,
		`{"data":"half ` + secret[:6] + esc(secret[6:], `\u%04X`) + `"}`,
		`{"data":"one ` + secret[:9] + `\u0066` + secret[10:] + ` \n and ` + secret + `"}`,
		`{"text":"{\"data\":\"` + esc(secret, `\\u%04x`) + `\"}"}`,
		`{"a":"` + secret + `","b":"` + esc(secret, `\u%04x`) + `","text":"{\"data\":\"` + esc(secret, `\\u%04x`) + `\"}"}`,
		`{"data":"` + `\u00e9\ud83d\ude00 ` + esc(secret, `\u%04x`) + `"}`,
		`{"data":"` + esc(hostile, `\u%04x`) + `"}`,
		`{"data":"\u0070w\"q\\x\/y+z \u0026é<9/"}`, // one slash escaped, one not
		`{"text":"{\"data\":\"` + esc(hostile, `\\u%04x`) + `\"}"}`,
	} {
		got := string(s.Mask([]byte(msg)))
		text, err := readAll(got)
		if err != nil || strings.Contains(text, secret[4:]) || strings.Contains(text, hostile[1:]) || !strings.Contains(got, Mask) {
			t.Errorf("%s\nmasked: %s\nread: %s", msg, got, text)
		}
	}
	for _, msg := range []string{`{"a":"\u00e9\u0041 ghp_ \\u0067"}`, `\u12`, `\`, `\ud83d\u00`} {
		if got := string(s.Mask([]byte(msg))); got != msg {
			t.Errorf("%s masked: %s", msg, got)
		}
	}
}

// readAll is every string of a JSON document, and of the documents its
// strings hold, as a reader decodes them.
func readAll(doc string) (string, error) {
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return "", err
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, m := range v {
				walk(m)
			}
		case string:
			b.WriteString(v + "\n")
			if in, err := readAll(v); err == nil {
				b.WriteString(in)
			}
		}
	}
	walk(v)
	return b.String(), nil
}

// A secret behind JSON escapes, split across two writes anywhere (inside
// an escape too), is held back until it can be read whole: what the
// writer writes never holds it, escaped or not.
func TestWriterCatchesAnEscapedSecretSplitAcrossWrites(t *testing.T) {
	const secret = "ghp_abcdefgh1234"
	var all, mixed, twice strings.Builder
	for i, r := range secret {
		fmt.Fprintf(&all, `\u%04x`, r)
		fmt.Fprintf(&twice, `\\u%04x`, r)
		if i%3 == 0 {
			fmt.Fprintf(&mixed, `\u%04X`, r)
		} else {
			mixed.WriteRune(r)
		}
	}
	for _, form := range []string{all.String(), mixed.String(), twice.String(), `\u005cu0067hp_abcdefgh1234`} {
		text := `{"text":"[` + form + `]"}` + "\n"
		for cut := 1; cut < len(text); cut++ {
			if got := writtenInTwo(secret, text, cut); got != `{"text":"[`+Mask+`]"}`+"\n" {
				t.Errorf("%s cut at %d: wrote %s", form, cut, got)
				break
			}
		}
	}
}

// What a writer holds back for a secret behind escapes is bounded: a
// server writing backslashes for ever has them written out; a line with
// backslashes that ends as a line does is written whole at once.
func TestWriterHoldsLittleOfARunOfBackslashes(t *testing.T) {
	var b strings.Builder
	s := NewScrubber(&b)
	s.Add("ghp_abcdefgh1234")
	for _, line := range []string{`open C:\Users\ada\x.json: denied` + "\n", `{"msg":"\u00e9t\u00e9"}` + "\n"} {
		s.Write([]byte(line))
		if got := b.String(); got != line {
			t.Errorf("wrote %q of %q", got, line)
		}
		b.Reset()
	}
	for range 100 {
		s.Write([]byte(strings.Repeat(`\`, 1000)))
	}
	if held := len(s.held); held > 20*escapeLen {
		t.Errorf("%d bytes held back", held)
	}
	s.Flush()
	if b.Len() != 100_000 {
		t.Errorf("%d of 100,000 bytes written", b.Len())
	}
}

// A run of backslashes before an escaped secret, however long, cut
// anywhere: what two writes write is what one write of the whole writes.
func TestWriterCutInsideARunOfBackslashes(t *testing.T) {
	const secret = "ghp_abcdefgh1234"
	var esc strings.Builder
	for _, r := range secret {
		fmt.Fprintf(&esc, `\u%04x`, r)
	}
	for run := range 40 {
		text := `{"t":"` + strings.Repeat(`\`, run) + esc.String() + `"}` + "\n"
		one := NewScrubber(nil)
		one.Add(secret)
		whole := string(one.Mask([]byte(text)))
		for cut := 1; cut < len(text); cut++ {
			if got := writtenInTwo(secret, text, cut); got != whole {
				t.Errorf("a run of %d cut at %d: wrote %s, one write: %s", run, cut, got, whole)
				break
			}
		}
	}
}

// writtenInTwo is what a scrubber that knows secret writes of text
// written in two, cut at cut, then flushed.
func writtenInTwo(secret, text string, cut int) string {
	var b strings.Builder
	s := NewScrubber(&b)
	s.Add(secret)
	s.Write([]byte(text[:cut]))
	s.Write([]byte(text[cut:]))
	s.Flush()
	return b.String()
}
