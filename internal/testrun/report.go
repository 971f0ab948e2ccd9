package testrun

import (
	"bytes"
	"sync"

	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
)

// stepReport is what became of a step, and whether the session can go on
// after it.
type stepReport struct {
	testreport.Step
	broke bool // after this step the session cannot go on
}

// newStep is the report of step st, as it begins.
func newStep(st *testfile.Step) testreport.Step {
	return testreport.Step{Index: st.Index, Name: st.Name, Line: st.Line}
}

// skipped is the report of step st, not run for reason.
func skipped(st *testfile.Step, reason string) testreport.Step {
	s := newStep(st)
	s.Status, s.Reason = testreport.Skipped, reason
	return s
}

// tailBuffer keeps the last max bytes written to it, from a line start.
type tailBuffer struct {
	max  int
	mu   sync.Mutex // guards buf and lost: the server's stderr and the session write at once
	buf  []byte
	lost bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max { // cut now and then, not at every write
		t.buf = append([]byte(nil), t.tail()...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.tail()
	if t.lost {
		return "…\n" + string(b)
	}
	return string(b)
}

// tail is the last max bytes of buf, from a line start; t.mu is held.
func (t *tailBuffer) tail() []byte {
	if len(t.buf) <= t.max {
		return t.buf
	}
	t.lost = true
	cut := len(t.buf) - t.max
	if i := bytes.IndexByte(t.buf[cut:], '\n'); i >= 0 {
		cut += i + 1
	}
	return t.buf[cut:]
}
