package commands

// Running a test file: one session for all its steps, opened as the
// command line opens one (the same hooks, stderr scrubbed of the
// session's secrets), and each step run as a batch line is, against it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
	"github.com/mcpv/mcpv/redact"
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

// testRunner runs the files of one mcpv test.
type testRunner struct {
	env      connect.Env
	lint     bool // check every tool result (--lint)
	update   bool // rewrite snapshots (--update)
	failFast bool
	stopped  atomic.Bool        // set at the first failure under --fail-fast
	groups   *mcp.ProcessGroups // where the stdio servers are recorded, for a second Ctrl-C
	surface  surfaceChecks
	progress func(file, step string) // shows what runs, on a terminal; may be nil
}

// errOverBudget ends a step that runs past its within: budget.
var errOverBudget = errors.New("over its time budget")

// maxStderrTail bounds what a report keeps of a file's stderr.
const maxStderrTail = 8 << 10

// run runs a resolved file's selected steps.
func (r *testRunner) run(ctx context.Context, f *testfile.File, settings *connect.Settings, selected []bool) *fileReport {
	rep := &fileReport{file: f, started: time.Now()}
	defer func() { rep.took = time.Since(rep.started) }()
	skipRest := func(from int, reason string) {
		for i := from; i < len(f.Steps); i++ {
			if selected[i] {
				rep.steps = append(rep.steps, &stepReport{step: f.Steps[i], status: stepSkipped, reason: reason})
			}
		}
	}
	// interrupt ends a file that had started at Ctrl-C: when no step was
	// in flight, the first one not run stands for the interruption.
	interrupt := func(from int, inFlight bool) *fileReport {
		rep.interrupted = true
		n := len(rep.steps)
		skipRest(from, "not run: interrupted")
		if !inFlight && n < len(rep.steps) {
			rep.steps[n].interrupted = true
		}
		return rep
	}
	switch {
	case ctx.Err() != nil: // never started: nothing to stand for
		rep.interrupted = true
		skipRest(0, "not run: interrupted")
		return rep
	case r.stopped.Load():
		skipRest(0, "not run: --fail-fast, after an earlier failure")
		return rep
	}
	tail := &tailBuffer{max: maxStderrTail}
	secrets := fileSecrets(f, settings)
	scrub := redact.NewScrubber(tail)
	scrub.Add(secrets...)
	fenv := r.env
	fenv.Cwd = f.Dir
	fios := output.NewStreams(strings.NewReader(""), io.Discard, scrub)
	var closers []func() error
	var events *connect.EventLog
	if path := settings.Answers.Events; path != "" {
		ef, err := r.eventsFile(f, fenv.Path(path))
		if err != nil {
			rep.code, rep.err = exitUsage, fmt.Sprintf("--events: %v", err)
			skipRest(0, "not run: the session could not be opened")
			return rep
		}
		closers = append(closers, ef.Close)
		events = connect.NewEventLog(ef)
	}
	h := hooks(fios, fenv, events, scrub, &closers)
	h.Groups = r.groups
	stray := newStrayOutput(h.Log.Handler())
	h.Log = slog.New(stray)
	s := &session{settings: settings, env: fenv, hooks: h}
	defer func() {
		s.close()
		for _, c := range closers {
			c()
		}
		scrub.Flush()
		rep.stderr = tail.String()
		noteStrayOutput(rep, stray, secrets)
	}()
	if r.progress != nil {
		r.progress(f.Path, "starting the server")
	}
	if _, err := s.client(ctx); err != nil {
		if ctx.Err() != nil {
			return interrupt(0, false)
		}
		rep.code = exitCode(err)
		msg, _, _ := strings.Cut(err.Error(), "\n") // the server's stderr is in the report
		rep.err = redact.String(msg+hint(err), secrets)
		skipRest(0, "not run: the session could not be opened")
		return rep
	}
	s.cacheTools = true
	lines := &lineParser{environ: r.env.Environ, lines: map[string]*parsedLine{}}
	lists := &surfaceLists{}
	caps := map[string]json.RawMessage{}
	capturedBy := map[string]int{}
	for i, st := range f.Steps {
		if !selected[i] {
			continue
		}
		switch {
		case ctx.Err() != nil:
			return interrupt(i, false)
		case r.stopped.Load():
			skipRest(i, "not run: --fail-fast, after an earlier failure")
			return rep
		case st.Skip != "":
			rep.steps = append(rep.steps, &stepReport{step: st, status: stepSkipped, reason: st.Skip})
			continue
		}
		if missing := missingCapture(st, caps); missing != "" {
			reason := fmt.Sprintf("not run: it uses {{%s}}, which no step before it captured", missing)
			if n, ok := capturedBy[missing]; ok {
				reason = fmt.Sprintf("not run: it uses {{%s}}, which step %d did not capture", missing, n)
			}
			rep.steps = append(rep.steps, &stepReport{step: st, status: stepSkipped, reason: reason})
			continue
		}
		if r.progress != nil {
			r.progress(f.Path, st.Name)
		}
		sr := r.step(ctx, s, f, st, lines, caps, secrets, lists)
		rep.steps = append(rep.steps, sr)
		for _, c := range st.Captures {
			capturedBy[c.Name] = st.Index
		}
		if sr.status == stepFailed && r.failFast {
			r.stopped.Store(true)
		}
		if ctx.Err() != nil {
			sr.status, sr.reason, sr.failures, sr.interrupted = stepSkipped, "interrupted", nil, true
			return interrupt(i+1, true)
		}
		if sr.broke {
			rep.code = sr.exit
			rep.err = fmt.Sprintf("the session broke at step %d", st.Index)
			skipRest(i+1, fmt.Sprintf("not run: the session broke at step %d", st.Index))
			return rep
		}
	}
	return rep
}

