package connect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// silentEnv makes this test binary a server that reads its stdin and
// writes nothing (TestMain), until its stdin ends.
const silentEnv = "MCPV_CONNECT_TEST_SILENT"

// TestMain lets this test binary be the servers Open starts: mcptest's
// fake server, or a silent one.
func TestMain(m *testing.M) {
	if mcptest.RunIfRequested() {
		return
	}
	if os.Getenv(silentEnv) != "" {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(mcptest.GuardSuite(m.Run))
}

// fakeServer is the settings of a stdio session with mcptest's fake
// server (this test binary) behaving as behaviours says; what it receives
// is logged to the file log returns.
func fakeServer(t *testing.T, behaviours string) (s *Settings, log func() string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "received")
	s = &Settings{Name: "fake", Command: []string{os.Args[0]}, Env: append(os.Environ(), mcptest.EnvVar+"="+behaviours, mcptest.EnvLog+"="+path),
		Timeout: time.Minute, ConnectTimeout: time.Minute, ProtocolEra: "auto", Framing: mcp.FramingAuto}
	return s, func() string { b, _ := os.ReadFile(path); return string(b) }
}

// status records what the progress line shows; mu guards shown.
type status struct {
	mu    sync.Mutex
	shown []string
}

func (s *status) Set(text string) { s.mu.Lock(); s.shown = append(s.shown, text); s.mu.Unlock() }
func (s *status) Clear()          { s.Set("") }
func (s *status) Enabled() bool   { return false }

// Replace shows text if the line shows old, as output.StatusLine does.
func (s *status) Replace(old, text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	shown := ""
	if len(s.shown) > 0 {
		shown = s.shown[len(s.shown)-1]
	}
	if shown != old {
		return false
	}
	s.shown = append(s.shown, text)
	return true
}

