package commands

// batch runs many operations in one session: internal/ordered reads stdin a
// line at a time, runs up to --parallel lines at once and hands each line's
// output back in input order, as soon as it is known; the first failure
// stops the batch (cancelling what is in flight, on the wire) unless
// --keep-going.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/ordered"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

type batchCmd struct {
	Parallel  int  `name:"parallel" default:"1" placeholder:"N" help:"Run up to N operations at once; results still come out in input order."`
	KeepGoing bool `name:"keep-going" help:"Run every line even after a failure; the exit code is still the first failure's."`
}

func (c *batchCmd) Help() string {
	return `Reads operations from stdin, one per line, and runs them all in one session, so a script pays the server's start-up once. A line is either a JSON object {"id"?, "method", "params"?}, sent as is (a notifications/ method as a notification), or an mcpv command line such as 'call echo message=hi', parsed and checked exactly as on the command line (typed arguments, pagination, capability checks; --jq, -r and -e work per line and are refused before 'batch' (its output is always compact JSON lines), while --jq-arg and --jq-argjson before 'batch' set variables for every line's --jq, and a line that prints text, with -r, call --text or read --text, has that text as its result string). Blank lines and lines starting with # are skipped.

Each operation writes one JSON line, in input order:

    {"line":N,"id":ID,"result":...}                 success ("id" only when the input had one)
    {"line":N,"result":...,"exit":1}                a tool result with isError: true
    {"line":N,"error":{...},"exit":CODE}            a failure: the server's JSON-RPC error, or {"message":...}

The first failure stops the batch (after writing its line), unless --keep-going; mcpv then exits with that failure's code. Ctrl-C cancels every operation in flight and exits 130.

Examples:

    $ printf '%s\n' 'call echo message=hi' 'list-tools -q .tools[].name' | mcpv batch -- ./server
    $ mcpv batch --parallel 8 --keep-going -u http://127.0.0.1:3000/mcp < operations.txt
    $ echo '{"id":"a","method":"ping"}' | mcpv batch -s github`
}

func (c *batchCmd) Validate() error {
	if c.Parallel < 1 || c.Parallel > maxParallel {
		return fmt.Errorf("--parallel must be between 1 and %d", maxParallel)
	}
	return nil
}

// maxParallel bounds --parallel: each slot is a goroutine and a queued line.
const maxParallel = 1024

// batchOp is one input line.
type batchOp struct {
	line int
	text []byte
}

// batchResult is a line's output and exit code.
type batchResult struct {
	out  []byte
	code int
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
	in := bufio.NewReaderSize(out.ios.In, 64<<10)
	n := 0
	// Results are buffered while the next one is ready, and flushed before
	// waiting, so they appear as soon as they are known.
	w := bufio.NewWriterSize(out.ios.Out, 64<<10)
	first := exitOK
	err := ordered.Run(ctx, ordered.Options[batchOp, batchResult]{
		Workers: c.Parallel,
		Next: func(context.Context) (batchOp, bool, error) {
			for {
				text, err := in.ReadBytes('\n')
				n++
				if t := bytes.TrimSpace(text); len(t) > 0 && t[0] != '#' {
					return batchOp{line: n, text: t}, true, nil
				}
				if err == io.EOF {
					return batchOp{}, false, nil
				}
				if err != nil {
					return batchOp{}, false, fmt.Errorf("reading the batch: %w", err)
				}
			}
		},
		Do: func(ctx context.Context, op batchOp) batchResult {
			return runBatchOp(ctx, s, out, lines, op)
		},
		Emit: func(r batchResult) error {
			if _, err := w.Write(r.out); err != nil {
				return &output.ClosedError{Err: err}
			}
			if r.code != exitOK && first == exitOK {
				first = r.code
				if !c.KeepGoing {
					return errBatchStopped
				}
			}
			return nil
		},
		Idle: func() error {
			if err := w.Flush(); err != nil {
				return &output.ClosedError{Err: err}
			}
			return nil
		},
	})
	var closed *output.ClosedError
	if errors.As(err, &closed) {
		return err // stdout is gone: nothing more can be written
	}
	// What was finished before a stop is written, whatever stopped it.
	if ferr := w.Flush(); ferr != nil {
		return &output.ClosedError{Err: ferr}
	}
	if err != nil && !errors.Is(err, errBatchStopped) {
		return err // interrupted, timed out, or the input failed
	}
	if first != exitOK {
		return batchFailed{first}
	}
	return nil
}

var errBatchStopped = errors.New("the batch stopped at a failure")

// batchFailed carries the first failure's exit code; its line was written.
type batchFailed struct{ code int }

func (e batchFailed) Error() string { return fmt.Sprintf("a batch operation failed (exit %d)", e.code) }

// runBatchOp runs one line and returns its output line and exit code.
func runBatchOp(ctx context.Context, s *session, out *console, lines *lineParser, op batchOp) batchResult {
	if ctx.Err() != nil {
		return batchResult{code: exitInterrupt} // the batch stopped before this line ran
	}
	var id json.RawMessage
	var res json.RawMessage
	var err error
	if op.text[0] == '{' {
		id, res, err = runBatchJSON(ctx, s, op.text)
	} else {
		res, err = runBatchCommand(ctx, s, out, lines, string(op.text))
	}
	code := exitCode(err)
	b := make([]byte, 0, 64+len(res))
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(op.line), 10)
	if id != nil {
		b = append(append(b, `,"id":`...), id...)
	}
	if res != nil || err == nil {
		if res == nil {
			res = json.RawMessage("null")
		}
		b = append(append(b, `,"result":`...), res...)
	}
	if err != nil {
		if res == nil {
			b = append(append(b, `,"error":`...), batchError(err)...)
		}
		b = append(append(b, `,"exit":`...), strconv.Itoa(code)...)
	}
	return batchResult{out: append(b, '}', '\n'), code: code}
}

// batchError is the "error" member: the server's JSON-RPC error as it sent
// it, or mcpv's own message.
func batchError(err error) []byte {
	var ce *mcp.CallError
	if errors.As(err, &ce) {
		return mustJSON(ce.Err)
	}
	return mustJSON(map[string]string{"message": err.Error()})
}

// runBatchJSON sends a {"id"?, "method", "params"?} line as it is.
func runBatchJSON(ctx context.Context, s *session, text []byte) (id, res json.RawMessage, err error) {
	var method string
	var params json.RawMessage
	err = rawjson.ForEachMember(text, func(key string, value []byte) error {
		switch key {
		case "id":
			id = value
		case "method":
			return json.Unmarshal(value, &method)
		case "params":
			params = value
		case "jsonrpc":
		default:
			return fmt.Errorf("unknown member %q", key)
		}
		return nil
	})
	switch {
	case err != nil:
		return id, nil, usageErrorf("not an operation: %v", err)
	case method == "":
		return id, nil, usageErrorf(`an operation needs a "method"`)
	case params != nil && string(params) != "null" && !rawjson.IsObject(params) && params[0] != '[':
		return id, nil, usageErrorf(`"params" must be an object`)
	}
	client, err := s.client(ctx)
	if err != nil {
		return id, nil, err
	}
	if strings.HasPrefix(method, "notifications/") {
		return id, nil, client.Notify(ctx, method, params)
	}
	res, err = client.Call(ctx, method, params)
	return id, res, err
}
