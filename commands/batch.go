package commands

// batch runs many operations in one session: batchrun.go reads stdin a
// line at a time, runs up to --parallel lines at once and writes each
// line's output in input order, as soon as it is known; the first failure
// stops the batch (cancelling what is in flight, on the wire) unless
// --keep-going. A line that is a command line is parsed and run here.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/exitcode"
)

type batchCmd struct {
	// --parallel is bounded (max): each slot is a goroutine and a queued line.
	Parallel  int  `name:"parallel" default:"1" min:"1" max:"1024" placeholder:"N" help:"Run up to N operations at once; results still come out in input order."`
	KeepGoing bool `name:"keep-going" help:"Run every line even after a failure; the exit code is still the first failure's."`
}

func (c *batchCmd) Help() string {
	return `Reads operations from stdin, one per line, and runs them all in one session, so a script pays the server's start-up once. A line is either a JSON object {"id"?, "method", "params"?}, sent as is (a notifications/ method as a notification), or an mcpv command line such as 'call echo message=hi', parsed and checked exactly as on the command line (typed arguments, pagination, capability checks; --jq, -r and -e work per line and are refused before 'batch' (its output is always compact JSON lines), while --jq-arg and --jq-argjson before 'batch' set variables for every line's --jq, and a line that prints text, with -r, call --text or read --text, has that text as its result string). Blank lines and lines starting with # are skipped.

Each operation writes one JSON line, in input order:

    {"line":N,"id":ID,"result":...}       success ("id" only when the input
                                          had one)
    {"line":N,"result":...,"exit":1}      a tool result with isError: true
    {"line":N,"error":{...},"exit":CODE}  a failure: the server's JSON-RPC
                                          error, or {"message":...}

The first failure stops the batch (after writing its line), unless --keep-going; mcpv then exits with that failure's code. Ctrl-C cancels every operation in flight and exits 130.

Examples:

    $ printf '%s\n' 'call echo message=hi' 'list-tools -q .tools[].name' |
        mcpv batch -- ./server
    $ mcpv batch --parallel 8 --keep-going -u http://127.0.0.1:3000/mcp < ops
    $ echo '{"id":"a","method":"ping"}' | mcpv batch -s github`
}

func (c *batchCmd) notInBatch() {}

func (c *batchCmd) Run(ctx context.Context, s *session, out *console) error {
	if err := out.flags.perLineOnly(); err != nil {
		return err
	}
	if _, err := s.client(ctx); err != nil {
		return err
	}
	s.cacheTools = true
	lines := &lineParser{environ: out.env.Environ, vars: out.flags.variables(), lines: map[string]*parsedLine{}}
	first, err := runBatch(ctx, batchOptions{In: out.ios.In, Out: out.ios.Out, Workers: c.Parallel, KeepGoing: c.KeepGoing,
		Do: func(ctx context.Context, op batchOp) batchResult { // one line: its output line and exit code
			if ctx.Err() != nil {
				return batchResult{Code: exitcode.Interrupt} // the batch stopped before this line ran
			}
			var id, res json.RawMessage
			var err error
			if op.Text[0] == '{' {
				id, res, err = runJSONLine(ctx, op.Text, s.client)
			} else {
				res, err = runBatchCommand(ctx, s, out, lines, string(op.Text))
			}
			code := exitCode(err)
			return batchResult{Out: batchOutputLine(op.Line, id, res, err, code), Code: code}
		}})
	if err != nil || first == exitcode.OK {
		return err
	}
	return batchFailed{code: first}
}

// batchFailed carries the first failure's exit code. Its line was
// written; where failures are told as one JSON object, which no line may
// come before, reasons holds what the lines would have said.
type batchFailed struct {
	code    int
	reasons []string
}

func (e batchFailed) Error() string {
	if len(e.reasons) > 0 {
		return strings.Join(e.reasons, "; ")
	}
	return fmt.Sprintf("a batch operation failed (exit %d)", e.code)
}
