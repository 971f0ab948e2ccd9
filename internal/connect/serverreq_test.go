package connect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/elicit"
	"github.com/mcpv/mcpv/mcp"
)

// answerer is the answerer of settings s in a directory of its own, its
// warnings in log.
func testAnswerer(t *testing.T, s *Settings, h Hooks) (*answerer, Env) {
	t.Helper()
	env := Env{Cwd: t.TempDir(), GOOS: runtime.GOOS}
	a, err := newAnswerer(s, env, h)
	if err != nil {
		t.Fatal(err)
	}
	return a, env
}

// mcpv declares exactly the capabilities it can answer: roots with
// --root, sampling with --sampling-cmd, elicitation always (form mode;
// URL mode too when a browser can be opened); a hook's capabilities
// replace them.
func TestClientCapabilities(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		s    Settings
		h    Hooks
		want string
	}{
		{"nothing asked", Settings{}, Hooks{}, `{"elicitation":{"form":{}}}`},
		{"roots and sampling", Settings{Answers: Answers{Roots: []string{dir}, SamplingCmd: "cat"}}, Hooks{},
			`{"roots":{"listChanged":false},"sampling":{},"elicitation":{"form":{}}}`},
		{"a browser and no terminal", Settings{}, Hooks{OpenURL: func(string) error { return nil }}, `{"elicitation":{"form":{}}}`},
		{"a browser and a terminal", Settings{}, Hooks{OpenURL: func(string) error { return nil }, Terminal: func() elicit.Terminal { return &typed{} }}, `{"elicitation":{"form":{},"url":{}}}`},
		{"mcpv serve's", Settings{Answers: Answers{SamplingCmd: "cat"}}, Hooks{Capabilities: json.RawMessage(`{"sampling":{}}`)}, `{"sampling":{}}`},
	} {
		a, _ := testAnswerer(t, &tt.s, tt.h)
		if got := string(a.capabilities()); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

// roots/list answers the --root directories as file URIs; a request mcpv
// does not answer is method not found; a request made for a task gets the
// task's _meta back.
func TestServerRequests(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a, _ := testAnswerer(t, &Settings{Answers: Answers{Roots: []string{root}}}, Hooks{})
	serve := a.handler()
	res, err := serve(t.Context(), "roots/list", nil)
	want := `{"roots":[{"uri":"` + fileURI(root, runtime.GOOS) + `","name":"` + filepath.Base(root) + `"}]}`
	if err != nil || string(res) != want {
		t.Errorf("roots/list = %s, %v; want %s", res, err, want)
	}
	res, err = serve(t.Context(), "roots/list", json.RawMessage(`{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}`))
	if err != nil || !strings.Contains(string(res), `"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}`) {
		t.Errorf("roots/list for a task = %s, %v", res, err)
	}
	var rpcErr *mcp.RPCError
	if _, err := serve(t.Context(), "sampling/createMessage", json.RawMessage(`{}`)); !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMethodNotFound {
		t.Errorf("sampling without --sampling-cmd: %v, want method not found", err)
	}
}

// A Route hook answers first; what it leaves goes to mcpv's own answers.
func TestServerRequestsRouted(t *testing.T) {
	t.Parallel()
	a, _ := testAnswerer(t, &Settings{}, Hooks{Route: func(_ context.Context, method string, _ json.RawMessage) (json.RawMessage, bool, error) {
		if method == "sampling/createMessage" {
			return json.RawMessage(`{"routed":true}`), true, nil
		}
		return nil, false, nil
	}})
	serve := a.handler()
	if res, err := serve(t.Context(), "sampling/createMessage", nil); err != nil || string(res) != `{"routed":true}` {
		t.Errorf("routed: %s, %v", res, err)
	}
	var rpcErr *mcp.RPCError
	if _, err := serve(t.Context(), "roots/list", nil); !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeMethodNotFound {
		t.Errorf("left to mcpv: %v", err)
	}
}

// An elicitation is answered from --answer and --answers, or by the
// policy; without a terminal, prompting declines; a form that is not one
// is invalid params; the progress line is cleared before a question.
func TestElicitation(t *testing.T) {
	t.Parallel()
	form := json.RawMessage(`{"mode":"form","message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer"}},"required":["name"]}}`)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "answers.json"), []byte(`{"n":3}`), 0o600)
	for _, tt := range []struct {
		name string
		a    Answers
		tty  *typed
		want string
	}{
		{"asked at the terminal", Answers{}, &typed{lines: []string{"grace", "4", "y"}}, `{"action":"accept","content":{"name":"grace","n":4}}`},
		{"answered", Answers{Answer: []string{"name=ada"}, AnswersFile: filepath.Join(dir, "answers.json")}, nil, `{"action":"accept","content":{"name":"ada","n":3}}`},
		{"no terminal to prompt on", Answers{Elicitation: "prompt"}, nil, `{"action":"decline"}`},
		{"cancel", Answers{Elicitation: "cancel"}, &typed{}, `{"action":"cancel"}`},
	} {
		st := &status{}
		h := Hooks{Status: st}
		if tt.tty != nil {
			h.Terminal = func() elicit.Terminal { return tt.tty }
		}
		a, _ := testAnswerer(t, &Settings{Answers: tt.a}, h)
		res, err := a.handler()(t.Context(), "elicitation/create", form)
		if err != nil || string(res) != tt.want {
			t.Errorf("%s: %s, %v; want %s", tt.name, res, err, tt.want)
		}
		if len(st.shown) != 1 || st.shown[0] != "" {
			t.Errorf("%s: the progress line was not cleared: %q", tt.name, st.shown)
		}
		if asked := tt.tty != nil && strings.Contains(tt.tty.String(), "name (text, required): "); asked != (tt.name == "asked at the terminal") {
			t.Errorf("%s: the terminal was asked %v: %q", tt.name, asked, tt.tty.String())
		}
	}
	a, _ := testAnswerer(t, &Settings{}, Hooks{})
	var rpcErr *mcp.RPCError
	if _, err := a.handler()(t.Context(), "elicitation/create", json.RawMessage(`{"mode":"form"}`)); !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInvalidParams {
		t.Errorf("a form without its parts: %v, want invalid params", err)
	}
	if got := ElicitAdvice(elicit.Unanswered{Missing: []string{"name"}}); got != "use --answer name=VALUE" {
		t.Errorf("advice for a missing field: %q", got)
	}
	if got := ElicitAdvice(elicit.Unanswered{}); got != "use --answer KEY=VALUE, --answers FILE or --elicitation accept" {
		t.Errorf("advice: %q", got)
	}
	if _, err := newAnswerer(&Settings{Answers: Answers{AnswersFile: filepath.Join(dir, "none.json")}}, Env{GOOS: runtime.GOOS}, Hooks{}); !usageErr(err) || !strings.HasPrefix(err.Error(), "--answers: ") {
		t.Errorf("--answers missing: %v", err)
	}
}

