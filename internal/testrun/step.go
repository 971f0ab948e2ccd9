package testrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/mcp"
)

// step runs one step and checks it.
func (r *Runner) step(ctx context.Context, s Session, stderrOut io.Writer, f *testfile.File, st *testfile.Step, caps map[string]json.RawMessage, lists *surfaceLists) *stepReport {
	sr := &stepReport{Step: newStep(st)}
	stepCtx := ctx
	if st.Within > 0 {
		var cancel context.CancelFunc
		stepCtx, cancel = context.WithTimeoutCause(ctx, st.Within, errOverBudget)
		defer cancel()
	}
	var stderr bytes.Buffer
	begin := time.Now()
	if st.Kind == testfile.StepLine {
		lists.l = nil // the command may change what the server lists
		r.lineStep(stepCtx, s, st, caps, &stderr, sr)
	} else {
		r.surfaceStep(stepCtx, s, f, st, sr, lists)
	}
	sr.Took = time.Since(begin)
	if st.Within > 0 && (sr.Took > st.Within || errors.Is(context.Cause(stepCtx), errOverBudget)) {
		f := testreport.Failure{Kind: "within", Expected: st.Within.String(), Actual: testreport.RoundDuration(sr.Took).String(),
			Message: "the step took longer than its budget"}
		if errors.Is(context.Cause(stepCtx), errOverBudget) {
			f.Message = "the step was still running when its budget ran out: cancelled"
			f.Actual = fmt.Sprintf("more (cancelled after %v)", testreport.RoundDuration(sr.Took))
			sr.Failures = nil // what the cut-off step returned says nothing more
			sr.Exit = exitcode.Timeout
		}
		sr.Failures = append(sr.Failures, f)
	}
	if st.Kind == testfile.StepLine {
		sr.broke = (sr.Exit == exitcode.Transport || sr.Exit == exitcode.Auth) && sr.Exit != st.Expect.WantExit()
	}
	if text := strings.TrimSpace(stderr.String()); text != "" {
		stderrOut.Write([]byte(text + "\n"))
		if len(sr.Failures) > 0 {
			for line := range strings.Lines(text) {
				sr.Notes = append(sr.Notes, "stderr: "+strings.TrimSuffix(line, "\n"))
			}
		}
	}
	if len(sr.Failures) > 0 {
		sr.Status = testreport.Failed
	}
	return sr
}

// lineStep runs a step's command line and checks what came of it.
func (r *Runner) lineStep(ctx context.Context, s Session, st *testfile.Step, caps map[string]json.RawMessage, stderr io.Writer, sr *stepReport) {
	words, err := st.RunWords(ctx, caps)
	if err != nil { // a template that fails with what a capture holds
		sr.Failures = append(sr.Failures, testreport.Failure{Kind: "step", Message: err.Error()})
		return
	}
	o := s.Run(ctx, words, caps, stderr)
	sr.Exit = o.Code
	if errors.Is(context.Cause(ctx), errOverBudget) {
		return
	}
	// The tool is the one the line named as it ran: a capture may name it.
	tool := func() (mcp.Tool, error) { return s.Tool(ctx, o.Tool) }
	outputSchema := func() (json.RawMessage, error) {
		def, err := tool()
		return def.OutputSchema, err
	}
	sr.Failures, sr.Notes = st.Expect.Check(ctx, o, caps, outputSchema)
	// Linting checks the result against the outputSchema, unless the step's
	// own expectation does.
	if (r.Lint || st.CheckResult) && !st.Expect.OutputSchema && o.Tool != "" && o.Raw != nil {
		if def, err := tool(); err == nil {
			fs, notes := findingsOf(surface.CheckResult(ctx, def.Raw, o.Raw), nil)
			sr.Failures, sr.Notes = append(sr.Failures, fs...), append(sr.Notes, notes...)
		}
	}
	if len(sr.Failures) > 0 {
		return
	}
	value := o.Value
	if value == nil {
		value = json.RawMessage("null")
	}
	sr.Failures = st.Capture(ctx, value, caps)
}
