package load

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpv/mcpv/internal/loaddata"
	"github.com/mcpv/mcpv/internal/stringargs"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/mcp"
)

// Step is one step of a scenario: what one virtual user does, in order,
// on one session, each step's result handing values (captures) to the
// steps after it. An iteration of a scenario is one pass through all its
// steps; its latency is the pass's time less its think times. A pass ends
// at its first step that fails, and that step's error names it.
type Step struct {
	// Op is the step's operation, prepared on the first session as any
	// operation is; its Name names the step in the report.
	Op Op
	// Words, when set, are the step's words for a pass, made from what
	// the steps before captured (caps); Op was parsed from the words with
	// placeholders for them. Nil: the step's words never change.
	Words func(caps map[string]json.RawMessage) []string
	// Done judges what came of the step (its result, nil on an error, and
	// its error) and keeps its captures in caps; an error fails the step.
	Done func(ctx context.Context, result json.RawMessage, err error, caps map[string]json.RawMessage) error
	// Think is the pause before the step, drawn from Think[0] to Think[1]
	// (from the seed, the iteration and the step).
	Think [2]time.Duration
}

// ExpectationError is a step whose result was not what its scenario
// expects: the report counts it as its own kind of error.
type ExpectationError struct{ Message string }

func (e *ExpectationError) Error() string { return e.Message }

// pass runs iteration k of session i, a pass through the scenario's
// steps on client: it records each step, and the pass when every step
// succeeded.
func (r *run) pass(k int64, i int, client *mcp.Client, late time.Duration) {
	caps := map[string]json.RawMessage{}
	start := time.Now()
	var thought time.Duration
	in, err := r.input(k, i)
	if err != nil {
		r.failed(0, "template", err, late)
		return
	}
	for j := range r.cfg.Steps {
		st := &r.cfg.Steps[j]
		if d := think(r.cfg.Seed, k, j, st.Think); d > 0 {
			t := time.Now()
			if !r.sleep(d) {
				return // the run ended: no measurement
			}
			thought += time.Since(t)
		}
		op := &r.cfg.Ops[j]
		if st.Words != nil {
			op, err = op.filled(r.ctx, st.Words(caps), r.cfg.ReadFile)
		}
		var params json.RawMessage // the prepared ones, when op does not vary
		if err == nil {
			params, err = op.Params(r.ctx, in)
		}
		if err != nil {
			r.failed(j, "template", err, late)
			return
		}
		t := time.Now()
		res, err := op.result(r.ctx, client, params, nil)
		d := time.Since(t)
		if j == 0 {
			d += late
		}
		if r.ctx.Err() == nil && st.Done != nil {
			err = st.Done(r.ctx, res, err, caps)
		}
		if err != nil {
			r.failed(j, "operation", err, late)
			return
		}
		r.rec.step(j, d)
	}
	r.rec.pass(time.Since(start)-thought+late, late)
}

// think is the pause before step j of iteration k.
func think(seed uint64, k int64, j int, t [2]time.Duration) time.Duration {
	if t[1] <= t[0] {
		return t[0]
	}
	u := loaddata.Uniform(seed^uint64(j+1)*0x2545f4914f6cdd1d, k)
	return t[0] + time.Duration(u*float64(t[1]-t[0]))
}

// filled is op with the words of a pass (its captures filled in): its
// tool's definition is the prepared one's when it names the same tool.
func (op *Op) filled(ctx context.Context, words []string, readFile func(string) ([]byte, error)) (*Op, error) {
	n, err := ParseOp(words, readFile)
	if err != nil {
		return nil, err
	}
	n.Name, n.http, n.keep = op.Name, op.http, op.keep
	switch n.kind {
	case "call":
		if n.target == op.target {
			n.tool, n.sender = op.tool, op.sender
		} else {
			n.setTool(mcp.Tool{Name: n.target})
		}
		if err := n.typeArgs(ctx, readFile); err != nil {
			return nil, err
		}
		n.params = toolcall.Params(n.target, n.args, nil)
	case "get-prompt":
		ms, err := stringargs.Parse(n.words[1:], "prompt arguments")
		if err != nil {
			return nil, err
		}
		n.args = stringargs.Object(ms)
		n.params = n.promptParams(n.args)
	}
	return &n, nil
}
