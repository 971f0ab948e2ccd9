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
	file    *testFile
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
	step     *testStep
	status   stepStatus
	reason   string // why it was skipped
	took     time.Duration
	exit     int
	failures []failure
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
func (r *testRunner) run(ctx context.Context, f *testFile, settings *connect.Settings, selected []bool) *fileReport {
	rep := &fileReport{file: f, started: time.Now()}
	defer func() { rep.took = time.Since(rep.started) }()
	skipRest := func(from int, reason string) {
		for i := from; i < len(f.steps); i++ {
			if selected[i] {
				rep.steps = append(rep.steps, &stepReport{step: f.steps[i], status: stepSkipped, reason: reason})
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
	fenv.Cwd = f.dir
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
		r.progress(f.path, "starting the server")
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
	for i, st := range f.steps {
		if !selected[i] {
			continue
		}
		switch {
		case ctx.Err() != nil:
			return interrupt(i, false)
		case r.stopped.Load():
			skipRest(i, "not run: --fail-fast, after an earlier failure")
			return rep
		case st.skip != "":
			rep.steps = append(rep.steps, &stepReport{step: st, status: stepSkipped, reason: st.skip})
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
			r.progress(f.path, st.name)
		}
		sr := r.step(ctx, s, f, st, lines, caps, secrets, lists)
		rep.steps = append(rep.steps, sr)
		for _, c := range st.capture {
			capturedBy[c.name] = st.index
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
			rep.err = fmt.Sprintf("the session broke at step %d", st.index)
			skipRest(i+1, fmt.Sprintf("not run: the session broke at step %d", st.index))
			return rep
		}
	}
	return rep
}

// eventsFile creates the --events file: inside the test file's tree when
// the file named it; where the user says when the user did.
func (r *testRunner) eventsFile(f *testFile, path string) (*os.File, error) {
	if f.serve.keyAt["events"] != nil {
		return (&safefile.Tree{Dir: f.dir}).Create(path)
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
}

// surfaceStep runs a snapshot or lint step. Only authorization failing or
// the connection ending breaks the session: a list that never ends (a
// cursor sent twice) is the step's failure, which a lint step after it
// reports by its rule.
func (r *testRunner) surfaceStep(ctx context.Context, s *session, f *testFile, st *testStep, sr *stepReport, lists *surfaceLists) {
	client, err := s.client(ctx) // open already
	switch {
	case err != nil:
		sr.failures, sr.exit, sr.broke = []failure{{Kind: "session", Message: err.Error()}}, exitCode(err), true
		return
	case st.kind == stepSnapshot:
		sr.failures, sr.notes, sr.exit = r.surface.snapshot(ctx, lists.of(client), safefile.Tree{Dir: f.dir}, st.snapshot, f.path, r.update)
	default:
		sr.failures, sr.notes, sr.exit = r.surface.lint(ctx, lists.of(client), st.ignore)
	}
	select {
	case <-client.Done():
		sr.broke = sr.exit != exitOK
	default:
		sr.broke = sr.exit == exitAuth
	}
}

func missingCapture(st *testStep, caps map[string]json.RawMessage) string {
	for _, name := range st.needs {
		if _, ok := caps[name]; !ok {
			return name
		}
	}
	return ""
}

// step runs one step and checks it.
func (r *testRunner) step(ctx context.Context, s *session, f *testFile, st *testStep, lines *lineParser, caps map[string]json.RawMessage, secrets []string, lists *surfaceLists) *stepReport {
	sr := &stepReport{step: st}
	stepCtx := ctx
	if st.within > 0 {
		var cancel context.CancelFunc
		stepCtx, cancel = context.WithTimeoutCause(ctx, st.within, errOverBudget)
		defer cancel()
	}
	var stderr bytes.Buffer
	begin := time.Now()
	if st.kind == stepLine {
		lists.forget() // the command may change what the server lists
		r.lineStep(stepCtx, s, st, lines, caps, &stderr, sr)
	} else {
		r.surfaceStep(stepCtx, s, f, st, sr, lists)
	}
	sr.took = time.Since(begin)
	if st.within > 0 && (sr.took > st.within || errors.Is(context.Cause(stepCtx), errOverBudget)) {
		f := failure{Kind: "within", Expected: st.within.String(), Actual: testreport.RoundDuration(sr.took).String(),
			Message: "the step took longer than its budget"}
		if errors.Is(context.Cause(stepCtx), errOverBudget) {
			f.Message = "the step was still running when its budget ran out: cancelled"
			f.Actual = fmt.Sprintf("more (cancelled after %v)", testreport.RoundDuration(sr.took))
			sr.failures = nil // what the cut-off step returned says nothing more
			sr.exit = exitTimeout
		}
		sr.failures = append(sr.failures, f)
	}
	if st.kind == stepLine {
		sr.broke = (sr.exit == exitTransport || sr.exit == exitAuth) && sr.exit != st.expect.wantExit()
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
func (r *testRunner) lineStep(ctx context.Context, s *session, st *testStep, lines *lineParser, caps map[string]json.RawMessage, stderr io.Writer, sr *stepReport) {
	words := make([]string, len(st.words))
	for i, w := range st.words {
		words[i] = w.fill(caps)
	}
	lines.vars = captureVars(caps)
	lines.lines = map[string]*parsedLine{}
	fios := output.NewStreams(strings.NewReader(""), io.Discard, stderr)
	out := newConsole(fios, &outputFlags{Color: "never"}, s.env)
	out.files = &safefile.Tree{Dir: s.env.Cwd} // the test file's directory
	o := runStepLine(ctx, s, out, lines, joinWords(words))
	sr.exit = o.code
	if errors.Is(context.Cause(ctx), errOverBudget) {
		return
	}
	c := &checker{environ: r.env.Environ, caps: caps}
	// The tool is the one the line named as it ran: a capture may name it.
	tool := func() (mcp.Tool, error) {
		client, err := s.client(ctx)
		if err != nil {
			return mcp.Tool{}, err
		}
		return s.findTool(ctx, client, o.tool)
	}
	sr.failures = c.check(ctx, &st.expect, o, tool)
	// Linting checks the result against the outputSchema, unless the step's
	// own expectation does.
	if (r.lint || st.checkResult) && !st.expect.outputSchema && o.tool != "" && o.raw != nil {
		if def, err := tool(); err == nil {
			fs, notes := r.surface.checkResult(def.Raw, o.raw)
			sr.failures, sr.notes = append(sr.failures, fs...), append(sr.notes, notes...)
		}
	}
	if len(sr.failures) > 0 {
		return
	}
	value := o.value
	if value == nil {
		value = json.RawMessage("null")
	}
	for _, cs := range st.capture {
		outs, err := c.eval(cs.expr, value)
		switch {
		case err != nil:
			sr.failures = append(sr.failures, failure{Kind: "capture", Message: fmt.Sprintf("%s: %s: %v", cs.name, cs.expr, err)})
		case len(outs) == 0:
			sr.failures = append(sr.failures, failure{Kind: "capture", Message: fmt.Sprintf("%s: %s gave no value", cs.name, cs.expr)})
		default:
			caps[cs.name] = json.RawMessage(outs[0])
		}
	}
}

// runStepLine runs a command line as a batch line runs, and also keeps the
// result as the command printed it before the line's own --jq.
func runStepLine(ctx context.Context, s *session, out *console, lines *lineParser, text string) outcome {
	pl, err := lines.parse(text)
	if err != nil {
		return outcome{err: err, code: exitCode(err), value: batchError(err)}
	}
	var tool string
	if c, ok := pl.cmd.Interface().(callCmd); ok {
		tool = c.Tool
	}
	if pl.text && !pl.output.RawOutput { // call --text, read --text: text, no JSON
		res, err := runBatchCommand(ctx, s, out, lines, text)
		return finish(outcome{value: res, err: err, tool: tool})
	}
	plain := *pl
	plain.output.filter, plain.output.RawOutput, plain.output.ExitStatus = nil, false, false
	var buf bytes.Buffer
	cmd, lineOut := plain.instance(out, &buf)
	runErr := cmd.Run(ctx, s, lineOut)
	o := outcome{raw: printedValue(buf.Bytes()), err: runErr, tool: tool}
	o.value = o.raw
	if pl.output.filter != nil && o.raw != nil {
		var fb bytes.Buffer
		p := output.Printer{Out: &fb, Format: output.Format{Raw: pl.output.RawOutput}, Filter: pl.output.filter, ExitStatus: pl.output.ExitStatus}
		if ferr := p.Print(o.raw); ferr != nil {
			o.err = ferr // as printing comes before the result's own verdict
		}
		if pl.output.RawOutput {
			o.value = printedText(bytes.TrimSuffix(fb.Bytes(), []byte("\n")))
		} else {
			o.value = printedValue(fb.Bytes())
		}
	}
	return finish(o)
}

func finish(o outcome) outcome {
	o.code = exitCode(o.err)
	if o.value == nil && o.err != nil {
		o.value = batchError(o.err)
	}
	return o
}

// data is what became of the file, for the reports.
func (rep *fileReport) data() testreport.File {
	f := rep.file
	d := testreport.File{Path: f.path, Name: f.name, Named: f.name != fileStem(f.path), Server: f.serve.display,
		Code: rep.code, Err: rep.err, Stderr: rep.stderr, Started: rep.started, Took: rep.took, Interrupted: rep.interrupted}
	for _, sr := range rep.steps {
		s := testreport.Step{Index: sr.step.index, Name: sr.step.name, Line: sr.step.line, Status: sr.status, Reason: sr.reason,
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