// eventsFile creates the --events file: inside the test file's tree when
// the file named it; where the user says when the user did.
func (r *testRunner) eventsFile(f *testfile.File, path string) (*os.File, error) {
	if f.Server.KeyAt["events"] != nil {
		return (&safefile.Tree{Dir: f.Dir}).Create(path)
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
}

// surfaceStep runs a snapshot or lint step. Only authorization failing or
// the connection ending breaks the session: a list that never ends (a
// cursor sent twice) is the step's failure, which a lint step after it
// reports by its rule.
func (r *testRunner) surfaceStep(ctx context.Context, s *session, f *testfile.File, st *testfile.Step, sr *stepReport, lists *surfaceLists) {
	client, err := s.client(ctx) // open already
	switch {
	case err != nil:
		sr.failures, sr.exit, sr.broke = []testreport.Failure{{Kind: "session", Message: err.Error()}}, exitCode(err), true
		return
	case st.Kind == testfile.StepSnapshot:
		sr.failures, sr.notes, sr.exit = r.surface.snapshot(ctx, lists.of(client), safefile.Tree{Dir: f.Dir}, st.Snapshot, f.Path, r.update)
	default:
		sr.failures, sr.notes, sr.exit = r.surface.lint(ctx, lists.of(client), st.Ignore)
	}
	select {
	case <-client.Done():
		sr.broke = sr.exit != exitOK
	default:
		sr.broke = sr.exit == exitAuth
	}
}

func missingCapture(st *testfile.Step, caps map[string]json.RawMessage) string {
	for _, name := range st.Needs {
		if _, ok := caps[name]; !ok {
			return name
		}
	}
	return ""
}

// step runs one step and checks it.
func (r *testRunner) step(ctx context.Context, s *session, f *testfile.File, st *testfile.Step, lines *lineParser, caps map[string]json.RawMessage, secrets []string, lists *surfaceLists) *stepReport {
	sr := &stepReport{step: st}
	stepCtx := ctx
	if st.Within > 0 {
		var cancel context.CancelFunc
		stepCtx, cancel = context.WithTimeoutCause(ctx, st.Within, errOverBudget)
		defer cancel()
	}
	var stderr bytes.Buffer
	begin := time.Now()
	if st.Kind == testfile.StepLine {
		lists.forget() // the command may change what the server lists
		r.lineStep(stepCtx, s, st, lines, caps, &stderr, sr)
	} else {
		r.surfaceStep(stepCtx, s, f, st, sr, lists)
	}
	sr.took = time.Since(begin)
	if st.Within > 0 && (sr.took > st.Within || errors.Is(context.Cause(stepCtx), errOverBudget)) {
		f := testreport.Failure{Kind: "within", Expected: st.Within.String(), Actual: testreport.RoundDuration(sr.took).String(),
			Message: "the step took longer than its budget"}
		if errors.Is(context.Cause(stepCtx), errOverBudget) {
			f.Message = "the step was still running when its budget ran out: cancelled"
			f.Actual = fmt.Sprintf("more (cancelled after %v)", testreport.RoundDuration(sr.took))
			sr.failures = nil // what the cut-off step returned says nothing more
			sr.exit = exitTimeout
		}
		sr.failures = append(sr.failures, f)
	}
	if st.Kind == testfile.StepLine {
		sr.broke = (sr.exit == exitTransport || sr.exit == exitAuth) && sr.exit != st.Expect.WantExit()
	}
	if text := strings.TrimSpace(stderr.String()); text != "" {
		s.hooks.Stderr.Write([]byte(text + "\n"))
		if len(sr.failures) > 0 {
			for line := range strings.Lines(text) {
				sr.notes = append(sr.notes, "stderr: "+strings.TrimSuffix(line, "\n"))
			}
		}
	}
	if len(sr.failures) > 0 {
		sr.status = stepFailed
	}
	for i := range sr.failures {
		f := &sr.failures[i]
		f.Message, f.Expected, f.Actual = redact.String(f.Message, secrets), redact.String(f.Expected, secrets), redact.String(f.Actual, secrets)
		for j := range f.Details {
			f.Details[j] = redact.String(f.Details[j], secrets)
		}
	}
	for i := range sr.notes {
		sr.notes[i] = redact.String(sr.notes[i], secrets)
	}
	return sr
}

// lineStep runs a step's command line and checks what came of it.
func (r *testRunner) lineStep(ctx context.Context, s *session, st *testfile.Step, lines *lineParser, caps map[string]json.RawMessage, stderr io.Writer, sr *stepReport) {
	lines.vars = captureVars(caps)
	lines.lines = map[string]*parsedLine{}
	fios := output.NewStreams(strings.NewReader(""), io.Discard, stderr)
	out := newConsole(fios, &outputFlags{Color: "never"}, s.env)
	out.files = &safefile.Tree{Dir: s.env.Cwd} // the test file's directory
	o := runStepLine(ctx, s, out, lines, shellwords.Join(st.Fill(caps)))
	sr.exit = o.Code
	if errors.Is(context.Cause(ctx), errOverBudget) {
		return
	}
	// The tool is the one the line named as it ran: a capture may name it.
	tool := func() (mcp.Tool, error) {
		client, err := s.client(ctx)
		if err != nil {
			return mcp.Tool{}, err
		}
		return s.findTool(ctx, client, o.Tool)
	}
	outputSchema := func() (json.RawMessage, error) {
		def, err := tool()
		return def.OutputSchema, err
	}
	sr.failures = st.Expect.Check(ctx, o, caps, outputSchema)
	// Linting checks the result against the outputSchema, unless the step's
	// own expectation does.
	if (r.lint || st.CheckResult) && !st.Expect.OutputSchema && o.Tool != "" && o.Raw != nil {
		if def, err := tool(); err == nil {
			fs, notes := r.surface.checkResult(def.Raw, o.Raw)
			sr.failures, sr.notes = append(sr.failures, fs...), append(sr.notes, notes...)
		}
	}
	if len(sr.failures) > 0 {
		return
	}
	value := o.Value
	if value == nil {
		value = json.RawMessage("null")
	}
	sr.failures = st.Capture(value, caps)
}

// runStepLine runs a command line as a batch line runs, and also keeps the
// result as the command printed it before the line's own --jq.
func runStepLine(ctx context.Context, s *session, out *console, lines *lineParser, text string) testfile.Outcome {
	pl, err := lines.parse(text)
	if err != nil {
		return testfile.Outcome{Err: err, Code: exitCode(err), Value: batchError(err)}
	}
	var tool string
	if c, ok := pl.cmd.Interface().(callCmd); ok {
		tool = c.Tool
	}
	if pl.text && !pl.output.RawOutput { // call --text, read --text: text, no JSON
		res, err := runBatchCommand(ctx, s, out, lines, text)
		return finish(testfile.Outcome{Value: res, Err: err, Tool: tool})
	}
	plain := *pl
	plain.output.filter, plain.output.RawOutput, plain.output.ExitStatus = nil, false, false
	var buf bytes.Buffer
	cmd, lineOut := plain.instance(out, &buf)
	runErr := cmd.Run(ctx, s, lineOut)
	o := testfile.Outcome{Raw: printedValue(buf.Bytes()), Err: runErr, Tool: tool}
	o.Value = o.Raw
	if pl.output.filter != nil && o.Raw != nil {
		var fb bytes.Buffer
		p := output.Printer{Out: &fb, Format: output.Format{Raw: pl.output.RawOutput}, Filter: pl.output.filter, ExitStatus: pl.output.ExitStatus}
		if ferr := p.Print(o.Raw); ferr != nil {
			o.Err = ferr // as printing comes before the result's own verdict
		}
		if pl.output.RawOutput {
			o.Value = printedText(bytes.TrimSuffix(fb.Bytes(), []byte("\n")))
		} else {
			o.Value = printedValue(fb.Bytes())
		}
	}
	return finish(o)
}

// finish adds to an outcome what follows from its error and result.
func finish(o testfile.Outcome) testfile.Outcome {
	o.Code = exitCode(o.Err)
	if o.Value == nil && o.Err != nil {
		o.Value = batchError(o.Err)
	}
	if o.Raw != nil {
		fields := toolResultFields(o.Raw)
		o.IsError, o.Structured = fields.isError, fields.structured
	}
	o.IsError = o.IsError || errors.Is(o.Err, errToolFailed)
	if ce := (*mcp.CallError)(nil); errors.As(o.Err, &ce) {
		o.RPC = &testfile.RPCError{Code: ce.Err.Code, Message: ce.Err.Message}
	}
	return o
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

// reportData is what became of each file, for the reports.
func reportData(reports []*fileReport) []testreport.File {
	out := make([]testreport.File, len(reports))
	for i, rep := range reports {
		out[i] = rep.data()
	}
	return out
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
