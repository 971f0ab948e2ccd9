package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/output"
)

func TestLoad(t *testing.T) {
	t.Parallel()
	nowhere := []string{"--", "/nonexistent/server"} // a run that starts it fails with 4
	mix := filepath.Join(t.TempDir(), "mix.yaml")
	os.WriteFile(mix, []byte("operations:\n  - run: call x\n    weight: 3\n  - run: list-tools\n"), 0o644)
	badMix := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(badMix, []byte("operations:\n  - run: call x\n    weight: 0\n"), 0o644)
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		outHas   string
		errHas   string
	}{
		{name: "thresholds that hold", args: args([]string{"load", "call", "x", "-n", "20", "--threshold", "p99<1h", "--threshold", "errors==0"}, fake("plain")),
			outHas: "thresholds\n  ok  p99<1h     "},
		{name: "a threshold that fails exits 1", args: args([]string{"load", "call", "x", "-n", "5", "--threshold", "errors<1%"}, fake("tool-error")),
			wantCode: 1, outHas: "FAILED  errors<1%  100%", errHas: "mcpv: threshold not met: errors<1% (100%)\n"},
		// A session for each iteration: how many of three workers take one
		// of nine shared iterations is the scheduler's to say.
		{name: "json, through --jq", args: args([]string{"load", "ping", "-c", "3", "-n", "9", "--new-session", "--format", "json", "-q", "[.concurrency, .ok, .latency_ms.count, .setup_ms.count]", "--compact"}, fake("plain")),
			wantOut: "[3,9,9,9]\n"},
		{name: "-c=N", args: args([]string{"load", "ping", "-c=2", "-n", "2", "--format", "json", "-q", ".concurrency"}, fake("plain")), wantOut: "2\n"},
		{name: "a mix", args: args([]string{"load", "--mix", mix, "-n", "8", "--format", "json", "--compact", "-q", "[.operations[] | .ok]"}, fake("plain")),
			wantOut: "[6,2]\n"},
		{name: "a bad threshold starts nothing", args: args([]string{"load", "ping", "--threshold", "p99<200"}, nowhere), wantCode: 2, errHas: "give a unit"},
		{name: "an unknown operation", args: args([]string{"load", "pong"}, nowhere), wantCode: 2, errHas: `unknown operation "pong"`},
		{name: "no operation", args: args([]string{"load"}, nowhere), wantCode: 2, errHas: "give an operation"},
		{name: "new and shared sessions", args: args([]string{"load", "ping", "--new-session", "--shared"}, nowhere), wantCode: 2, errHas: "--new-session and --shared"},
		// --find-max's first rate is --rate or 10: never one that is no rate.
		{name: "a negative rate", args: args([]string{"load", "ping", "--find-max", "p99<1s", "--rate=-5"}, nowhere), wantCode: 2, errHas: `--rate: "-5" is negative`},
		{name: "a rate that is no number", args: args([]string{"load", "ping", "--rate", "NaN"}, nowhere), wantCode: 2, errHas: `--rate: "NaN" is not a number`},
		{name: "stages of two kinds", args: args([]string{"load", "ping", "--stage", "1s:2", "--stage", "1s:5/s"}, nowhere), wantCode: 2, errHas: "every stage as sessions"},
		{name: "a bad stage", args: args([]string{"load", "ping", "--stage", "1s:2.5"}, nowhere), wantCode: 2, errHas: "a whole number of sessions"},
		{name: "a bad mix", args: args([]string{"load", "--mix", badMix}, nowhere), wantCode: 2, errHas: "bad.yaml:3:13: weight: want a whole number"},
		{name: "arguments checked by the schema before the run", args: args([]string{"load", "call", "typed", "n=x"}, fake("typed=1")), wantCode: 2, errHas: `argument n: "x" is not an integer`},
		{name: "a schema of 2^40 paths, typed once", args: args([]string{"load", "call", "shaped", "p1=s", "-n", "2", "--format", "json", "-q", ".ok"}, fake("schema=anyof:40")), wantOut: "2\n"},
		{name: "a schema that loops back, not checked", args: args([]string{"load", "call", "shaped", `p1:="s"`, "-n", "2", "--format", "json", "-q", ".ok"}, fake("schema=loop:40")),
			wantOut: "2\n", errHas: `tool "shaped"'s inputSchema is not checked`},
		{name: "a server that cannot start", args: args([]string{"load", "ping", "-n", "1"}, nowhere), wantCode: 4},
		{name: "a server without the capability", args: args([]string{"load", "list-tools", "-n", "1"}, fake("no-tools")), wantCode: 3, errHas: `"tools" capability`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, "", tt.args...)
			r.expect(t, tt.wantCode, tt.wantOut, tt.outHas, tt.errHas)
		})
	}
}

