package commands

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// hostileSecret holds what each encoding writes otherwise: a quote, a
// backslash, a slash, a plus, a space, an ampersand, a letter past
// ASCII and a <.
const hostileSecret = `pw"q\x/y+z &é<9`

// secretGiving is one way mcpv comes to know a secret: an argument
// named like one however given, a variable it passes or inherits, a
// flag. words are the call's (after "call x"), flags mcpv's own, env
// the inherited environment's additions; FILE in a word is the path of
// a file that holds file; sends is the arguments a client of serve sends
// for the row.
type secretGiving struct {
	name   string
	secret string
	words  []string
	flags  []string
	env    []string
	stdin  string
	file   string
	sends  string   // the arguments a client of serve sends for it
	server []string // the server command's own words, after the program
}

// secretGivings are the rows every sink is tried with: each secret is
// echoed by the server (echo=MODE of the fake) and must show in no
// sink, in no encoding.
func secretGivings() []secretGiving {
	q := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	return []secretGiving{
		{name: "key=value", secret: hostileSecret, words: []string{"password=" + hostileSecret}, sends: q(map[string]string{"password": hostileSecret})},
		{name: "key:=JSON", secret: hostileSecret, words: []string{"db_pass:=" + q(hostileSecret)}, sends: q(map[string]string{"db_pass": hostileSecret})},
		{name: "--args", secret: hostileSecret, words: []string{"--args", q(map[string]string{"password": hostileSecret})}, sends: q(map[string]string{"password": hostileSecret})},
		{name: "--args deep", secret: "deep-s3cret-value", words: []string{"--args", q(deepArgs)}, sends: q(deepArgs)},
		{name: "--args @FILE", secret: hostileSecret, words: []string{"--args", "@FILE"}, file: q(map[string]string{"secret": hostileSecret})},
		{name: "--args -", secret: hostileSecret, words: []string{"--args", "-"}, stdin: q(map[string]string{"token": hostileSecret})},
		{name: "--env", secret: hostileSecret, words: []string{"env=DB_PASSWORD"}, flags: []string{"--env", "DB_PASSWORD=" + hostileSecret}, sends: `{"env":"DB_PASSWORD"}`},
		{name: "inherited, short", secret: "hunter2", words: []string{"env=DB_PASSWORD"}, env: []string{"DB_PASSWORD=hunter2"}, sends: `{"env":"DB_PASSWORD"}`},
		{name: "inherited, four", secret: "h7x!", words: []string{"env=MYSQL_PWD"}, env: []string{"MYSQL_PWD=h7x!"}, sends: `{"env":"MYSQL_PWD"}`},
		{name: "inherited word", secret: "correcthorse", words: []string{"env=API_TOKEN"}, env: []string{"API_TOKEN=correcthorse"}, sends: `{"env":"API_TOKEN"}`},
		{name: "--client-secret", secret: "cs-" + hostileSecret, words: []string{"note=cs-" + hostileSecret}, flags: []string{"--client-secret", "cs-" + hostileSecret}, sends: q(map[string]string{"note": "cs-" + hostileSecret})},
		{name: "the server's flag", secret: "sf-" + hostileSecret, words: []string{"note=sf-" + hostileSecret}, server: []string{"--api-key=sf-" + hostileSecret}, sends: q(map[string]string{"note": "sf-" + hostileSecret})},
		{name: "the server's variable", secret: "sv-" + hostileSecret, words: []string{"note=sv-" + hostileSecret}, server: []string{"GITHUB_TOKEN=sv-" + hostileSecret}, sends: q(map[string]string{"note": "sv-" + hostileSecret})},
	}
}

// deepArgs hold a secret three levels down, in an array.
var deepArgs = map[string]any{"conn": map[string]any{"auth": []any{map[string]string{"api_key": "deep-s3cret-value"}}}}

// echoModes are the ways the fake echoes a secret, and the exit code of
// a call it answers so.
var echoModes = map[string]int{"error": 3, "tool-error": 1, "log": 0}

// noLeak fails t for each sink's text that holds secret in any encoding.
func noLeak(t *testing.T, what, secret string, sinks map[string]string) {
	t.Helper()
	for name, text := range sinks {
		if f := leak(text, secret); f != "" {
			t.Errorf("%s: %s holds the secret %s:\n%s", what, name, f, text)
		}
	}
}

