package commands

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/output"
)

// TestServeStdinAnsweredBeforeTheEnd: a client that writes its requests and
// closes stdin at once gets every answer before serve ends, with exit 0.
func TestServeStdinAnsweredBeforeTheEnd(t *testing.T) {
	t.Parallel()
	stdin := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":0.2,"steps":2}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"delete_all","arguments":{}}}
`
	r := mcpv(t, stdin, args([]string{"serve", "--deny-tools", "delete_*"}, demo())...)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d answers, want 3:\n%s", len(lines), r.stdout)
	}
	// Answered as each is done, in any order.
	for _, want := range []string{`"id":1,"result":{"protocolVersion":"2025-06-18"`, `"id":2,"result":{"content":[{"type":"text","text":"done after 0.2s"}]`, `"id":3,"error":{"code":-32602`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no answer %s in:\n%s", want, r.stdout)
		}
	}
}

func TestServeUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--isolate"}, "mcpv: serve: --isolate, --http-no-token and --http-tokens go with --http (see mcpv serve --help)\n"},
		{[]string{"serve", "--http-no-token"}, "mcpv: serve: --isolate, --http-no-token and --http-tokens go with --http (see mcpv serve --help)\n"},
		{[]string{"serve", "--allow-remote"}, "mcpv: serve: --http-token and --allow-remote go with --http (see mcpv serve --help)\n"},
		{[]string{"serve", "--http", "0.0.0.0:0", "--allow-remote", "--http-no-token"}, "mcpv: serve: --http-no-token goes without --http-token, --http-tokens and --allow-remote: beyond loopback a token is required (see mcpv serve --help)\n"},
		{[]string{"serve", "--http", "8808"}, "mcpv: --http 8808: give HOST:PORT, e.g. 127.0.0.1:8808 (see mcpv serve --help)\n"},
		{[]string{"serve", "--http", "192.0.2.1:0"}, "mcpv: --http 192.0.2.1:0: not a loopback address; add --allow-remote to serve beyond this machine, with a bearer token (see mcpv serve --help)\n"},
		{[]string{"serve", "--deny-tools", " "}, "mcpv: serve: --deny-tools: an empty pattern matches nothing (see mcpv serve --help)\n"},
		{[]string{"serve", "--allow-prompts", "a,,b"}, "mcpv: serve: --allow-prompts: an empty pattern matches nothing (see mcpv serve --help)\n"},
		{[]string{"serve", "--sse"}, "mcpv: serve: --allow-origin, --path, --sse and --no-card go with --http (see mcpv serve --help)\n"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--allow-origin", "http://a.example,*"}, "mcpv: serve: --allow-origin: \"*\" would admit every web page: name each origin (see mcpv serve --help)\n"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--path", "/a/\x1b[2J"}, "mcpv: serve: --path \"/a/\\x1b[2J\": it may hold letters, digits and -._~!$&'()*+,;=:@/ alone (see mcpv serve --help)\n"},
		{[]string{"serve", "--http", "127.0.0.1:0", "--path", "/%2e%2e/x"}, "mcpv: serve: --path \"/%2e%2e/x\": it may hold letters, digits and -._~!$&'()*+,;=:@/ alone (see mcpv serve --help)\n"},
	} {
		r := mcpv(t, "", args(tt.args, demo())...)
		if r.code != 2 || r.stderr != tt.want {
			t.Errorf("%v: exit %d, stderr %q; want 2, %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}

// TestServeStderrIsTheOperators: the server's log messages go to the
// client whose call they came with, not to serve's stderr, which stays
// for what its operator must act on.
func TestServeStderrIsTheOperators(t *testing.T) {
	t.Parallel()
	stdin := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}
`
	r := mcpv(t, stdin, args([]string{"serve"}, fake("log-flood=200"))...)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stdout, `"method":"notifications/message"`); n != 200 {
		t.Errorf("the client got %d log messages, want 200", n)
	}
	if r.stderr != "" {
		t.Errorf("serve's stderr: %.300q, want nothing", r.stderr)
	}
}

// A stdio serve whose server has not been initialized yet (it waits for
// the client's first request) ends at once when the client leaves or on
// Ctrl-C, even with a server that ignores stdin's end and SIGTERM: the
// grace periods, an hour each here, are for a server that got through
// start-up. (e2e has the same with real signals and serve's own grace.)
func TestServeEndsBeforeTheFirstRequest(t *testing.T) {
	unixOnly(t, "a server that ignores SIGTERM")
	t.Parallel()
	for _, how := range []string{"client leaves", "Ctrl-C"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			env := testEnv(t)
			env.Grace = time.Hour
			stdin, leave := io.Pipe()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			out, errb := newSyncBuffer(), newSyncBuffer()
			done := make(chan int, 1)
			go func() {
				argv := []string{"serve", "--env", mcptest.EnvVar + "=hang,ignore-exit", "--env", mcptest.EnvPid + "=" + pidFile, "--", os.Args[0]}
				done <- run(ctx, argv, output.NewStreams(stdin, out, errb), env)
			}()
			waitForFile(t, pidFile)
			start := time.Now()
			want := 0
			if how == "Ctrl-C" {
				cancel(ErrInterrupted)
				want = 130
			} else {
				leave.Close()
			}
			select {
			case code := <-done:
				if code != want {
					t.Errorf("exit %d, want %d; stderr:\n%s", code, want, errb.String())
				}
			case <-time.After(10 * time.Minute): // go test's own bound ends it first
				t.Fatal("serve still running")
			}
			if took := time.Since(start); took >= env.Grace/2 {
				t.Errorf("serve took %v to end", took)
			}
			b, _ := os.ReadFile(pidFile)
			if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid <= 0 || processExists(pid) {
				t.Errorf("the server (pid %q) is still there", b)
			}
		})
	}
}