// Ctrl-C stops the run and prints what it measured, then exits 130.
func TestLoadInterrupted(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{StallAt: 20, Stall: time.Hour}})
	ctx, cancel := context.WithCancelCause(t.Context())
	go func() { // ends at the 20th call, or with the test
		calls := 0
		srv.Wait(ctx, func(r mcptest.HTTPRequest) bool {
			if r.RPCMethod == "tools/call" {
				calls++
			}
			return calls == 20
		})
		cancel(ErrInterrupted)
	}()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"load", "call", "x", "-d", "1h", "--format", "json", "-u", srv.URL}, output.NewStreams(strings.NewReader(""), &out, &errb), testEnv(t))
	if code != 130 {
		t.Errorf("exit code %d; want 130\nstderr: %s", code, errb.String())
	}
	var res struct {
		Interrupted bool  `json:"interrupted"`
		OK          int64 `json:"ok"`
		Errors      int64 `json:"errors"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || !res.Interrupted || res.OK != 19 || res.Errors != 0 {
		t.Errorf("report %s (%v); want interrupted after 19 calls, without errors", out.String(), err)
	}
	if !strings.HasSuffix(errb.String(), "mcpv: interrupted\n") {
		t.Errorf("stderr %q; want it to end with the interrupt", errb.String())
	}
}

func TestLoadShorts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"load ping -c 4", "load ping --concurrency 4"},
		{"load ping -c4", "load ping --concurrency=4"},
		{"-c load ping -c=4", "-c load ping --concurrency=4"},
		{"-u http://x load -c 2 ping", "-u http://x load --concurrency 2 ping"},
		{"--pretty call load -c", "--pretty call load -c"},
		{"call x -c", "call x -c"},
		{"--timeout 5s load -c 3", "--timeout 5s load --concurrency 3"},
	} {
		if got := strings.Join(loadShorts(strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("loadShorts(%s) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

// A server that echoes the credentials it was sent in its errors does not
// get them into the report: the examples of each kind of error are masked.
func TestLoadMasksSecrets(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" {
			return false
		}
		x.Reply(x.Error(-32000, "you sent "+x.Header.Get("Authorization")))
		return true
	}})
	for _, format := range []string{"text", "json"} {
		r := mcpv(t, "", "load", "call", "x", "-n", "3", "--format", format, "-H", "Authorization: Bearer s3cr3t-t0ken", "-u", srv.URL)
		r.expect(t, 0, "", "you sent", "")
		if strings.Contains(r.stdout+r.stderr, "s3cr3t-t0ken") {
			t.Errorf("--format %s: the token is in the output:\n%s%s", format, r.stdout, r.stderr)
		}
	}
}

// A server that echoes the credentials it was sent in its log messages
// (as level, logger and data, the data long enough that the report's clip
// of a message falls inside the token) and in its errors gets them into
// no report: not the text, the JSON nor the HTML page, not even a prefix
// of the token that the clip left.
func TestLoadMasksSecretsInLogsAndTheHTMLReport(t *testing.T) {
	t.Parallel()
	const token = "s3cr3t-t0ken-0123456789abcdef"
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" {
			return false
		}
		sent := strings.TrimPrefix(x.Header.Get("Authorization"), "Bearer ")
		data, _ := json.Marshal(strings.Repeat("x", 190) + sent)
		sse := x.SSE()
		sse.Event("", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"`+sent+`","logger":"`+sent+`","data":`+string(data)+`}}`)
		sse.Event("", x.Error(-32000, "you sent "+sent))
		return true
	}})
	page := filepath.Join(t.TempDir(), "page.html")
	for _, format := range []string{"text", "json"} {
		r := mcpv(t, "", "load", "call", "x", "-n", "3", "--format", format, "--report", page, "-H", "Authorization: Bearer "+token, "-u", srv.URL)
		r.expect(t, 0, "", "you sent", "")
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.stdout, "xxxxxxxxxx") || !strings.Contains(string(b), "xxxxxxxxxx") {
			t.Errorf("--format %s: the log message is not in the reports:\n%s", format, r.stdout)
		}
		for what, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "the HTML report": string(b)} {
			if strings.Contains(text, token[:6]) {
				t.Errorf("--format %s: %s holds the token or a part of it:\n%s", format, what, text)
			}
		}
	}
}

// The report into a pipe that closed early is no failure.
func TestLoadIntoAClosedPipe(t *testing.T) {
	t.Parallel()
	var errb bytes.Buffer
	ios := output.NewStreams(strings.NewReader(""), closedWriter{}, &errb)
	code := run(t.Context(), args([]string{"load", "ping", "-n", "2"}, fake("plain")), ios, testEnv(t))
	if code != 0 || errb.Len() > 0 {
		t.Errorf("exit %d, stderr %q; want 0 and nothing", code, errb.String())
	}
}

type closedWriter struct{}

func (closedWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// Of the run's many stdio servers, only the first's stderr is shown: N
// servers logging at once would bury the report and the progress line.
func TestLoadShowsTheFirstServersStderr(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"load", "ping", "-c", "3", "-n", "6", "--env", "V=server-says-hello"}, fake("stderr-env=V"))...)
	r.expect(t, 0, "", "", "")
	if n := strings.Count(r.stderr, "server-says-hello"); n != 1 {
		t.Errorf("the servers' stderr shown %d times; want once", n)
	}
}

