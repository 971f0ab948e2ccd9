package commands

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/output"
)

func TestTerminalOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		env          []string
		flags        []string
		wantColor    bool
		wantIndented bool
	}{
		{"terminal", nil, nil, true, true},
		{"NO_COLOR", []string{"NO_COLOR=1"}, nil, false, true},
		{"TERM=dumb", []string{"TERM=dumb"}, nil, false, true},
		{"--color never", nil, []string{"--color", "never"}, false, true},
		{"--compact", nil, []string{"-c"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			ios := output.NewStreams(strings.NewReader(""), &out, &errb)
			ios.OutTTY = true
			env := with(testEnv(t), "NO_COLOR=", "TERM=xterm")
			env = with(env, tt.env...)
			code := run(context.Background(), args(tt.flags, []string{"call", "echo", "message=hi"}, demo()), ios, env)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			if got := strings.Contains(out.String(), "\x1b["); got != tt.wantColor {
				t.Errorf("colour = %v, want %v: %q", got, tt.wantColor, out.String())
			}
			if got := strings.Contains(out.String(), "\n  "); got != tt.wantIndented {
				t.Errorf("indented = %v, want %v: %q", got, tt.wantIndented, out.String())
			}
		})
	}
}

func TestPipeOutputForcedColour(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"--color", "always", "ping"}, demo())...)
	if r.code != 0 || !strings.Contains(r.stdout, "\x1b[") || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("code %d, stdout %q", r.code, r.stdout)
	}
}

// --jq sees the environment mcpv was given, as jq does.
func TestJqEnvironment(t *testing.T) {
	t.Parallel()
	env := with(testEnv(t), "MCPV_JQ_TEST=from the run")
	r := mcpvIn(t, env, "", args([]string{"ping", "-q", "$ENV.MCPV_JQ_TEST"}, fake("plain"))...)
	if r.code != 0 || r.stdout != `"from the run"`+"\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	in := "ping -q env.MCPV_JQ_TEST\n"
	r = mcpvIn(t, env, in, args([]string{"batch"}, fake("plain"))...)
	if r.code != 0 || r.stdout != `{"line":1,"result":"from the run"}`+"\n" {
		t.Errorf("batch: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// At a terminal, the text of a result (--text, -r) cannot steer it: an
// escape that would set the clipboard or clear the screen is shown
// escaped. Piped, the text is what the server sent.
func TestTerminalShowsResultEscapes(t *testing.T) {
	t.Parallel()
	const msg = "hi\x1b]52;c;ZXZpbA==\x07\x1b[2J"
	for _, flags := range [][]string{{"--text"}, {"-q", ".structuredContent.message", "-r"}} {
		for _, tty := range []bool{true, false} {
			var out, errb bytes.Buffer
			ios := output.NewStreams(strings.NewReader(""), &out, &errb)
			ios.OutTTY = tty
			code := run(context.Background(), args(append([]string{"call", "echo", "message=" + msg}, flags...), demo()), ios, with(testEnv(t), "NO_COLOR=1"))
			want := msg + "\n"
			if tty {
				want = `hi\x1b]52;c;ZXZpbA==\x07\x1b[2J` + "\n"
			}
			if code != 0 || out.String() != want {
				t.Errorf("%v at a terminal %v: exit %d, stdout %q, want %q (stderr %q)", flags, tty, code, out.String(), want, errb.String())
			}
		}
	}
}
