package apphost

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// notes collects a host's lines for the user, and tells when one comes.
type notes struct {
	mu    sync.Mutex
	lines []string
	came  chan struct{} // closed and replaced when a line comes
}

func newNotes() *notes { return &notes{came: make(chan struct{})} }

func (n *notes) notef(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines = append(n.lines, fmt.Sprintf(format, args...))
	close(n.came)
	n.came = make(chan struct{})
}

// waitFor waits for a line holding want; a minute without one is a hang.
func (n *notes) waitFor(t *testing.T, want string) string {
	t.Helper()
	guard := time.After(time.Minute)
	for {
		n.mu.Lock()
		for _, l := range n.lines {
			if strings.Contains(l, want) {
				n.mu.Unlock()
				return l
			}
		}
		came := n.came
		n.mu.Unlock()
		select {
		case <-came:
		case <-guard:
			t.Fatalf("no line saying %q in a minute; lines: %q", want, n.lines)
		}
	}
}

func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.lines...)
}

// An app that never finishes its handshake is said so, once the bound
// has passed from the page's coming: one line for the user, saying what
// the host waits for, and the page is told the same on its event stream;
// Ctrl-C still ends the host.
func TestHandshakeLateIsSaid(t *testing.T) {
	n := newNotes()
	s := start(t, &Host{App: testApp(), HandshakeWait: time.Millisecond, Notef: n.notef})
	auth := map[string]string{"Authorization": "Bearer " + s.token}
	events := bufio.NewScanner(s.get(t, "/api/events", auth).Body)
	s.get(t, "/api/app", auth) // the page came: the bound runs
	line := n.waitFor(t, "has not finished its handshake")
	if !strings.Contains(line, "waiting for it to send ui/initialize") || !strings.HasSuffix(line, "; Ctrl-C ends") {
		t.Errorf("the line: %q", line)
	}
	for events.Scan() && !strings.Contains(events.Text(), `"type":"handshake-late"`) {
	}
	if !strings.Contains(events.Text(), "waiting for it to send ui/initialize") {
		t.Errorf("the page was not told: %q (%v)", events.Text(), events.Err())
	}
	if got := n.all(); len(got) != 1 {
		t.Errorf("lines: %q", got)
	}
	cause := errors.New("interrupted")
	s.cancel(cause)
	for events.Scan() && !strings.Contains(events.Text(), `"type":"teardown"`) {
	}
	s.rpc(t, `{"id":null,"method":"host/torn-down","params":{"reason":"x"}}`, nil)
	if err := <-s.done; !errors.Is(err, cause) {
		t.Errorf("Run: %v", err)
	}
	s.done <- nil
}

// What the line says is how far the handshake came; an app that finished
// it, or a host that is ending, is said nothing of. (The bound is an hour
// here: the test says when it has passed.)
func TestHandshakeLateSaysWhatIsAwaited(t *testing.T) {
	n := newNotes()
	s := start(t, &Host{App: testApp(), HandshakeWait: time.Hour, Notef: n.notef})
	s.rpc(t, `{"id":null,"method":"ui/initialize","params":{}}`, nil)
	s.h.handshakeLate()
	if line := n.waitFor(t, "handshake"); !strings.Contains(line, "it sent ui/initialize; waiting for ui/notifications/initialized") {
		t.Errorf("the line: %q", line)
	}
	s.h.handshakeLate() // said once
	if got := n.all(); len(got) != 1 {
		t.Errorf("lines: %q", got)
	}

	done := newNotes()
	s = start(t, &Host{App: testApp(), HandshakeWait: time.Hour, Notef: done.notef})
	s.rpc(t, `{"id":null,"method":"ui/initialize","params":{}}`, nil)
	s.rpc(t, `{"id":null,"method":"ui/notifications/initialized","params":{}}`, nil)
	s.h.handshakeLate()
	if got := done.all(); len(got) != 0 {
		t.Errorf("an app that finished its handshake: %q", got)
	}
}