// Open starts a stdio server and negotiates with it: --verbose traces
// every message on stderr; the server's log messages show there, unless
// --quiet; progress reaches the status line; every notification reaches
// --events and the command's own hook; the session closes on Close.
func TestOpenStdio(t *testing.T) {
	t.Parallel()
	for _, quiet := range []bool{false, true} {
		s, received := fakeServer(t, "plain,log-flood=20")
		s.Verbose, s.Quiet = true, quiet
		var stderr, events mcptest.Buffer
		st := &status{}
		var seen []string
		h := Hooks{Client: mcp.Implementation{Name: "mcpv-test", Version: "1"}, Stderr: &stderr, Status: st, Events: NewEventLog(&events, nil),
			OnNotification: func(method string, _ json.RawMessage) { seen = append(seen, method) }}
		c, err := Open(t.Context(), s, Env{Cwd: t.TempDir(), GOOS: "linux"}, h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Client.Call(t.Context(), "tools/call", json.RawMessage(`{"name":"x","_meta":{"progressToken":"p"}}`)); err != nil {
			t.Fatal(err)
		}
		c.Event("mcpv/task", json.RawMessage(`{"taskId": "t1"}`))
		c.Close()
		if !strings.Contains(received(), `"name":"mcpv-test"`) {
			t.Errorf("the server was not told who mcpv is:\n%s", received())
		}
		out := stderr.String()
		if !strings.Contains(out, "mcpv: -> {") || !strings.Contains(out, "mcpv: <- {") {
			t.Errorf("--verbose traced nothing:\n%s", out)
		}
		if logged := strings.Contains(out, "server[info] flood: log 19\n"); logged == quiet {
			t.Errorf("quiet %v: the server's log message shown %v:\n%s", quiet, logged, out)
		}
		if got := strings.Count(events.String(), `"method":"notifications/message"`); got != 20 {
			t.Errorf("--events has %d log messages, want 20:\n%s", got, events.String())
		}
		if !strings.Contains(events.String(), `"method":"mcpv/task","params":{"taskId":"t1"}}`) {
			t.Errorf("--events lacks mcpv's own event:\n%s", events.String())
		}
		if slices.Index(seen, "notifications/progress") < 0 || len(seen) != 22 {
			t.Errorf("the hook saw %d notifications: %q", len(seen), seen)
		}
		if !slices.Contains(st.shown, "mcpv: progress 2") {
			t.Errorf("the progress line showed %q", st.shown)
		}
	}
}

// --log-level is sent to a server that declares logging, and only then;
// to one that does not, mcpv says so.
func TestOpenLogLevel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, declared := range []bool{true, false} {
		spec := `{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`
		if declared {
			spec = `{"capabilities":{"tools":{},"logging":{}},"answers":{"logging/setLevel":{}},"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`
		}
		path := filepath.Join(dir, "spec.json")
		os.WriteFile(path, []byte(spec), 0o600)
		s, received := fakeServer(t, "spec="+path)
		s.Answers.LogLevel = "debug"
		var log mcptest.Buffer
		c, err := Open(t.Context(), s, Env{GOOS: "linux"}, Hooks{Log: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		if sent := strings.Contains(received(), `"method":"logging/setLevel","params":{"level":"debug"}`); sent != declared {
			t.Errorf("declared %v: setLevel sent %v:\n%s", declared, sent, received())
		}
		if warned := strings.Contains(log.String(), "the server does not declare logging; --log-level debug not sent"); warned == declared {
			t.Errorf("declared %v: warned %v:\n%s", declared, warned, log.String())
		}
	}
}

// A server that writes nothing within --connect-timeout is a connect
// timeout, and the error says what a silent server may need; it is
// stopped.
func TestOpenSilentServer(t *testing.T) {
	t.Parallel()
	s := &Settings{Command: []string{os.Args[0]}, Env: append(os.Environ(), silentEnv+"=1"), ConnectTimeout: 300 * time.Millisecond,
		ProtocolEra: "auto", Framing: mcp.FramingAuto}
	_, err := Open(t.Context(), s, Env{GOOS: "linux"}, Hooks{})
	var te *mcp.TimeoutError
	if !errors.As(err, &te) || !te.Connect || te.Setting != "--connect-timeout" || !strings.Contains(te.Hint, "--framing content-length") {
		t.Fatalf("Open = %v, want a connect timeout that names --framing", err)
	}
}

// What Open is given that cannot work is refused before anything starts.
func TestOpenRefusesBeforeStarting(t *testing.T) {
	t.Parallel()
	env := Env{Cwd: t.TempDir(), GOOS: "linux", ReadFile: func(p string) ([]byte, error) { return []byte("[1]"), nil }}
	for _, tt := range []struct {
		name string
		s    Settings
		want string
	}{
		{"a root that is not a directory", Settings{Command: []string{"x"}, Answers: Answers{Roots: []string{"nope"}}}, "--root nope: not a directory"},
		{"answers that are not an object", Settings{Command: []string{"x"}, Answers: Answers{AnswersFile: "a.json"}}, "--answers a.json: want a JSON object: "},
		{"a URL mcpv cannot use", Settings{URL: "ftp://h/mcp", Auth: Auth{Mode: "none"}}, ""},
	} {
		_, err := Open(t.Context(), &tt.s, env, Hooks{})
		if !usageErr(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want a usage error %q", tt.name, err, tt.want)
		}
	}
}

// call --detach keeps an HTTP session: Keep records it, owner-only, and
// leaves it open (no DELETE); --session-id resumes it without a new
// initialize; an id that was not kept is refused.
func TestKeepAndResume(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	state := t.TempDir()
	env := Env{Environ: []string{"XDG_STATE_HOME=" + state}, Cwd: state, GOOS: "linux"}
	s := &Settings{URL: srv.URL, Mode: mcp.ModeStreamable, Auth: Auth{Mode: "none"}, ProtocolEra: "legacy", Timeout: time.Minute, ConnectTimeout: time.Minute}
	c, err := Open(t.Context(), s, env, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	sid, err := c.Keep()
	if err != nil || sid != "s1" {
		t.Fatalf("Keep = %q, %v", sid, err)
	}
	c.Close()
	dir, _ := env.stateDir("http-sessions")
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("kept: %v", entries)
	}
	if fi, _ := entries[0].Info(); fi.Mode().Perm() != 0o600 {
		t.Errorf("the kept session's file is %v, want 0600", fi.Mode().Perm())
	}

	resumed := *s
	resumed.ResumeSession = "s1"
	c, err = Open(t.Context(), &resumed, env, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Client.Call(t.Context(), "ping", nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, r.Method+" "+r.RPCMethod+" "+r.SessionID)
	}
	for i, line := range got {
		if strings.HasPrefix(line, "DELETE") {
			t.Errorf("request %d deleted the kept session: %q", i, got)
		}
	}
	if n := slices.Index(got, "POST ping s1"); n < 0 || slices.Contains(got[n:], "POST initialize ") {
		t.Errorf("the resumed session: %q", got)
	}

	resumed.ResumeSession = "s9"
	if _, err := Open(t.Context(), &resumed, env, Hooks{}); !usageErr(err) || !strings.Contains(err.Error(), `no session "s9" of `) {
		t.Errorf("an id never kept: %v", err)
	}
}

// A resumed session is a client with the options of the one that was
// kept: its requests' --timeout runs on the run's clock (Env.AfterFunc),
// as every other client's does.
func TestResumeKeepsTheClientOptions(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	state := t.TempDir()
	var mu sync.Mutex // guards started
	var started []time.Duration
	env := Env{Environ: []string{"XDG_STATE_HOME=" + state}, Cwd: state, GOOS: "linux",
		AfterFunc: func(d time.Duration, f func()) Timer {
			mu.Lock()
			started = append(started, d)
			mu.Unlock()
			return time.AfterFunc(d, f)
		}}
	const timeout = 37 * time.Minute
	s := &Settings{URL: srv.URL, Mode: mcp.ModeStreamable, Auth: Auth{Mode: "none"}, ProtocolEra: "legacy", Timeout: timeout, ConnectTimeout: time.Hour}
	c, err := Open(t.Context(), s, env, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	sid, err := c.Keep()
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	resumed := *s
	resumed.ResumeSession = sid
	if c, err = Open(t.Context(), &resumed, env, Hooks{}); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mu.Lock()
	started = nil
	mu.Unlock()
	if _, err := c.Client.Call(t.Context(), "ping", nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(started, timeout) {
		t.Errorf("the resumed session's request started %v on the run's clock, want its --timeout %v", started, timeout)
	}
}

// A stdio session, or one of the modern era, has no session to keep.
func TestKeepNothing(t *testing.T) {
	t.Parallel()
	s, _ := fakeServer(t, "plain")
	c, err := Open(t.Context(), s, Env{GOOS: "linux"}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if sid, err := c.Keep(); sid != "" || err != nil {
		t.Errorf("Keep of a stdio session = %q, %v", sid, err)
	}
}

// The events log writes one line per event, its params compacted; a nil
// log writes nothing.
func TestEventLog(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	l := NewEventLog(&b, nil)
	l.Write("notifications/progress", json.RawMessage("{\n  \"progress\": 1\n}"))
	l.Write("notifications/initialized", nil)
	(*EventLog)(nil).Write("x", nil)
	sc := bufio.NewScanner(&b)
	var lines []map[string]json.RawMessage
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 || string(lines[0]["params"]) != `{"progress":1}` || lines[1]["params"] != nil || string(lines[1]["method"]) != `"notifications/initialized"` {
		t.Errorf("lines %q", b.String())
	}
	if _, err := time.Parse(time.RFC3339Nano, strings.Trim(string(lines[0]["time"]), `"`)); err != nil {
		t.Errorf("time: %v", err)
	}
}

// The events log masks secrets as the trace does: a secret-named member's
// value, and what the run's mask knows (a token a server echoes back in a
// log message).
func TestEventLogMasksSecrets(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	scrub := redact.NewScrubber(nil)
	scrub.Add("tok-4d1f9c2a77e0")
	l := NewEventLog(&b, scrub.Mask)
	l.Write("notifications/message", json.RawMessage(`{"level":"info","data":{"api_key":"sk-live-secretvalue","note":"sent tok-4d1f9c2a77e0"}}`))
	if got := b.String(); strings.Contains(got, "sk-live-secretvalue") || strings.Contains(got, "tok-4d1f9c2a77e0") || !strings.Contains(got, `"level":"info"`) {
		t.Errorf("events line %q", got)
	}
}

// What a session sends under a secret's name is told to Sent before any
// hook sees the message go (the trace, --verbose), so that nothing it
// writes, nor the answer that echoes it, shows it; what it sends under
// other names is not.
func TestOpenToldWhatItSends(t *testing.T) {
	t.Parallel()
	s, _ := fakeServer(t, "echo=error")
	s.Verbose = true
	var mu sync.Mutex
	var events []string
	note := func(e string) { mu.Lock(); events = append(events, e); mu.Unlock() }
	h := Hooks{Stderr: io.Discard,
		Sent: func(values ...string) { note("sent " + strings.Join(values, ",")) },
		Trace: func(out bool, msg []byte) {
			note("trace " + strconv.FormatBool(out) + " " + strconv.FormatBool(strings.Contains(string(msg), "hunter2!")))
		}}
	c, err := Open(t.Context(), s, Env{Cwd: t.TempDir(), GOOS: "linux"}, h)
	if err != nil {
		t.Fatal(err)
	}
	c.Client.Call(t.Context(), "tools/call", json.RawMessage(`{"name":"x","arguments":{"user":"ada","db":{"password":"hunter2!"}}}`))
	c.Close()
	mu.Lock()
	defer mu.Unlock()
	i := slices.Index(events, "sent hunter2!")
	if i < 0 || i+1 >= len(events) || events[i+1] != "trace true true" || slices.ContainsFunc(events, func(e string) bool { return strings.Contains(e, "ada") }) {
		t.Errorf("events %q", events)
	}
}