// spansHold fails t for each span exported that holds secret in any
// encoding, in any attribute or status, and when none was exported.
func spansHold(t *testing.T, sink *testkit.Collector, secret string) {
	t.Helper()
	spans := sink.Spans()
	if len(spans) == 0 {
		t.Fatal("no span exported")
	}
	for _, s := range spans {
		if f := leak(fmt.Sprint(s), secret); f != "" {
			t.Errorf("span %v holds the secret %s", s["name"], f)
		}
	}
}

// One table of secrets, each given as mcpv may be given it and echoed
// by the server in every encoding (in an error, a tool's error, a log
// message): no sink of a call holds it in any: stderr (text and
// --errors json), the --verbose trace, the trace file, and each span's
// every attribute and status message at an OTLP collector.
func TestCallMasksSecretsInEverySink(t *testing.T) {
	t.Parallel()
	for _, g := range secretGivings() {
		for mode, code := range echoModes {
			t.Run(g.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				sink := testkit.NewCollector(t)
				dir := t.TempDir()
				trace := filepath.Join(dir, "t.jsonl")
				env := with(testEnv(t), append(g.env, "OTEL_EXPORTER_OTLP_ENDPOINT="+sink.URL)...)
				env.Cwd = dir
				for _, errors := range []string{"text", "json"} {
					line := append(append([]string{"--errors", errors, "-v", "--trace", trace}, g.flags...), "call", "x", "--no-validate")
					line = append(append(append(line, g.wordsIn(t, dir)...), fake("echo="+mode)...), g.server...)
					r := mcpvIn(t, env, g.stdin, line...)
					if r.code != code {
						t.Fatalf("%s: exit %d, want %d:\n%s", errors, r.code, code, r.stderr)
					}
					data, _ := os.ReadFile(trace)
					noLeak(t, "--errors "+errors, g.secret, map[string]string{"stderr": r.stderr, "trace": string(data)})
				}
				spansHold(t, sink, g.secret)
			})
		}
	}
}

// wordsIn are the row's words of a call, its file written in dir as
// args.json (FILE names it).
func (g secretGiving) wordsIn(t *testing.T, dir string) []string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "args.json"), []byte(g.file), 0o600); err != nil {
		t.Fatal(err)
	}
	words := slices.Clone(g.words)
	for i, w := range words {
		if w == "@FILE" {
			words[i] = "@args.json"
		}
	}
	return words
}

// The same table through a batch's lines and a test file's steps (which
// read no stdin of their own): neither stderr, the trace, the spans nor
// the report of mcpv test, in each of its formats (JUnit's XML escapes
// too), holds the secret.
func TestBatchAndTestMaskSecretsInEverySink(t *testing.T) {
	t.Parallel()
	for _, g := range secretGivings() {
		if g.stdin != "" {
			continue
		}
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			sink := testkit.NewCollector(t)
			dir := t.TempDir()
			words := g.wordsIn(t, dir)
			env := with(testEnv(t), append(g.env, "OTEL_EXPORTER_OTLP_ENDPOINT="+sink.URL)...)
			env.Cwd = dir
			trace := filepath.Join(dir, "t.jsonl")
			line := shellwords.Join(append([]string{"call", "x", "--no-validate"}, words...))
			r := mcpvIn(t, env, line+"\n", append(append([]string{"-v", "--trace", trace}, g.flags...), append(append([]string{"batch"}, fake("echo=error")...), g.server...)...)...)
			data, _ := os.ReadFile(trace)
			// Its stdout is the server's answers as they came (the line's
			// error as sent), data as a call's stdout is.
			if r.code != 3 || !strings.Contains(r.stdout, `"line":1`) {
				t.Errorf("batch: exit %d, stdout %s", r.code, r.stdout)
			}
			noLeak(t, "batch", g.secret, map[string]string{"stderr": r.stderr, "trace": string(data)})

			command, _ := json.Marshal(append([]string{fakeProgram()}, g.server...))
			file := "server:\n  command: " + string(command) + "\n  env: {" + mcptest.EnvVar + ": echo=error}\nsteps:\n  - run: " + q(line) + "\n  - run: " + q(strings.Replace(line, "call x", "call x -e", 1)) + "\n    expect: {exit: 0}\n"
			if err := os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(file), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"text", "json", "junit", "tap"} {
				r := mcpvIn(t, env, "", append(append([]string{"-v", "--trace", trace}, g.flags...), "test", "--format", format, "t.yaml")...)
				if r.code != 1 || !strings.Contains(r.stdout, "refused") && format != "text" {
					t.Errorf("test --format %s: exit %d, report:\n%s\nstderr:\n%s", format, r.code, r.stdout, r.stderr)
				}
				data, _ := os.ReadFile(trace)
				noLeak(t, "test --format "+format, g.secret, map[string]string{"report": r.stdout, "stderr": r.stderr, "trace": string(data)})
			}
			spansHold(t, sink, g.secret)
		})
	}
}

