// Package testrun runs the files of mcpv test, several at once, their
// reports handed on in the order given: each file's selected steps in one
// session, which the command line opens and runs each step's words
// in (a Session), its captures kept for the steps after, each step's
// outcome checked against its expectations, within its time budget; and
// the snapshot and lint steps, which look at the server itself. What
// became of each file and step is a data-only testreport.File.
package testrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// Session is a file's session as the command line opens it, and runs a
// step's command line in it as a batch line.
type Session interface {
	// Client is the session's client; the first call opens the session.
	Client(ctx context.Context) (*mcp.Client, error)
	// Run runs a step's command line with the captures in caps as its jq
	// variables, its diagnostics to stderr.
	Run(ctx context.Context, words []string, caps map[string]json.RawMessage, stderr io.Writer) testfile.Outcome
	// Tool is the definition of the tool called name.
	Tool(ctx context.Context, name string) (mcp.Tool, error)
	// Close ends the session.
	Close()
}

// Job is a file to run, with its server resolved and its steps selected.
type Job struct {
	File     *testfile.File
	Selected []bool
	// Secrets is the run's masker, which knows the values no report of
	// the file may show, and learns what its session comes to hold and
	// send; the file's report is masked with it.
	Secrets *redact.Scrubber
	// Open makes the file's session (opened on its first use), writing
	// what it and the server say to stderr (a scrubber that shares what
	// Secrets knows: the session tells it its secrets) and log. The
	// error is one before any server starts.
	Open func(stderr *redact.Scrubber, log *slog.Logger) (Session, error)
}

// Runner runs the files of one mcpv test.
type Runner struct {
	Lint     bool // check every tool result (--lint)
	Update   bool // rewrite snapshots (--update)
	FailFast bool
	// CI: a missing snapshot fails its step rather than being written,
	// so that a snapshot never committed is not recorded, unseen, in CI.
	CI bool
	// Cwd is what snapshot paths in messages are relative to.
	Cwd string
	// Progress shows what runs, on a terminal; may be nil.
	Progress func(file, step string)
	// Code is the exit code mcpv ends with for an error, and Hint what it
	// adds to the error's message.
	Code func(error) int
	Hint func(error) string

	stopped atomic.Bool // set at the first failure under --fail-fast
}

// errOverBudget ends a step that runs past its within: budget.
var errOverBudget = errors.New("over its time budget")

// maxStderrTail bounds what a report keeps of a file's stderr.
const maxStderrTail = 8 << 10

// Run runs a resolved file's selected steps, and says what became of
// it and of each of them.
func (r *Runner) Run(ctx context.Context, j Job) testreport.File {
	if j.Secrets == nil {
		j.Secrets = redact.NewScrubber(nil)
	}
	f := j.File
	rep := &testreport.File{Path: f.Path, Name: f.Name, Named: f.Name != testfile.Stem(f.Path), Server: f.Server.Display, Started: time.Now()}
	r.run(ctx, j, rep)
	rep.Took = time.Since(rep.Started)
	rep.Mask(j.Secrets.String)
	return *rep
}