// sampling/createMessage runs --sampling-cmd with the request on stdin,
// in the command's directory, and answers what it prints once it is a
// CreateMessageResult; anything else is an internal error to the server
// and a warning to the user.
func TestSamplingCommand(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the commands are sh")
	}
	params := json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}`)
	for _, tt := range []struct {
		name, cmd, want, warning string
	}{
		{"a result", `grep -q '"text":"hi"' && pwd >&2 && echo '{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}'`,
			`{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}`, ""},
		{"not JSON", `echo nope`, "", `--sampling-cmd printed no JSON object (`},
		{"no model", `echo '{"role":"assistant","content":{"type":"text","text":"x"}}'`, "", "--sampling-cmd printed JSON without role, content and model"},
		{"a failing command", `exit 3`, "", "--sampling-cmd exit status 3; the server gets an error"},
	} {
		var log, stderr bytes.Buffer
		a, env := testAnswerer(t, &Settings{Answers: Answers{SamplingCmd: tt.cmd}}, Hooks{Log: slog.New(slog.NewTextHandler(&log, nil)), Stderr: &stderr})
		res, err := a.handler()(t.Context(), "sampling/createMessage", params)
		if tt.want != "" {
			if err != nil || string(res) != tt.want || strings.TrimSpace(stderr.String()) != env.Cwd {
				t.Errorf("%s: %s, %v; stderr %q", tt.name, res, err, stderr.String())
			}
			continue
		}
		var rpcErr *mcp.RPCError
		if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInternalError || !strings.Contains(log.String(), tt.warning) {
			t.Errorf("%s: %v; log %q", tt.name, err, log.String())
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	a, _ := testAnswerer(t, &Settings{Answers: Answers{SamplingCmd: "sleep 5"}}, Hooks{})
	if _, err := a.handler()(ctx, "sampling/createMessage", params); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// typed is a terminal whose user types lines, one per question.
type typed struct {
	bytes.Buffer
	lines []string
}

func (t *typed) ReadLine(context.Context) (string, error) {
	if len(t.lines) == 0 {
		return "", io.EOF
	}
	line := t.lines[0]
	t.lines = t.lines[1:]
	return line, nil
}

func (t *typed) Turn(context.Context) (func(), error) { return func() {}, nil }
