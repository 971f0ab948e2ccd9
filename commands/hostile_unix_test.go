//go:build unix

package commands

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/output"
)

// TestHostileFilesAreBounded: a mock file, its responses file or an
// --http-token @FILE that is /dev/zero, a named pipe nobody writes, or
// far too large, is refused at once (exit 2) rather than read without
// end or waited on.
func TestHostileFilesAreBounded(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.env.Cwd = t.TempDir()
	cwd := w.env.Cwd
	os.WriteFile(filepath.Join(cwd, "s.json"), []byte(`{"mcpvSnapshot":1,"tools":[],"prompts":[],"resourceTemplates":[]}`), 0o644)
	if err := syscall.Mkfifo(filepath.Join(cwd, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(cwd, "huge.txt"), []byte(strings.Repeat("t", 64<<10)), 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"mock", "/dev/zero"}, "not a regular file but a character device"},
		{[]string{"mock", "fifo"}, "not a regular file but a named pipe"},
		{[]string{"mock", "s.json", "--responses", "/dev/zero"}, "not a regular file but a character device"},
		{[]string{"mock", "s.json", "--responses", "fifo"}, "not a regular file but a named pipe"},
		{[]string{"mock", "s.json", "--http", "127.0.0.1:0", "--http-token", "@/dev/zero"}, "not a regular file but a character device"},
		{[]string{"mock", "s.json", "--http", "127.0.0.1:0", "--http-token", "@fifo"}, "not a regular file but a named pipe"},
		{[]string{"mock", "s.json", "--http", "127.0.0.1:0", "--http-token", "@huge.txt"}, "larger than 4 KiB"},
		{args([]string{"serve", "--http", "127.0.0.1:0", "--http-token", "@fifo"}, demo()), "not a regular file but a named pipe"},
	} {
		done := make(chan result, 1)
		go func() { done <- w.mcpv(t, "", tt.args...) }()
		select {
		case r := <-done:
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: still running after 20s", tt.args)
		}
	}
}

// A token given on the command line is taken, with a warning: every user
// of the machine can read a process's arguments. MCPV_HTTP_TOKEN is the
// token when the flag is not given.
func TestHTTPTokenSources(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	plan := func(token string) (string, string) {
		var errb bytes.Buffer
		out := newConsole(output.NewStreams(strings.NewReader(""), io.Discard, &errb), &outputFlags{}, env)
		var tokens []string
		if token != "" {
			tokens = []string{token}
		}
		p, err := listenFlags{HTTP: "127.0.0.1:0", HTTPToken: tokens}.listenPlan(out, false, false)
		if err != nil {
			t.Fatal(err)
		}
		return p.token(), errb.String()
	}
	if token, stderr := plan("argv-token"); token != "argv-token" || !strings.Contains(stderr, "mcpv: warning: --http-token on the command line can be read by every user") {
		t.Errorf("on the command line: %q, stderr %q", token, stderr)
	}
	env.Environ = append(env.Environ, "MCPV_HTTP_TOKEN=env-token")
	if token, stderr := plan(""); token != "env-token" || stderr != "" {
		t.Errorf("MCPV_HTTP_TOKEN: %q, stderr %q", token, stderr)
	}
}

// A server that writes the session's secret on stderr where mcpv clips a
// quoted line, then exits: the error (ping, stderr not shown) and the
// connection walk (check --connect-only) mask it whole, not its start,
// and the clip quotes no part of the word it falls in ("more").
func TestStderrSecretCutByTheClip(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-abcdefghijklmnop1234"
	server := []string{"--env", "API_TOKEN=" + secret, "--", "sh", "-c", `printf '%0290d' 0 >&2; echo "$API_TOKEN and more" >&2; exit 3`}
	for _, cmd := range [][]string{args([]string{"--quiet", "ping"}, server), args([]string{"check", "--connect-only"}, server)} {
		r := mcpv(t, "", cmd...)
		if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "*** and… (5 more bytes)") || strings.Contains(r.stdout+r.stderr, "sk-") {
			t.Errorf("%s: exit %d, the secret not masked whole:\n%s%s", cmd[1], r.code, r.stdout, r.stderr)
		}
	}
}

// A server that says why it stops and then prints 48 lines of usage: the
// error of a quiet command quotes the line that says why, which the last
// ten lines of stderr leave out, before them.
func TestStderrCauseBeforeTheUsage(t *testing.T) {
	t.Parallel()
	server := []string{"--", "sh", "-c", `echo "Error: unknown option --stdio" >&2; for i in $(seq 48); do echo "  --option-$i   what option $i does" >&2; done; exit 1`}
	r := mcpv(t, "", args([]string{"--quiet", "ping"}, server)...)
	if r.code != 4 || !strings.Contains(r.stderr, "Error: unknown option --stdio") || !strings.Contains(r.stderr, "--option-48") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 4 quoting the server's error line and its last line", r.code, r.stderr)
	}
}
