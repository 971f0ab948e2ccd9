package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/jsonschema"
	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/output"
)

// Every failure of the command line, one row per exit code and kind, is
// told in both forms: one "mcpv: " line, or with --errors json (or
// MCPV_ERRORS=json) one JSON object valid against
// docs/mcpv-error.schema.json, with the same exit code.
func TestErrorsInBothForms(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/mcpv-error.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "bad.json")
	os.WriteFile(badConfig, []byte(`{"mcpServers": {"x": {"command": 7}}}`), 0o600)
	rows := []struct {
		name string
		code int
		kind string
		args []string
		has  string // in the message
		rpc  bool   // carries the server's JSON-RPC error
	}{
		{"tool error", 1, "tool-error", args([]string{"call", "x"}, fake("tool-error")), "tool", false},
		{"falsy", 1, "falsy", args([]string{"list-tools", "-e", "-q", "false"}, fake("plain")), "false or null", false},
		{"usage", 2, "usage", []string{"--bogus", "list-tools"}, "--bogus", false},
		{"config", 2, "config", []string{"--config", badConfig, "-s", "x", "list-tools"}, "bad.json", false},
		{"filter", 6, "filter", args([]string{"list-tools", "-q", ".tools[0].name | error"}, fake("plain")), "jq", false},
		{"server error", 3, "server-error", args([]string{"request", "no/such"}, fake("plain")), "no/such", true},
		{"capability", 3, "capability", args([]string{"list-prompts"}, fake("no-tools")), "prompts", false},
		{"refused", 3, "refused", args([]string{"call", "nosuch"}, fake("plain")), "nosuch", false},
		{"transport", 4, "transport", []string{"list-tools", "--", filepath.Join(dir, "no-such-server")}, "no-such-server", false},
		{"timeout", 124, "timeout", args([]string{"--timeout", "50ms", "call", "x"}, fake("hang")), "", false},
	}
	seen := map[string]bool{}
	for _, row := range rows {
		seen[row.kind] = true
		for _, form := range []string{"text", "json", "env"} {
			w := newWorld(t)
			a := row.args
			switch form {
			case "json":
				a = append([]string{"--errors", "json"}, a...)
			case "env":
				w.setenv("MCPV_ERRORS", "json")
			}
			r := w.mcpv(t, "", a...)
			if r.code != row.code {
				t.Errorf("%s (%s): exit %d, want %d\n%s", row.name, form, r.code, row.code, r.stderr)
				continue
			}
			if form == "text" {
				if row.kind == "falsy" { // told through stdout, as jq's -e
					continue
				}
				if !strings.HasPrefix(r.stderr, "mcpv: ") || strings.Contains(r.stderr, `"kind"`) || !strings.Contains(r.stderr, row.has) {
					t.Errorf("%s (text): stderr %q", row.name, r.stderr)
				}
				continue
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if len(lines) != 1 {
				t.Errorf("%s (%s): %d lines on stderr, want one object:\n%s", row.name, form, len(lines), r.stderr)
				continue
			}
			if err := schema.Validate([]byte(lines[0])); err != nil {
				t.Errorf("%s (%s): %s breaks docs/mcpv-error.schema.json: %v", row.name, form, lines[0], err)
			}
			var f exitcode.Failure
			if err := json.Unmarshal([]byte(lines[0]), &f); err != nil {
				t.Fatal(err)
			}
			if f.Exit != row.code || f.Kind != row.kind || !strings.Contains(f.Message, row.has) || (f.Error != nil) != row.rpc {
				t.Errorf("%s (%s): %+v, want exit %d kind %s with %q", row.name, form, f, row.code, row.kind, row.has)
			}
		}
	}
	// The two kinds no row above can make without a server of their own
	// are made in tests of their own (login-required, pinned, auth,
	// interrupted below); the rest are all here.
	for _, k := range exitcode.Kinds {
		if !seen[k] && !slices.Contains([]string{"login-required", "pinned", "auth", "interrupted", "failed"}, k) {
			t.Errorf("kind %s has no row", k)
		}
	}
}