func (r *Runner) run(ctx context.Context, j Job, rep *testreport.File) {
	f, selected := j.File, j.Selected
	skipRest := func(from int, reason string) {
		for i := from; i < len(f.Steps); i++ {
			if selected[i] {
				rep.Steps = append(rep.Steps, skipped(f.Steps[i], reason))
			}
		}
	}
	// interrupt ends a file that had started at Ctrl-C: when no step was
	// in flight, the first one not run stands for the interruption.
	interrupt := func(from int, inFlight bool) {
		rep.Interrupted = true
		n := len(rep.Steps)
		skipRest(from, "not run: interrupted")
		if !inFlight && n < len(rep.Steps) {
			rep.Steps[n].Interrupted = true
		}
	}
	switch {
	case ctx.Err() != nil: // never started: nothing to stand for
		rep.Interrupted = true
		skipRest(0, "not run: interrupted")
		return
	case r.stopped.Load():
		skipRest(0, "not run: --fail-fast, after an earlier failure")
		return
	}
	tail := &tailBuffer{max: maxStderrTail}
	scrub := j.Secrets.Writer(tail)
	stray := &strayOutput{Handler: output.NewLogger(scrub).Handler(), mu: new(sync.Mutex), n: new(int), first: new(string), warnings: new([]string)}
	s, err := j.Open(scrub, slog.New(stray))
	if err != nil {
		rep.Code, rep.Err = r.Code(err), err.Error()
		skipRest(0, "not run: the session could not be opened")
		return
	}
	defer func() {
		s.Close()
		scrub.Flush()
		rep.Stderr, rep.Warnings = tail.String(), stray.said()
		noteStrayOutput(rep, f, stray)
	}()
	if r.Progress != nil {
		r.Progress(f.Path, "starting the server")
	}
	if _, err := s.Client(ctx); err != nil {
		if ctx.Err() != nil {
			interrupt(0, false)
			return
		}
		rep.Code = r.Code(err)
		msg, _, _ := strings.Cut(err.Error(), "\n") // the server's stderr is in the report
		rep.Err = msg + r.Hint(err)
		skipRest(0, "not run: the session could not be opened")
		return
	}
	lists := &surfaceLists{mask: j.Secrets.Mask}
	caps := map[string]json.RawMessage{}
	capturedBy := map[string]int{}
	for i, st := range f.Steps {
		if !selected[i] {
			continue
		}
		switch {
		case ctx.Err() != nil:
			interrupt(i, false)
			return
		case r.stopped.Load():
			skipRest(i, "not run: --fail-fast, after an earlier failure")
			return
		case st.Skip != "":
			rep.Steps = append(rep.Steps, skipped(st, st.Skip))
			continue
		}
		if missing := missingCapture(st, caps); missing != "" {
			reason := fmt.Sprintf("not run: it uses {{%s}}, which no step before it captured", missing)
			if n, ok := capturedBy[missing]; ok {
				reason = fmt.Sprintf("not run: it uses {{%s}}, which step %d did not capture", missing, n)
			}
			rep.Steps = append(rep.Steps, skipped(st, reason))
			continue
		}
		if r.Progress != nil {
			r.Progress(f.Path, st.Name)
		}
		sr := r.step(ctx, s, scrub, f, st, caps, lists)
		for _, c := range st.Captures {
			capturedBy[c.Name] = st.Index
		}
		if sr.Status == testreport.Failed && r.FailFast {
			r.stopped.Store(true)
		}
		if ctx.Err() != nil {
			sr.Status, sr.Reason, sr.Failures, sr.Interrupted = testreport.Skipped, "interrupted", nil, true
			rep.Steps = append(rep.Steps, sr.Step)
			interrupt(i+1, true)
			return
		}
		rep.Steps = append(rep.Steps, sr.Step)
		if sr.broke {
			rep.Code = sr.Exit
			rep.Err = fmt.Sprintf("the session broke at step %d", st.Index)
			skipRest(i+1, fmt.Sprintf("not run: the session broke at step %d", st.Index))
			return
		}
	}
}

// surfaceStep runs a snapshot, lint or cost step. Only authorization failing or
// the connection ending breaks the session: a list that never ends (a
// cursor sent twice) is the step's failure, which a lint step after it
// reports by its rule.
func (r *Runner) surfaceStep(ctx context.Context, s Session, f *testfile.File, st *testfile.Step, sr *stepReport, lists *surfaceLists) {
	client, err := s.Client(ctx) // open already
	switch {
	case err != nil:
		sr.Failures, sr.Exit, sr.broke = []testreport.Failure{{Kind: "session", Message: err.Error()}}, r.Code(err), true
		return
	case st.Kind == testfile.StepSnapshot:
		sr.Failures, sr.Notes, sr.Exit = r.snapshot(ctx, lists.of(client), lists.mask, safefile.Tree{Dir: f.Dir}, st.Snapshot, recordCommand(st, f.Path))
	case st.Kind == testfile.StepCost:
		sr.Failures, sr.Notes, sr.Exit = r.cost(ctx, lists.of(client), st.Cost)
	default:
		sr.Failures, sr.Notes, sr.Exit = r.lint(ctx, lists.of(client), st.Ignore)
	}
	select {
	case <-client.Done():
		sr.broke = sr.Exit != exitcode.OK
	default:
		sr.broke = sr.Exit == exitcode.Auth
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
