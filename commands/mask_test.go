package commands

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	sends  string // the arguments a client of serve sends for it
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
		if f := testkit.Leak(text, secret); f != "" {
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
		if f := testkit.Leak(fmt.Sprint(s), secret); f != "" {
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
					line = append(append(line, g.wordsIn(t, dir)...), fake("echo="+mode)...)
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
			r := mcpvIn(t, env, line+"\n", append(append([]string{"-v", "--trace", trace}, g.flags...), append([]string{"batch"}, fake("echo=error")...)...)...)
			data, _ := os.ReadFile(trace)
			// Its stdout is the server's answers as they came (the line's
			// error as sent), data as a call's stdout is.
			if r.code != 3 || !strings.Contains(r.stdout, `"line":1`) {
				t.Errorf("batch: exit %d, stdout %s", r.code, r.stdout)
			}
			noLeak(t, "batch", g.secret, map[string]string{"stderr": r.stderr, "trace": string(data)})

			file := "server:\n  command: [" + q(mcptest.Program()) + "]\n  env: {" + mcptest.EnvVar + ": echo=error}\nsteps:\n  - run: " + q(line) + "\n  - run: " + q(strings.Replace(line, "call x", "call x -e", 1)) + "\n    expect: {exit: 0}\n"
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
				r := w.mcpv(t, stdin, append(append([]string{"-v", "--trace", trace}, g.flags...), append([]string{"serve"}, fake("echo="+mode)...)...)...)
				if r.code != 0 || !strings.Contains(answerOf(t, r.stdout, 1), `"id":1`) {
					t.Fatalf("serve: exit %d:\n%s", r.code, r.stderr)
				}
				data, _ := os.ReadFile(trace)
				noLeak(t, "serve", g.secret, map[string]string{"stderr": r.stderr, "trace": string(data)})

				entry := fakeEntry("echo=" + mode)
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
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			env := with(testEnv(t), g.env...)
			call := shellwords.Join(append([]string{"x"}, g.words...))
			for _, format := range []string{"text", "json", "junit", "tap"} {
				if slices.Contains(g.words, "--args") { // a call of check's takes key=value alone
					break
				}
				r := mcpvIn(t, env, "", append(append(slices.Clone(g.flags), "check", "--call", call, "--only", "tools", "--show", "all", "--format", format), fake("echo=error")...)...)
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