// A mix file from a cloned repository names files to send the server: it
// may name only files in its own tree, as a test file may, so that none
// of the user's own (the process's environment, a private key, a file
// above the checkout) leaves through a load run. Nothing starts.
func TestLoadMixFilesStayInTheirTree(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	secret := filepath.Join(outside, "id_rsa")
	os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600)
	repo := filepath.Join(outside, "repo")
	os.MkdirAll(filepath.Join(repo, "data"), 0o755)
	os.WriteFile(filepath.Join(repo, "data", "body.txt"), []byte("in the tree"), 0o644)
	os.Symlink(secret, filepath.Join(repo, "data", "link.txt"))
	os.Symlink(outside, filepath.Join(repo, "up"))
	for _, tc := range []struct{ arg, errHas string }{
		{"text=@/proc/self/environ", "leads out of"},
		{"text=@" + secret, "leads out of"},
		{"text=@../id_rsa", "leads out of"},
		{"text=@~/.ssh/id_rsa", "no such file"},
		{"text=@data/link.txt", "symbolic link"},
		{"text=@up/id_rsa", "through a symbolic link"},
	} {
		mix := filepath.Join(repo, "mix.yaml")
		os.WriteFile(mix, []byte("operations:\n  - run: call x "+tc.arg+"\n"), 0o644)
		r := mcpv(t, "", args([]string{"load", "--mix", mix, "-n", "1"}, fake("plain"))...)
		r.expect(t, 2, "", "", tc.errHas)
		if !strings.Contains(r.stderr, "mix.yaml:2:") || strings.Contains(r.stdout+r.stderr, "PRIVATE KEY") {
			t.Errorf("%s: stderr %q; want the line of the mix file, and nothing read", tc.arg, r.stderr)
		}
	}
	// A file inside the tree is read, from the mix file's directory.
	mix := filepath.Join(repo, "mix.yaml")
	os.WriteFile(mix, []byte("operations:\n  - run: call x text=@data/body.txt\n"), 0o644)
	r := mcpv(t, "", args([]string{"load", "--mix", mix, "-n", "2", "--format", "json", "-q", ".ok"}, fake("plain"))...)
	r.expect(t, 0, "2\n", "", "")
}

// An empty --threshold (an unset variable in CI) or --stage is a mistake,
// not no threshold: exit 2 before any server starts.
func TestLoadEmptyListFlags(t *testing.T) {
	t.Parallel()
	nowhere := []string{"--", "/nonexistent/server"}
	for _, tc := range [][]string{
		{"--threshold", ""},
		{"--threshold", " "},
		{"--threshold", "p99<1s,"},
		{"--threshold", "p99<1s", "--threshold", ""},
		{"--stage", ""},
		{"--threshold", "p99"},
		{"--threshold", "p99<"},
		{"--threshold", "<1s"},
	} {
		r := mcpv(t, "", args([]string{"load", "ping"}, tc, nowhere)...)
		r.expect(t, 2, "", "", "mcpv: load: --")
	}
	// Commas still separate thresholds.
	r := mcpv(t, "", args([]string{"load", "ping", "-n", "2", "--threshold", "p99<1h,errors==0", "--format", "json", "-q", "[.thresholds[].ok]", "--compact"}, fake("plain"))...)
	r.expect(t, 0, "[true,true]\n", "", "")
}

// A server that logs every call (a thousand messages a call here) does
// not bury the report: its messages are counted by level, a few shown,
// and stderr stays short.
func TestLoadChattyServer(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"load", "call", "x", "-c", "2", "-n", "10"}, fake("log-flood=1000"))...)
	r.expect(t, 0, "", "server log messages: ", "")
	if len(r.stderr) > 2000 || strings.Contains(r.stderr, "log 999") {
		t.Errorf("stderr holds %d bytes; want the log messages left out:\n%.2000s", len(r.stderr), r.stderr)
	}
	if !strings.Contains(r.stdout, "  server[info] flood: log 0\n") {
		t.Errorf("report %q; want the first message shown", r.stdout)
	}
	r = mcpv(t, "", args([]string{"load", "call", "x", "-c", "2", "-n", "10", "--format", "json", "-q", "[.logs.count, .logs.levels.info + .logs.dropped, (.logs.examples | length)]", "--compact"}, fake("log-flood=1000"))...)
	r.expect(t, 0, "[10000,10000,3]\n", "", "")
	// -v shows them as they come.
	r = mcpv(t, "", args([]string{"load", "call", "x", "-n", "1", "-v"}, fake("log-flood=5"))...)
	if !strings.Contains(r.stderr, "server[info] flood: log 4") {
		t.Errorf("-v: stderr %q; want the messages shown", r.stderr)
	}
}