// The same table through mcpv serve, a client sending the arguments, and
// through a gateway of two such servers: neither serve's stderr, its
// trace nor its spans (the served request's, the relayed one's) hold
// the secret, however the server echoes it.
func TestServeMasksSecretsInEverySink(t *testing.T) {
	t.Parallel()
	for _, g := range secretGivings() {
		if g.sends == "" {
			continue
		}
		for mode := range echoModes {
			t.Run(g.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				sink := testkit.NewCollector(t)
				w := newCfgWorld(t)
				for _, kv := range append(g.env, "OTEL_EXPORTER_OTLP_ENDPOINT="+sink.URL) {
					k, v, _ := strings.Cut(kv, "=")
					w.setenv(k, v)
				}
				trace := filepath.Join(t.TempDir(), "t.jsonl")
				stdin := serveSession(`tools/call {"name":"x","arguments":` + g.sends + `}`)
				r := w.mcpv(t, stdin, append(append([]string{"-v", "--trace", trace}, g.flags...), append(append([]string{"serve"}, fake("echo="+mode)...), g.server...)...)...)
				if r.code != 0 || !strings.Contains(answerOf(t, r.stdout, 1), `"id":1`) {
					t.Fatalf("serve: exit %d:\n%s", r.code, r.stderr)
				}
				data, _ := os.ReadFile(trace)
				noLeak(t, "serve", g.secret, map[string]string{"stderr": r.stderr, "trace": string(data)})

				entry := fakeEntry("echo="+mode, g.server...)
				w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), "servers:\n  a: "+entry+"\n  b: "+entry+"\n")
				stdin = serveSession(`tools/call {"name":"a__x","arguments":` + g.sends + `}`)
				r = w.mcpv(t, stdin, append(append([]string{"-v", "--trace", trace}, g.flags...), "serve", "-s", "a", "-s", "b")...)
				if r.code != 0 || !strings.Contains(answerOf(t, r.stdout, 1), `"id":1`) {
					t.Fatalf("gateway: exit %d:\n%s", r.code, r.stderr)
				}
				data, _ = os.ReadFile(trace)
				noLeak(t, "gateway", g.secret, map[string]string{"stderr": r.stderr, "trace": string(data)})
				spansHold(t, sink, g.secret)
			})
		}
	}
}

// The same table through mcpv check (a --call of the row's words) and,
// for what the server holds of its environment, mcpv audit of a server
// whose tool's description holds the secret: neither report, in any
// format, nor stderr, holds it.
func TestCheckAndAuditMaskSecrets(t *testing.T) {
	t.Parallel()
	for _, g := range secretGivings() {
		if slices.Contains(g.words, "--args") { // a call of check's takes key=value alone
			continue
		}
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			env := with(testEnv(t), g.env...)
			call := shellwords.Join(append([]string{"x"}, g.words...))
			for _, format := range []string{"text", "json", "junit", "tap"} {
				r := mcpvIn(t, env, "", append(append(slices.Clone(g.flags), "check", "--call", call, "--only", "tools", "--show", "all", "--format", format), append(fake("echo=error"), g.server...)...)...)
				if !strings.Contains(r.stdout, "refused") {
					t.Errorf("check --format %s: exit %d, the call's refusal is not reported:\n%s\n%s", format, r.code, r.stdout, r.stderr)
				}
				noLeak(t, "check --format "+format, g.secret, map[string]string{"report": r.stdout, "stderr": r.stderr})
			}
			name, _, ok := strings.Cut(strings.TrimPrefix(g.sends, `{"env":"`), `"}`)
			if !ok || !strings.HasPrefix(g.sends, `{"env":"`) {
				return
			}
			for _, format := range []string{"text", "json", "sarif", "junit"} {
				r := mcpvIn(t, env, "", append(append(slices.Clone(g.flags), "audit", "--fail-on", "none", "--format", format), fake("describe="+name)...)...)
				if r.code != 0 || !strings.Contains(r.stdout, "never tell the user") {
					t.Errorf("audit --format %s: exit %d, no finding quotes the description:\n%s\n%s", format, r.code, r.stdout, r.stderr)
				}
				noLeak(t, "audit --format "+format, g.secret, map[string]string{"report": r.stdout, "stderr": r.stderr})
			}
		})
	}
}