// An interrupted run is told as JSON too: exit 130, kind interrupted.
func TestErrorsJSONInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrInterrupted)
	var out, errb strings.Builder
	code := run(ctx, args([]string{"--errors", "json", "list-tools"}, fake("hang")), output.NewStreams(strings.NewReader(""), &out, &errb), testEnv(t))
	var f exitcode.Failure
	if err := json.Unmarshal([]byte(errb.String()), &f); err != nil || code != 130 || f.Exit != 130 || f.Kind != "interrupted" {
		t.Errorf("exit %d, stderr %q (%v)", code, errb.String(), err)
	}
}

// Commands that tell failures one by one (test of a broken file, cost of
// a server that fails) give, with --errors json, one object on stderr and
// nothing before it: its message is the reason the lines would have
// given, not a word about a batch.
func TestErrorsJSONOfCommandsThatTellEach(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.yaml")
	os.WriteFile(broken, []byte("server: {command: [nope]}\nsteps:\n  - bogus: 1\n"), 0o600)
	for _, tt := range []struct {
		args    []string
		code    int
		message string
	}{
		{[]string{"test", broken}, 2, `broken.yaml:3:5: unknown key "bogus" in a step`},
		{args([]string{"cost"}, fake("no-such-behaviour")), 4, "the server could not be counted: "},
		{args([]string{"audit"}, fake("no-such-behaviour")), 4, " could not be audited: "},
		// the server's own stderr inside the object, not before it
		{args([]string{"call", "x"}, fake("crash")), 4, "last lines of the server's stderr:\n  | fake: about to crash\n  | fake: panic: something broke"},
	} {
		r := mcpv(t, "", append([]string{"--errors", "json"}, tt.args...)...)
		var f exitcode.Failure
		if err := json.Unmarshal([]byte(r.stderr), &f); err != nil || r.code != tt.code || f.Exit != tt.code ||
			!strings.Contains(f.Message, tt.message) || strings.Contains(f.Message, "batch") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q (%v)", tt.args, r.code, r.stderr, err)
		}
	}
}

// Under --errors json, what mcpv says beside its failure (a warning, a
// note) is a JSON object of its own on its own line, as the failure is,
// the one object with "exit": every line of stderr is one JSON object.
func TestErrorsJSONEveryLine(t *testing.T) {
	t.Parallel()
	env := with(testEnv(t), "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_TIMEOUT=soon")
	r := mcpvIn(t, env, "", append([]string{"--errors", "json"}, args([]string{"call", "x"}, fake("crash"))...)...)
	warned, failures := false, 0
	for _, l := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
		var said struct {
			Warning, Note string
			Exit          *int
		}
		switch err := json.Unmarshal([]byte(l), &said); {
		case err != nil || said.Warning == "" && said.Note == "" && said.Exit == nil:
			t.Errorf("a line that is no warning, note or failure object: %q", l)
		case said.Exit != nil:
			failures++
			if *said.Exit != 4 {
				t.Errorf("the failure: %s", l)
			}
		}
		warned = warned || strings.Contains(said.Warning, "OTEL_EXPORTER_OTLP_TIMEOUT")
	}
	if !warned || failures != 1 || r.code != 4 {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// An MCPV_ERRORS value mcpv does not know is refused as --errors yaml is
// (exit 2, before any server starts), unless --errors says the form.
func TestErrorsVariableUnknown(t *testing.T) {
	t.Parallel()
	env := with(testEnv(t), "MCPV_ERRORS=xml")
	r := mcpvIn(t, env, "", args([]string{"ping"}, fake("plain"))...)
	r.expect(t, 2, "", "", `mcpv: MCPV_ERRORS="xml": want text or json, as --errors takes`)
	mcpvIn(t, env, "", args([]string{"--errors", "text", "ping"}, fake("plain"))...).expect(t, 0, "", "", "")
}

// A server that echoes a secret in its JSON-RPC error, message and data,
// cannot make --errors json print it: the object is masked as the line
// is, in the server's words as in mcpv's.
func TestErrorsJSONMasksSecrets(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" {
			return false
		}
		key := x.R.Header.Get("X-Api-Key")
		e := x.Error(-32000, "you sent "+key)
		x.Reply(strings.Replace(e, `"message"`, `"data":{"echo":"`+key+`","query":"`+x.R.URL.RawQuery+`"},"message"`, 1))
		return true
	})
	headers := filepath.Join(t.TempDir(), "headers")
	os.WriteFile(headers, []byte("X-Api-Key: file-key-0123456789\n"), 0o600)
	r := w.mcpv(t, "", "--errors", "json", "-u", f.URL+"?api_key=url-key-0123456789", "-H", "@"+headers, "call", "x", "--no-validate")
	var fail exitcode.Failure
	if err := json.Unmarshal([]byte(r.stderr), &fail); err != nil || r.code != 3 || fail.Error == nil || !strings.Contains(fail.Message, "you sent ***") {
		t.Fatalf("exit %d, stderr %q (%v)", r.code, r.stderr, err)
	}
	for _, secret := range []string{"file-key-0123456789", "url-key-0123456789"} {
		if strings.Contains(r.stderr, secret) {
			t.Errorf("stderr shows %s:\n%s", secret, r.stderr)
		}
	}
}

