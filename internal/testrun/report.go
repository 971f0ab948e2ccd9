package testrun

import (
	"bytes"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
)

type stepStatus = testreport.Status

const (
	stepPassed  = testreport.Passed
	stepFailed  = testreport.Failed
	stepSkipped = testreport.Skipped
)

// fileReport is what became of a file.
type fileReport struct {
	file    *testfile.File
	steps   []*stepReport
	code    int    // exitOK, or the code of what kept the file's steps from running
	err     string // what that was
	stderr  string // the tail of what the server and the session wrote on stderr
	started time.Time
	took    time.Duration
	// interrupted: Ctrl-C stopped the file's steps.
	interrupted bool
}

// stepReport is what became of a step.
type stepReport struct {
	step     *testfile.Step
	status   stepStatus
	reason   string // why it was skipped
	took     time.Duration
	exit     int
	failures []testreport.Failure
	notes    []string
	// broke: after this step the session cannot go on.
	broke bool
	// interrupted: Ctrl-C stopped the file here (the step in flight, or
	// the first not run when none was).
	interrupted bool
}

// data is what became of the file, for the reports.
func (rep *fileReport) data() testreport.File {
	f := rep.file
	d := testreport.File{Path: f.Path, Name: f.Name, Named: f.Name != testfile.Stem(f.Path), Server: f.Server.Display,
		Code: rep.code, Err: rep.err, Stderr: rep.stderr, Started: rep.started, Took: rep.took, Interrupted: rep.interrupted}
	for _, sr := range rep.steps {
		s := testreport.Step{Index: sr.step.Index, Name: sr.step.Name, Line: sr.step.Line, Status: sr.status, Reason: sr.reason,
			Took: sr.took, Exit: sr.exit, Failures: sr.failures, Notes: sr.notes, Interrupted: sr.interrupted}
		d.Steps = append(d.Steps, s)
	}
	return d
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
	if len(t.buf) > 2*t.max {
		cut := len(t.buf) - t.max
		if i := bytes.IndexByte(t.buf[cut:], '\n'); i >= 0 {
			cut += i + 1
		}
		t.buf = append([]byte(nil), t.buf[cut:]...)
		t.lost = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.max {
		cut := len(b) - t.max
		if i := bytes.IndexByte(b[cut:], '\n'); i >= 0 {
			cut += i + 1
		}
		b = b[cut:]
		t.lost = true
	}
	if t.lost {
		return "…\n" + string(b)
	}
	return string(b)
}