// leak says in which encoding text holds secret, or "" when it holds it
// in none: as it is, JSON-escaped (once or twice: \", \\, \/, \uXXXX),
// URL-encoded (percent-encoded, + for a space), base64 (the standard and
// the URL alphabet, padded or not, alone or at any of the three
// alignments inside a longer base64 text), XML-escaped (a JUnit
// report), or any of these inside another. It decodes what text holds rather than encoding the secret,
// so that it finds an encoding the masker was never told of.
func leak(text, secret string) string {
	type form struct{ name, text string }
	forms := []form{{"as is", text}, {"XML-escaped", html.UnescapeString(text)}}
	for _, f := range forms[:1] {
		once := jsonUnescape(f.text)
		forms = append(forms, form{"JSON-escaped", once}, form{"JSON-escaped twice", jsonUnescape(once)})
	}
	for _, f := range forms[:4] {
		if q, err := url.QueryUnescape(lenientPercent(f.text)); err == nil {
			forms = append(forms, form{f.name + ", URL-encoded", q})
		}
		if p, err := url.PathUnescape(lenientPercent(f.text)); err == nil {
			forms = append(forms, form{f.name + ", percent-encoded", p})
		}
	}
	for _, f := range forms {
		if strings.Contains(f.text, secret) {
			return f.name
		}
		if base64Holds(f.text, secret) {
			return f.name + ", base64"
		}
	}
	return ""
}

// jsonUnescape is text with every JSON string escape decoded, wherever
// it is: a text that holds JSON holds its strings' escapes anywhere.
func jsonUnescape(text string) string {
	escape := regexp.MustCompile(`\\u[0-9a-fA-F]{4}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|\\[^u]`)
	return escape.ReplaceAllStringFunc(text, func(e string) string {
		var s string
		if json.Unmarshal([]byte(`"`+e+`"`), &s) != nil {
			return e
		}
		return s
	})
}

// lenientPercent is text with each % that begins no escape written %25,
// so that one stray % does not stop the rest from decoding.
func lenientPercent(text string) string {
	strayPercent := regexp.MustCompile(`%(?:[^0-9A-Fa-f]|[0-9A-Fa-f][^0-9A-Fa-f]|[0-9A-Fa-f]?$)`)
	return strayPercent.ReplaceAllStringFunc(text, func(m string) string { return "%25" + m[1:] })
}

// urlToStd writes base64's URL alphabet in the standard one.
var urlToStd = strings.NewReplacer("-", "+", "_", "/")

// base64Holds reports whether a run of base64 in text, read from any of
// its first four characters on, decodes to bytes that hold secret.
// A run is six characters or more of either alphabet, found by a scan:
// leak reads every sink of hundreds of runs, and a regular expression
// took half its time.
func base64Holds(text, secret string) bool {
	notBase64 := func(r rune) bool {
		return !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || strings.ContainsRune("+/_-", r))
	}
	for _, run := range strings.FieldsFunc(text, notBase64) {
		if len(run) < 6 {
			continue
		}
		run = urlToStd.Replace(run)
		for from := range min(4, len(run)) {
			r := run[from:]
			if len(r)%4 == 1 {
				r = r[:len(r)-1] // no whole byte
			}
			if dec, err := base64.RawStdEncoding.DecodeString(r); err == nil && bytes.Contains(dec, []byte(secret)) {
				return true
			}
		}
	}
	return false
}

