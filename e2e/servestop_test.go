//go:build unix && e2e

package e2e

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stdioServe is mcpv serve run as a desktop application runs a stdio
// server: its stdin and stdout are pipes the test holds.
type stdioServe struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   io.ReadCloser
	lines chan string   // what serve writes on stdout, line by line
	done  chan struct{} // closed once serve has exited and its stdout is read
	quit  chan struct{} // closed when the test is over: lines are no longer read
	code  int
	srv   *server
}

const (
	initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"app","version":"1"}}}`
	callLine = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}`
)

func startStdioServe(t *testing.T, behaviour string, flags ...string) *stdioServe {
	t.Helper()
	srv := newServer(t, behaviour)
	s := &stdioServe{srv: srv, lines: make(chan string, 64), done: make(chan struct{}), quit: make(chan struct{})}
	s.cmd = exec.Command(mcpvBin, append(append([]string{"serve"}, flags...), srv.args()...)...)
	s.cmd.Stderr = os.Stderr
	var err error
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if s.out, err = s.cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// One goroutine reads stdout to its end and only then waits for the
	// process: Wait closes the pipe, and what serve wrote just before it
	// exited would be lost to a read racing it.
	go func() {
		r := bufio.NewReader(s.out)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				select {
				case s.lines <- line:
				case <-s.quit:
				}
			}
			if err != nil {
				close(s.lines)
				break
			}
		}
		s.cmd.Wait()
		s.code = s.cmd.ProcessState.ExitCode()
		close(s.done)
	}()
	t.Cleanup(func() { close(s.quit); s.cmd.Process.Kill(); <-s.done })
	return s
}

func (s *stdioServe) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// patience bounds a wait that ends at once unless something hangs: a
// loaded race run takes 15 s to start a server and answer through serve.
const patience = 2 * time.Minute

// answer waits for serve's answer naming id.
func (s *stdioServe) answer(t *testing.T, id string) string {
	t.Helper()
	deadline := time.After(patience)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("serve's stdout ended without an answer to id %s", id)
			}
			if strings.Contains(l, `"id":`+id+`,`) {
				return l
			}
		case <-deadline:
			t.Fatalf("no answer to id %s within %v", id, patience)
		}
	}
}

// exit waits for serve to exit, within bound.
func (s *stdioServe) exit(t *testing.T, bound time.Duration) int {
	t.Helper()
	select {
	case <-s.done:
		return s.code
	case <-time.After(bound):
		t.Fatalf("mcpv serve still running %v later", bound)
		return -1
	}
}

// A stdio serve whose client keeps its stdin open ends on SIGTERM or
// Ctrl-C, idle or with a call in flight, which is cancelled upstream.
func TestServeStdioEndsOnSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for _, busy := range []bool{false, true} {
			name := sig.String()
			if busy {
				name += " mid-call"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				s := startStdioServe(t, "hang")
				s.send(t, initLine)
				s.answer(t, "1")
				if busy {
					s.send(t, callLine)
					s.srv.waitFor(t, `"tools/call"`)
				}
				s.cmd.Process.Signal(sig)
				if code := s.exit(t, patience); code != 130 {
					t.Errorf("exit %d, want 130", code)
				}
				if busy && !strings.Contains(s.srv.received(), `"notifications/cancelled"`) {
					t.Errorf("the call in flight was not cancelled upstream; the server received:\n%s", s.srv.received())
				}
				if !s.srv.gone(t) {
					t.Error("the server is still running")
				}
			})
		}
	}
}

// A client that closes its pipes mid-call has left: its call is cancelled
// upstream at once, and serve ends.
func TestServeStdioClientLeavesMidCall(t *testing.T) {
	t.Parallel()
	s := startStdioServe(t, "hang")
	s.send(t, initLine)
	s.answer(t, "1")
	s.send(t, callLine)
	s.srv.waitFor(t, `"tools/call"`)
	s.in.Close()
	s.out.Close()
	s.srv.waitFor(t, `"notifications/cancelled"`)
	if code := s.exit(t, patience); code != 0 {
		t.Errorf("exit %d after the client left, want 0", code)
	}
}

// The server dies mid-call while the client keeps its stdin open: the
// call gets an error at once, and serve ends with exit 4.
func TestServeStdioUpstreamDiesMidCall(t *testing.T) {
	t.Parallel()
	s := startStdioServe(t, "crash")
	s.send(t, initLine)
	s.answer(t, "1")
	s.send(t, callLine)
	if a := s.answer(t, "2"); !strings.Contains(a, `"error"`) {
		t.Errorf("the call got %s, want an error", a)
	}
	if code := s.exit(t, patience); code != 4 {
		t.Errorf("exit %d, want 4", code)
	}
}

// Over stdio the server is started at once and its initialize waits for
// the client's first request (to declare that client's capabilities):
// while it waits, SIGTERM ends serve as ever, and a client that leaves
// before asking anything ends it at once; the server goes with it. (That
// it does not wait out the grace periods is shown where the test sets
// them: commands' TestServeEndsBeforeTheFirstRequest.)
func TestServeStdioBeforeTheFirstRequest(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"SIGTERM", "leaves"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			// A server that ignores the end of its input and SIGTERM:
			// only serve's SIGKILL ends it.
			s := startStdioServe(t, "hang,ignore-exit")
			s.srv.started(t)
			want := 0
			if how == "SIGTERM" {
				s.cmd.Process.Signal(syscall.SIGTERM)
				want = 130
			} else {
				s.in.Close()
				s.out.Close()
			}
			if code := s.exit(t, time.Minute); code != want {
				t.Errorf("exit %d, want %d", code, want)
			}
			if !s.srv.gone(t) {
				t.Error("the server is still running")
			}
			if got := s.srv.received(); strings.Contains(got, `"initialize"`) {
				t.Errorf("the server was initialized for no client:\n%s", got)
			}
		})
	}
}

// started waits until the server's process has started (it writes its
// pid first).
func (s *server) started(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		if b, err := os.ReadFile(s.pid); err == nil && len(b) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A 2026-07-28 client of a stdio server of the initialize era: a question
// the server asks mid-call reaches the client as an input_required result
// and the call waits at the server for the client's retry (ten minutes).
// SIGTERM then ends serve, well before that wait, the server's question
// is answered with an error, the call is cancelled upstream, and the
// server goes.
func TestServeStdioSignalWhileABridgedCallWaits(t *testing.T) {
	t.Parallel()
	s := startStdioServe(t, "ask=elicitation/create,hang")
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"app","version":"1"}}}}`)
	if a := s.answer(t, "1"); !strings.Contains(a, `"input_required"`) {
		t.Fatalf("the call got %s, want input_required", a)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.exit(t, time.Minute); code != 130 { // the retry's wait is ten
		t.Errorf("exit %d, want 130", code)
	}
	answered := false
	for _, l := range strings.Split(s.srv.received(), "\n") {
		answered = answered || strings.Contains(l, `"error"`) && !strings.Contains(l, `"method"`)
	}
	if !answered {
		t.Errorf("the server's question was not answered with an error; it received:\n%s", s.srv.received())
	}
	if !strings.Contains(s.srv.received(), `"notifications/cancelled"`) {
		t.Errorf("the call was not cancelled upstream; the server received:\n%s", s.srv.received())
	}
	if !s.srv.gone(t) {
		t.Error("the server is still running")
	}
}