// The kinds of exit 5 and 7, which need an authorization server or a
// pinned server of their own, in both forms.
func TestErrorsJSONLoginAndPin(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv, _ := authWorld(t, w)
	w.env.Cwd = t.TempDir()
	pinned := newPinnedServer(t, w, calcV1)
	pinned.set(t, calcV2)
	for _, c := range []struct {
		args       []string
		code       int
		kind, hint string
	}{
		{[]string{"-u", srv.URL(), "list-tools"}, 5, "login-required", "mcpv auth wait"},
		{args([]string{"--pin", "pins.json", "call", "add", "a:=1", "b:=2"}, pinned.cmd), 7, "pinned", ""},
	} {
		text := w.mcpv(t, "", c.args...)
		r := w.mcpv(t, "", append([]string{"--errors", "json"}, c.args...)...)
		var f exitcode.Failure
		if err := json.Unmarshal([]byte(r.stderr), &f); err != nil || r.code != c.code || text.code != c.code || f.Kind != c.kind || !strings.Contains(f.Hint, c.hint) {
			t.Errorf("%q: exit %d (text %d), stderr %q (%v)", c.args, r.code, text.code, r.stderr, err)
		}
		if !strings.HasPrefix(text.stderr, "mcpv: ") {
			t.Errorf("%q (text): stderr %q", c.args, text.stderr)
		}
		if c.kind == "pinned" && len(f.Details) == 0 {
			t.Errorf("a pin's refusal without what moved: %+v", f)
		}
	}
}

// A server's error message that breaks its lines (a newline, CR, U+2028,
// U+2029) is told on one "mcpv: " line, whichever request it refuses, so
// that it cannot write a line that reads as mcpv's own; --errors json
// keeps the message as the server wrote it. A message of one line is told
// as it is.
func TestServerErrorIsOneLine(t *testing.T) {
	t.Parallel()
	const forged = "line1\nmcpv: forged\r\n\n  line3\u2028line4\u2029line5"
	for _, tc := range []struct{ method, message, want string }{
		{"initialize", forged, "mcpv: initialize: server error -32000: line1 mcpv: forged line3 line4 line5\n"},
		{"ping", forged, "mcpv: ping: server error -32000: line1 mcpv: forged line3 line4 line5\n"},
		{"tools/list", forged, "mcpv: tools/list: server error -32000: line1 mcpv: forged line3 line4 line5\n"},
		{"no/such", forged, "mcpv: no/such: server error -32000: line1 mcpv: forged line3 line4 line5\n"},
		{"ping", "one line", "mcpv: ping: server error -32000: one line\n"},
	} {
		f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
			if x.RPCMethod != tc.method {
				return false
			}
			x.Reply(x.Error(-32000, tc.message))
			return true
		})
		command := map[string][]string{"initialize": {"ping"}, "ping": {"ping"}, "tools/list": {"list-tools"}, "no/such": {"request", "no/such"}}[tc.method]
		r := mcpv(t, "", append([]string{"-u", f.URL}, command...)...)
		if r.code != 3 || r.stderr != tc.want {
			t.Errorf("%s: exit %d, stderr %q, want %q", tc.method, r.code, r.stderr, tc.want)
		}
		r = mcpv(t, "", append([]string{"--errors", "json", "-u", f.URL}, command...)...)
		var got exitcode.Failure
		if err := json.Unmarshal([]byte(r.stderr), &got); err != nil || got.Error == nil || got.Error.Message != tc.message ||
			got.Message != strings.TrimSuffix(strings.TrimPrefix(tc.want, "mcpv: "), "\n") {
			t.Errorf("%s, --errors json: exit %d, stderr %q (%v)", tc.method, r.code, r.stderr, err)
		}
	}
}
