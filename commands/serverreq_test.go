package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/output"
)

// toolText returns the text of the first content block of a tool result.
func toolText(t *testing.T, stdout string) string {
	t.Helper()
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("not a tool result: %q", stdout)
	}
	return res.Content[0].Text
}

// jsonEqual compares JSON texts as values (the go-sdk re-encodes what it got).
func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

func TestRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := mcpv(t, "", args([]string{"--root", dir, "call", "roots"}, demoLegacy())...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	uri := url.URL{Scheme: "file", Path: "/" + strings.TrimPrefix(filepath.ToSlash(dir), "/")} // file:///tmp/x, file:///C:/x
	want := `{"roots":[{"uri":"` + uri.String() + `","name":"` + filepath.Base(dir) + `"}]}`
	if got := toolText(t, r.stdout); !jsonEqual(got, want) {
		t.Errorf("roots = %s, want %s", got, want)
	}
	// Without --root, mcpv declares no roots and refuses the request.
	r = mcpv(t, "", args([]string{"call", "roots"}, demoLegacy())...)
	if r.code != 1 || !strings.Contains(r.stdout, "Method not found") {
		t.Errorf("without --root: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := mcpv(t, "", args([]string{"--root", "/nonexistent/dir", "ping"}, demoLegacy())...); r.code != 2 {
		t.Errorf("bad --root: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestSamplingCommand(t *testing.T) {
	t.Parallel()
	seen := filepath.Join(t.TempDir(), "params.json")
	cmd := shellThen(shellSaveStdin(seen), shellEcho(`{"role":"assistant","content":{"type":"text","text":"hi from the model"},"model":"fake-1"}`))
	r := mcpv(t, "", args([]string{"--sampling-cmd", cmd, "call", "sample", "prompt=say hi"}, demoLegacy())...)
	if r.code != 0 || !strings.Contains(toolText(t, r.stdout), `"hi from the model"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	params, _ := os.ReadFile(seen)
	if !strings.Contains(string(params), `"text":"say hi"`) || !strings.Contains(string(params), `"maxTokens":100`) {
		t.Errorf("the command got %s", params)
	}

	r = mcpv(t, "", args([]string{"--sampling-cmd", "echo not json", "call", "sample", "prompt=x"}, demoLegacy())...)
	if r.code != 1 || !strings.Contains(r.stderr, "--sampling-cmd printed no JSON object") {
		t.Errorf("bad output: exit %d, stderr %q", r.code, r.stderr)
	}
	r = mcpv(t, "", args([]string{"call", "sample", "prompt=x"}, demoLegacy())...)
	if r.code != 1 || !strings.Contains(r.stdout, "Method not found") {
		t.Errorf("without --sampling-cmd: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestElicitationAnswers(t *testing.T) {
	t.Parallel()
	answers := filepath.Join(t.TempDir(), "answers.json")
	os.WriteFile(answers, []byte(`{"name":"Grace","age":85}`), 0o644)
	tests := []struct {
		name  string
		flags []string
		want  string
	}{
		{"answers typed by the schema", []string{"--answer", "name=Bob", "--answer", "age=042"},
			`{"action":"accept","content":{"name":"Bob","age":42,"color":"green","subscribe":false}}`},
		{"answers file", []string{"--answers", answers},
			`{"action":"accept","content":{"name":"Grace","age":85,"color":"green","subscribe":false}}`},
		{"accept cannot invent a required age", []string{"--elicitation", "accept"}, `{"action":"decline"}`},
		{"no terminal declines", nil, `{"action":"decline"}`},
		{"cancel policy", []string{"--elicitation", "cancel"}, `{"action":"cancel"}`},
		{"invalid answer is not sent", []string{"--answer", "name=Bob", "--answer", "age=200"}, `{"action":"decline"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mcpv(t, "", args(tt.flags, []string{"call", "ask"}, demo())...)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if got := toolText(t, r.stdout); !jsonEqual(got, tt.want) {
				t.Errorf("the server got %s, want %s\nstderr: %s", got, tt.want, r.stderr)
			}
			if !strings.Contains(r.stderr, "asks: Who are you?") {
				t.Errorf("stderr does not say what the server asked: %q", r.stderr)
			}
		})
	}
}

func TestLogMessages(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"--log-level", "warning", "call", "log", "message=disk almost full", "level=error"}, demo())...)
	if r.code != 0 || !strings.Contains(r.stderr, "server[error] demo: disk almost full\n") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	r = mcpv(t, "", args([]string{"--log-level", "warning", "call", "log", "message=chatter", "level=info"}, demo())...)
	if r.code != 0 || strings.Contains(r.stderr, "chatter") {
		t.Errorf("a message below the level was shown: %q", r.stderr)
	}
	r = mcpv(t, "", args([]string{"--log-level", "debug", "ping"}, fake("plain"))...)
	if r.code != 0 || !strings.Contains(r.stderr, "does not declare logging") {
		t.Errorf("no logging capability: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Every progress notification of a call goes to --events, in order; the
// cap (--max-timeout) ends a call that progress keeps alive. That progress
// restarts the timeout is mcp's TestProgressRestartsTheTimeout, on a clock
// of its own: a timeout shorter than the call, restarted by each step,
// fails when a loaded machine delays one step past it.
func TestEventsAndProgress(t *testing.T) {
	testkit.SkipLong(t, "a call the 1.5 s cap ends")
	t.Parallel()
	events := filepath.Join(t.TempDir(), "events.ndjson")
	r := mcpv(t, "", args([]string{"--events", events, "--timeout", "1h", "call", "slow", "seconds:=0.3", "steps:=6"}, demo())...)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	data, _ := os.ReadFile(events)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d event lines, want 6:\n%s", len(lines), data)
	}
	for i, l := range lines {
		var ev struct {
			Time   string `json:"time"`
			Method string `json:"method"`
			Params struct {
				Token    string  `json:"progressToken"`
				Progress float64 `json:"progress"`
				Total    float64 `json:"total"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Time == "" || ev.Method != "notifications/progress" ||
			ev.Params.Token != "mcpv-1" || ev.Params.Progress != float64(i+1) || ev.Params.Total != 6 {
			t.Errorf("event %d = %s", i, l)
		}
	}
	// The absolute cap ends a call of an hour that reports progress every
	// second, whatever the timeout (an hour too) would allow.
	r = mcpv(t, "", args([]string{"--timeout", "1h", "--max-timeout", "1.5s", "call", "slow", "seconds:=3600", "steps:=3600"}, demo())...)
	if r.code != 124 || !strings.Contains(r.stderr, "cap (--max-timeout)") {
		t.Errorf("cap: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestProgressLineOnATerminal(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	ios := output.NewStreams(strings.NewReader(""), &out, &errb)
	ios.Status = output.NewStatusLine(&errb, true)
	ios.Err, ios.ErrTTY = ios.Status, true
	code := run(context.Background(), args([]string{"--elicitation", "decline", "call", "slow", "seconds:=0.3", "steps:=3"}, demo()), ios, testEnv(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"mcpv: progress 1/3 (33%) step 1 of 3", "mcpv: progress 3/3 (100%) step 3 of 3"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q: %q", want, errb.String())
		}
	}
	if !strings.HasSuffix(errb.String(), "\r\x1b[K") {
		t.Errorf("the status line was not cleared: %q", errb.String())
	}
	if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), "done after 0.3s") {
		t.Errorf("stdout %q", out.String())
	}
}

// After Ctrl-C the progress line is gone for good: progress that still
// arrives while the server stops is not drawn, and the terminal is left on
// a clean line.
func TestProgressLineStopsAtAnInterrupt(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	term := newSignalWriter("mcpv: progress 1/")
	ios := output.NewStreams(strings.NewReader(""), &out, term)
	ios.Status = output.NewStatusLine(term, true)
	ios.Err, ios.ErrTTY = ios.Status, true
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, args([]string{"--elicitation", "decline", "call", "slow", "seconds:=2", "steps:=40"}, demo()), ios, testEnv(t))
	}()
	select {
	case <-term.seen:
	case <-time.After(testWait):
		t.Fatalf("no progress shown: %q", term)
	}
	cancel(ErrInterrupted)
	if code := <-done; code != 130 {
		t.Fatalf("exit %d: %q", code, term)
	}
	shown := term.String()
	at := strings.Index(shown, "mcpv: interrupted")
	if at < 0 || strings.Contains(shown[at:], "mcpv: progress") || !strings.HasSuffix(shown, "\n") {
		t.Errorf("after the interrupt the terminal shows %q", shown[max(0, at-40):])
	}
}