// leak finds a secret in each encoding a server may echo it in, inside
// longer text, and nothing once each is masked.
func TestLeakFindsEveryEncoding(t *testing.T) {
	t.Parallel()
	const secret = `pw"q\x/y+z &é<9`
	goJSON, _ := json.Marshal(secret)
	twice, _ := json.Marshal(string(goJSON))
	std := base64.StdEncoding
	for name, text := range map[string]string{
		"as is":          "login failed for " + secret + ".",
		"JSON":           `{"m":` + string(goJSON) + `}`,
		"JSON twice":     `{"m":` + string(twice) + `}`,
		"ASCII JSON":     `{"m":"pw\"q\\x\/y+z &\u00e9\u003c9"}`,
		"query":          "?a=" + url.QueryEscape(secret) + "&b=1",
		"path":           "/x/" + url.PathEscape(secret) + "/y",
		"base64":         "token " + std.EncodeToString([]byte(secret)) + " end",
		"base64 raw url": base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"base64 at 1":    std.EncodeToString([]byte("x" + secret + "tail")),
		"base64 at 2":    std.EncodeToString([]byte("xy" + secret + "tail")),
		"base64 in JSON": `"` + base64.URLEncoding.EncodeToString([]byte("user:"+secret)) + `"`,
		"URL in JSON":    `{"u":"https://h/?p=` + url.QueryEscape(secret) + `"}`,
		"XML":            `<failure message="pw&#34;q\x/y+z &amp;é&lt;9"/>`,
	} {
		if leak(text, secret) == "" {
			t.Errorf("%s: %q not found in %q", name, secret, text)
		}
	}
	masked := "login failed for ***. " + std.EncodeToString([]byte("xy"))[:2] + "***" + " %2F***"
	if f := leak(masked, secret); f != "" {
		t.Errorf("found %s in %q", f, masked)
	}
	if f := leak(strings.Repeat("%zz\\u12", 10), secret); f != "" {
		t.Errorf("found %s in junk", f)
	}
}

// What mcpv sends a server over HTTP that is a secret (a secret-named
// header's value, a URL's password or secret query value, and the Basic
// credential made of the user info), echoed by the server in an error in
// every encoding, shows in no sink of a call: stderr (text and --errors
// json), the --verbose trace, the trace file, the spans.
func TestCallMasksHTTPCredentialsInEverySink(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" {
			return false
		}
		lines := []string{"url=" + x.R.URL.String()}
		for _, k := range slices.Sorted(maps.Keys(x.R.Header)) {
			lines = append(lines, k+"="+x.R.Header.Get(k))
		}
		x.Reply(x.Error(-32000, "refused: "+mcptest.EchoText(lines)))
		return true
	}})
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, c := range []struct {
		name, secret string
		flags        []string
	}{
		{"-H Authorization", "hdr-s3cr+t/val=", []string{"-H", "Authorization: Bearer hdr-s3cr+t/val=", "-u", srv.URL}},
		{"-H X-Api-Key", "key-s3cr+t/val=", []string{"--header", "X-Api-Key: key-s3cr+t/val=", "-u", srv.URL}},
		{"URL user info", "userinfo-pw9", []string{"-u", "http://ada:userinfo-pw9@" + host}},
		{"URL query", "query-s3cr3t", []string{"-u", srv.URL + "?api_key=query-s3cr3t"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sink := testkit.NewCollector(t)
			env := with(testEnv(t), "OTEL_EXPORTER_OTLP_ENDPOINT="+sink.URL)
			trace := filepath.Join(t.TempDir(), "t.jsonl")
			for _, errors := range []string{"text", "json"} {
				r := mcpvIn(t, env, "", append(append([]string{"--errors", errors, "-v", "--trace", trace}, c.flags...), "call", "x", "--no-validate")...)
				data, _ := os.ReadFile(trace)
				if r.code != 3 || !strings.Contains(string(data), "refused") {
					t.Fatalf("%s: exit %d:\n%s", errors, r.code, r.stderr)
				}
				noLeak(t, "--errors "+errors, c.secret, map[string]string{"stderr": r.stderr, "trace": string(data)})
			}
			spansHold(t, sink, c.secret)
		})
	}
}
