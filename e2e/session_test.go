//go:build unix && e2e

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// sessions is a private world for session keepers: its own runtime
// directory (so that the sockets of parallel tests never meet) and every
// keeper stopped at the end.
type sessions struct {
	t     *testing.T
	env   []string
	dir   string // the sockets
	state string // XDG_STATE_HOME: the logs
}

func newSessions(t *testing.T) *sessions {
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(rt, 0o700)
	state := filepath.Join(rt, "state")
	s := &sessions{t: t, env: append(os.Environ(), "XDG_RUNTIME_DIR="+rt, "XDG_STATE_HOME="+state), dir: filepath.Join(rt, "mcpv"), state: state}
	t.Cleanup(func() {
		s.mcpv("session", "stop", "--all")
		os.RemoveAll(rt)
	})
	return s
}

// mcpv runs mcpv to the end in the world.
func (s *sessions) mcpv(args ...string) (code int, stdout, stderr string) {
	r := s.start(args...)
	code, _ = r.wait(s.t, 60*time.Second)
	return code, r.stdout.String(), r.stderr.String()
}

func (s *sessions) start(args ...string) *run {
	r := &run{cmd: exec.Command(mcpvBin, args...)}
	r.cmd.Env = s.env
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { r.cmd.Process.Kill() })
	return r
}

