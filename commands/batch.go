package commands

// batch runs many operations in one session. Design:
//
//   - the reader goroutine reads stdin a line at a time and hands each
//     operation both to the workers and, in input order, to the writer; the
//     order channel holds at most --parallel operations, so a million-line
//     input runs in constant memory. It stops at EOF or when the batch is
//     stopped (ctx), and closes both channels.
//   - --parallel worker goroutines run operations; they stop when the work
//     channel is closed.
//   - the writer (the command's own goroutine) waits for each operation's
//     result in input order and writes its NDJSON line at once, so results
//     appear while input is still coming. After the first failure, unless
//     --keep-going, it cancels what is in flight (on the wire, like Ctrl-C),
//     drains the channels and returns the failure's exit code.

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

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

type batchCmd struct {
	Parallel  int  `name:"parallel" default:"1" placeholder:"N" help:"Run up to N operations at once; results still come out in input order."`
	KeepGoing bool `name:"keep-going" help:"Run every line even after a failure; the exit code is still the first failure's."`
}

func (c *batchCmd) Help() string {
	return `Reads operations from stdin, one per line, and runs them all in one session, so a script pays the server's start-up once. A line is either a JSON object {"id"?, "method", "params"?}, sent as is (a notifications/ method as a notification), or an mcpv command line such as 'call echo message=hi', parsed and checked exactly as on the command line (typed arguments, pagination, capability checks; --jq and the other output flags work per line, and a line that prints text, with -r or call --text, has that text as its result string). Blank lines and lines starting with # are skipped.

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

// batchOp is one input line on its way through the batch.
type batchOp struct {
	line int
	text []byte
	done chan []byte // the output line; exit code in code
	code int
}

func (c *batchCmd) Run(ctx context.Context, a *app) error {
	if _, err := a.connect(ctx); err != nil {
		return err
	}
	a.batch = &batchState{lines: map[string]*parsedLine{}}
	a.tools = &mcp.ToolCache{}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)

	order := make(chan *batchOp, c.Parallel)
	work := make(chan *batchOp)
	readErr := make(chan error, 1)
	go func() { // the reader; stops at EOF, on a read error, or when ctx ends
		readErr <- c.read(ctx, a.ios.In, order, work)
		close(order)
		close(work)
	}()
	for range c.Parallel {
		// A worker stops when work is closed; after an interrupt with stdin
		// still open it idles until the process exits.
		go func() {
			for op := range work {
				out, code := a.runBatchOp(ctx, op)
				op.code = code
				op.done <- out
			}
		}()
	}

	// Results are buffered while the next one is ready, and flushed before
	// waiting, so they appear as soon as they are known.
	w := bufio.NewWriterSize(a.ios.Out, 64<<10)
	// end stops the batch early: it cancels what is in flight (on the wire)
	// and waits for the operations already handed out, never for input.
	end := func(cause error) {
		stop(cause)
		drainReady(order)
	}
	first := 0
	for {
		op, err := nextOp(ctx, order, w)
		if err != nil {
			end(err)
			break
		}
		if op == nil {
			if err := <-readErr; err != nil {
				return err
			}
			break
		}
		out, err := opDone(ctx, op, w)
		if err != nil {
			end(err)
			break
		}
		if _, err := w.Write(out); err != nil {
			end(err)
			return &output.ClosedError{Err: err}
		}
		if op.code != exitOK && first == exitOK {
			first = op.code
			if !c.KeepGoing {
				end(errBatchStopped)
				break
			}
		}
	}
	var closed *output.ClosedError
	if cause := context.Cause(ctx); errors.As(cause, &closed) {
		return cause // stdout is gone: nothing more can be written
	}
	// What was finished before a stop is written, whatever stopped it.
	if err := w.Flush(); err != nil {
		return &output.ClosedError{Err: err}
	}
	if cause := context.Cause(ctx); errors.Is(cause, ErrInterrupted) || errors.Is(cause, context.DeadlineExceeded) {
		return cause
	}
	if first != exitOK {
		return batchFailed{first}
	}
	return nil
}

// nextOp waits for the next operation in input order, flushing w first if
// it has to wait; nil at the end of the input. It gives up when ctx ends.
func nextOp(ctx context.Context, order <-chan *batchOp, w *bufio.Writer) (*batchOp, error) {
	select {
	case op := <-order:
		return op, nil
	default:
	}
	if err := w.Flush(); err != nil {
		return nil, &output.ClosedError{Err: err}
	}
	select {
	case op := <-order:
		return op, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// opDone waits for op's output line, flushing w first if it has to wait.
func opDone(ctx context.Context, op *batchOp, w *bufio.Writer) ([]byte, error) {
	select {
	case out := <-op.done:
		return out, nil
	default:
	}
	if err := w.Flush(); err != nil {
		return nil, &output.ClosedError{Err: err}
	}
	select {
	case out := <-op.done:
		return out, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

var errBatchStopped = errors.New("the batch stopped at a failure")

// batchFailed carries the first failure's exit code; its line was written.
type batchFailed struct{ code int }

func (e batchFailed) Error() string { return fmt.Sprintf("a batch operation failed (exit %d)", e.code) }

// drainReady waits for the operations already queued (and so handed out,
// or about to be refused by the stopping reader): their requests are
// cancelled on the wire before the session closes. It does not wait for
// more input.
func drainReady(order <-chan *batchOp) {
	for {
		select {
		case op, ok := <-order:
			if !ok {
				return
			}
			<-op.done
		default:
			return
		}
	}
}

// read feeds the input's lines to the writer (in order) and the workers.
func (c *batchCmd) read(ctx context.Context, in io.Reader, order, work chan<- *batchOp) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for n := 1; ; n++ {
		text, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(text)) > 0 && !bytes.HasPrefix(bytes.TrimSpace(text), []byte("#")) {
			op := &batchOp{line: n, text: bytes.TrimSpace(text), done: make(chan []byte, 1)}
			select {
			case order <- op:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
			select {
			case work <- op:
			case <-ctx.Done():
				op.done <- nil
				return context.Cause(ctx)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the batch: %w", err)
		}
	}
}

// runBatchOp runs one line and returns its output line and exit code.
func (a *app) runBatchOp(ctx context.Context, op *batchOp) ([]byte, int) {
	if ctx.Err() != nil {
		return nil, exitInterrupt
	}
	var id json.RawMessage
	var res json.RawMessage
	var err error
	if op.text[0] == '{' {
		id, res, err = a.runBatchJSON(ctx, op.text)
	} else {
		res, err = a.runBatchCommand(ctx, op.text)
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
	return append(b, '}', '\n'), code
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
func (a *app) runBatchJSON(ctx context.Context, text []byte) (id, res json.RawMessage, err error) {
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
	if strings.HasPrefix(method, "notifications/") {
		return id, nil, a.client.Notify(ctx, method, params)
	}
	res, err = a.client.Call(ctx, method, params)
	return id, res, err
}