// keeperPID starts session name on the fake server and returns the
// keeper's pid, from the JSON line session start prints.
func (s *sessions) startSession(name string, srv *server, flags ...string) int {
	s.t.Helper()
	args := append(append([]string{"session", "start", name}, flags...), srv.args()...)
	code, out, errs := s.mcpv(args...)
	var info struct {
		Name, Era string
		PID       int
	}
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil || info.Name != name || info.PID == 0 {
		s.t.Fatalf("session start: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	return info.PID
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil && !zombie(pid) }

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && strings.Contains(string(b), ") Z ")
}

func waitGone(pid int) bool {
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return false
}

// One session, many commands: state kept (a task made by one command is
// collected by another), sixteen commands at once each get their own
// answer, and stop leaves no process and no file behind.
func TestSessionManyCommands(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	srv := newServer(t, "tasks=working/completed")
	pid := w.startSession("tasks", srv)

	code, out, errs := w.mcpv("--session", "tasks", "call", "job", "--task", "--detach", "-r", "-q", ".task.taskId")
	id := strings.TrimSpace(out)
	if code != 0 || id == "" {
		t.Fatalf("detach: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = w.mcpv("--session", "tasks", "tasks", "result", id, "-r", "-q", ".content[0].text")
	if code != 0 || !strings.Contains(out, "job") {
		t.Errorf("tasks result in a later command: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if n := strings.Count(srv.received(), `"method":"initialize"`); n != 1 {
		t.Errorf("the server was initialized %d times, want once", n)
	}

	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := w.start("--session", "tasks", "call", "x", "--no-validate", "--args", fmt.Sprintf(`{"n":%d}`, i), "-q", ".arguments.n")
			code, _ := r.wait(t, 60*time.Second)
			if code != 0 || r.stdout.String() != fmt.Sprintf("%d\n", i) {
				t.Errorf("command %d: exit %d, stdout %q, stderr %q", i, code, r.stdout.String(), r.stderr.String())
			}
		}()
	}
	wg.Wait()

	code, out, _ = w.mcpv("session", "list", "-r", "-q", ".sessions[] | [.name, .state, .era, .pid] | @tsv")
	if code != 0 || out != fmt.Sprintf("tasks\tready\tlegacy\t%d\n", pid) {
		t.Errorf("session list: exit %d, %q", code, out)
	}
	code, out, errs = w.mcpv("session", "stop", "--all")
	if code != 0 || out != `{"stopped":["tasks"]}`+"\n" {
		t.Errorf("session stop: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if !waitGone(pid) || !srv.gone(t) {
		t.Error("a process outlived session stop")
	}
	if _, err := os.Stat(filepath.Join(w.dir, "tasks.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is still there: %v", err)
	}
	code, _, errs = w.mcpv("--session", "tasks", "ping")
	if code != 4 || !strings.Contains(errs, `no session "tasks" is running`) {
		t.Errorf("after stop: exit %d, stderr %q", code, errs)
	}
}

// Ctrl-C in one command cancels its request on the wire and nothing else:
// another command on the session goes on, and the session stays.
func TestSessionCtrlCCancelsOneCommand(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	srv := newServer(t, "hang")
	w.startSession("h", srv)
	r := w.start("--session", "h", "call", "slow", "--no-validate")
	srv.waitFor(t, `"tools/call"`)
	if code, out, errs := w.mcpv("--session", "h", "list-tools", "-c", "-q", "[.tools[].name]"); code != 0 || out != `["tool0","x"]`+"\n" {
		t.Errorf("a second command meanwhile: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	r.cmd.Process.Signal(os.Interrupt)
	if code, _ := r.wait(t, 10*time.Second); code != 130 {
		t.Errorf("exit code %d, want 130; stderr:\n%s", code, r.stderr.String())
	}
	srv.waitFor(t, `"method":"notifications/cancelled"`)
	if code, out, errs := w.mcpv("--session", "h", "ping"); code != 0 || out != "{}\n" {
		t.Errorf("the session after Ctrl-C: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// A server that dies under a live session ends it: the command waiting
// gets exit 4 with why, and the keeper does not stay.
func TestSessionServerKilled(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	srv := newServer(t, "hang")
	pid := w.startSession("k", srv)
	r := w.start("--session", "k", "call", "slow", "--no-validate")
	srv.waitFor(t, `"tools/call"`)
	b, _ := os.ReadFile(srv.pid)
	spid, _ := strconv.Atoi(string(b))
	syscall.Kill(spid, syscall.SIGKILL)
	code, _ := r.wait(t, 15*time.Second)
	if code != 4 || !strings.Contains(r.stderr.String(), "session k: the server's session ended") {
		t.Errorf("exit %d, stderr %q", code, r.stderr.String())
	}
	if !waitGone(pid) {
		t.Error("the keeper outlived its server")
	}
}

// A keeper ends by itself after --idle without commands.
func TestSessionIdle(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	srv := newServer(t, "plain")
	pid := w.startSession("idle", srv, "--idle", "300ms")
	if !waitGone(pid) || !srv.gone(t) {
		t.Fatal("the keeper did not end after --idle")
	}
	if code, out, _ := w.mcpv("session", "list", "-c"); code != 0 || out != `{"sessions":[]}`+"\n" {
		t.Errorf("session list after idle expiry: %d %q", code, out)
	}
}

// A session that cannot open says why as a one-shot command would, with
// its exit code, and leaves no keeper; flags that shape a session are
// refused on a command that goes through one.
func TestSessionStartFailsLikeOneShot(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	srv := newServer(t, "crash,version=1999-01-01")
	oneCode, _, oneErr := w.mcpv(append([]string{"ping"}, srv.args()...)...)
	code, out, errs := w.mcpv(append([]string{"session", "start", "bad"}, srv.args()...)...)
	if code != oneCode || code != 4 || out != "" || !strings.Contains(errs, `"1999-01-01" to our "2025-11-25"`) {
		t.Errorf("session start: exit %d (one-shot %d), stdout %q, stderr %q (one-shot %q)", code, oneCode, out, errs, oneErr)
	}
	if b, err := exec.Command("pgrep", "-f", "__mcpv-session-keeper").Output(); err == nil {
		for _, p := range strings.Fields(string(b)) {
			if n, _ := strconv.Atoi(p); n > 0 && alive(n) {
				env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", n))
				if strings.Contains(string(env), w.dir[:len(w.dir)-len("/mcpv")]) {
					t.Errorf("keeper %d left behind", n)
				}
			}
		}
	}
	code, _, errs = w.mcpv("--session", "bad", "--root", "/tmp", "ping")
	if code != 2 || !strings.Contains(errs, "--root shapes the session: give it to 'mcpv session start'") {
		t.Errorf("--root with --session: exit %d, stderr %q", code, errs)
	}
}

// What a keeper holds stays out of what it shows: a secret on the server's
// command line is masked in session start's line, in session list and in
// the keeper's log, and the settings never appear on its command line.
func TestSessionKeepsSecrets(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	srv := newServer(t, "plain")
	const secret = "sekrit-token-4711"
	args := append([]string{"session", "start", "sec", "--env", "API_TOKEN=" + secret}, srv.args()...)
	args = append(args, "--api-key", secret) // an argument of the server's
	code, out, errs := w.mcpv(args...)
	var info struct{ PID int }
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil {
		t.Fatalf("session start: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	_, list, _ := w.mcpv("session", "list")
	if !strings.Contains(list, "--api-key ***") {
		t.Errorf("session list does not show the masked argument: %s", list)
	}
	w.mcpv("--session", "sec", "call", "x", "--no-validate")
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", info.PID))
	logb, _ := os.ReadFile(filepath.Join(w.state, "mcpv", "sessions", "sec.log"))
	infob, _ := os.ReadFile(filepath.Join(w.dir, "sec.json"))
	for what, text := range map[string]string{"start": out, "list": list, "keeper command line": string(cmdline), "log": string(logb), "info file": string(infob)} {
		if strings.Contains(text, secret) {
			t.Errorf("the %s shows the secret: %s", what, text)
		}
	}
}

// An HTTP server's error body reaches session start's message escaped, as
// it does a one-shot command's, never as escapes a terminal would obey.
func TestSessionStartHTTPErrorBodyEscaped(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(rw, "\x1b]0;pwned\x07 \x1b]52;c;aGk=\x07 \x1b[2J down")
	}))
	ts.Listener.Close()
	ts.Listener = l
	ts.Start()
	defer ts.Close()
	code, out, errs := w.mcpv("session", "start", "web", "-u", ts.URL+"/mcp")
	if code != 4 || out != "" || !strings.Contains(errs, `\x1b]0;pwned\x07 \x1b]52;c;aGk=\x07 \x1b[2J down`) || strings.ContainsAny(errs, "\x1b\x07") {
		t.Errorf("session start: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// An HTTP server killed while a command waits on it through a session
// fails that command at once, exit 4 with the transport's error, as a
// one-shot command fails; the keeper ends and says so, and a later command
// is told there is no session, also exit 4.
func TestSessionHTTPServerKilled(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" {
			return false
		}
		go x.Server().Die() // once the call is in flight
		x.Hold()
		return true
	}})
	code, out, errs := w.mcpv("session", "start", "web", "--url", srv.URL)
	var info struct{ PID int }
	if code != 0 || json.Unmarshal([]byte(out), &info) != nil {
		t.Fatalf("session start: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// The command's own bound is an hour: it ends with the server, not
	// at its timeout.
	r := w.start("--session", "web", "call", "slow", "--no-validate", "--timeout", "1h")
	code, _ = r.wait(t, 60*time.Second)
	if code != 4 || !strings.Contains(r.stderr.String(), "mcpv: tools/call: session web: ") {
		t.Errorf("the waiting command: exit %d, stderr %q", code, r.stderr.String())
	}
	if !waitGone(info.PID) {
		t.Error("the keeper outlived its server")
	}
	logb, _ := os.ReadFile(filepath.Join(w.state, "mcpv", "sessions", "web.log"))
	if !strings.Contains(string(logb), "mcpv: the server stopped answering: ") {
		t.Errorf("the keeper's log does not say why it ended:\n%s", logb)
	}
	r = w.start("--session", "web", "list-tools", "--timeout", "1h")
	if code, _ := r.wait(t, 60*time.Second); code != 4 || !strings.Contains(r.stderr.String(), `no session "web" is running`) {
		t.Errorf("a later command: exit %d, stderr %q", code, r.stderr.String())
	}
}

// A server that writes to stderr without pause does not fill the disk: the
// session log is rate-limited, says what it dropped, and stays under its
// cap.
func TestSessionLogBounded(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	srv := newServer(t, "plain")
	args := append([]string{"session", "start", "flood"}, srv.args()...)
	args = append(args[:len(args)-1], "sh", "-c", `yes flooding-the-log >&2 & exec "$0"`, os.Args[0])
	begin := time.Now()
	if code, out, errs := w.mcpv(args...); code != 0 {
		t.Fatalf("session start: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	log := filepath.Join(w.state, "mcpv", "sessions", "flood.log")
	var text []byte
	for deadline := time.Now().Add(15 * time.Second); !strings.Contains(string(text), "of the server's output were dropped here"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never says it dropped the flood; it has %d bytes", len(text))
		}
		text, _ = os.ReadFile(log)
	}
	if code, _, errs := w.mcpv("--session", "flood", "ping"); code != 0 {
		t.Errorf("ping through the flooded session: exit %d, %q", code, errs)
	}
	w.mcpv("session", "stop", "flood")
	took := time.Since(begin)
	var total int64
	for _, p := range []string{log, log + ".1"} {
		if fi, err := os.Stat(p); err == nil {
			total += fi.Size()
			if fi.Size() > 10<<20 {
				t.Errorf("%s has %d bytes", p, fi.Size())
			}
		}
	}
	if limit := int64(1<<20) + int64(took.Seconds()*(256<<10)) + 64<<10; total > limit {
		t.Errorf("%d bytes logged in %v, more than the rate allows (%d)", total, took, limit)
	}
	t.Logf("%d bytes logged in %v", total, took)
}

// A secret of the session's that the server echoes is masked in what a
// command through the session writes, as one-shot: the -H token in an
// error message and in a log message the server sends with its answer.
func TestSessionMasksEchoedSecrets(t *testing.T) {
	t.Parallel()
	w := newSessions(t)
	const secret = "sekrit-bearer-4711"
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" {
			return false
		}
		echoed := x.Header.Get("Authorization")
		sse := x.SSE()
		sse.Event("", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"you sent `+echoed+`"}}`)
		sse.Event("", x.Error(-32000, "bad token: "+echoed))
		return true
	}})
	oneCode, _, oneErrs := w.mcpv("--url", srv.URL, "-H", "Authorization: Bearer "+secret, "call", "x", "--no-validate")
	if code, out, errs := w.mcpv("session", "start", "sec", "--url", srv.URL, "-H", "Authorization: Bearer "+secret); code != 0 {
		t.Fatalf("session start: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs := w.mcpv("--session", "sec", "call", "x", "--no-validate")
	if code != 3 || code != oneCode || strings.Contains(out+errs, secret) || errs != oneErrs || !strings.Contains(errs, "bad token: ***") || !strings.Contains(errs, "you sent ***") {
		t.Errorf("through the session: exit %d (one-shot %d), stdout %q, stderr %q (one-shot %q)", code, oneCode, out, errs, oneErrs)
	}
}

// A call through a session finds its tool, on the last of twenty pages,
// in the pages the keeper keeps: the server lists its tools for the first
// call alone, the second call asks the keeper once (-v shows the command's
// own requests: twenty before the keeper was asked for the tool), each
// call prints what a one-shot call prints, and a tool it does not list is
// refused as one-shot.
func TestSessionCallFindsItsToolInKeptPages(t *testing.T) {
	testkit.SkipLong(t, "a session's keeper and the pages it keeps")
	t.Parallel()
	w := newSessions(t)
	srv := newServer(t, "pages=20,list-changed")
	w.startSession("pages", srv)
	lists := func() int { return strings.Count(srv.received(), `"method":"tools/list"`) }
	call := []string{"call", "x", "--args", `{"n":7}`, "-q", "del(.at)"} // the fake's answer says when
	alone := newServer(t, "pages=20,list-changed")
	code, want, errs := w.mcpv(append(call, alone.args()...)...)
	if code != 0 || !strings.Contains(want, `"n":7`) {
		t.Fatalf("one-shot call: exit %d, stdout %q, stderr %q", code, want, errs)
	}
	for i, wantLists := range []int{20, 20} {
		code, out, errs := w.mcpv(append([]string{"-v", "--session", "pages"}, call...)...)
		if code != 0 || out != want {
			t.Errorf("call %d through the session: exit %d, stdout %q (one-shot %q), stderr %q", i+1, code, out, want, errs)
		}
		if n := lists(); n != wantLists {
			t.Errorf("after call %d the server was asked for tools/list %d times, want %d", i+1, n, wantLists)
		}
		sent := 0
		for _, line := range strings.Split(errs, "\n") {
			if strings.Contains(line, "-> ") && strings.Contains(line, `"method":"tools/list"`) {
				sent++
			}
		}
		if i == 1 && sent != 1 {
			t.Errorf("the second call sent %d tools/list, want 1:\n%s", sent, errs)
		}
	}
	code, _, errs = w.mcpv("--session", "pages", "call", "nosuch")
	_, _, oneShot := w.mcpv(append([]string{"call", "nosuch"}, alone.args()...)...)
	if code != 3 || errs != oneShot || lists() != 20 {
		t.Errorf("a tool not listed: exit %d, stderr %q (one-shot %q), %d tools/list", code, errs, oneShot, lists())
	}
}
