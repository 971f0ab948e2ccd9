package commands

// mcpv batch apart from its command line: the input read
// a line at a time (blank lines and # comments skipped), up to N lines run
// at once through internal/ordered, each line's output line written in
// input order as soon as it is known, the first failure stopping the batch
// (cancelling what is in flight) unless asked to keep going; the form of
// an output line; a JSON operation line checked and sent as it is; and
// what a command printed made one JSON value.

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

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/ordered"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// batchOp is one input line: its number and its text, trimmed.
type batchOp struct {
	Line int
	Text []byte
}

// batchResult is a line's output line and its exit code (0: it succeeded).
type batchResult struct {
	Out  []byte
	Code int
}

// batchOptions are a batch's input, output and workers.
type batchOptions struct {
	In        io.Reader
	Out       io.Writer
	Workers   int
	KeepGoing bool
	// Do runs one line; it is called on up to Workers goroutines at once.
	Do func(context.Context, batchOp) batchResult
}

var errStopped = errors.New("the batch stopped at a failure")

// Run runs the batch and returns the first failing line's code (0 when
// every line succeeded), or the error that ended it early: ctx's, the
// input's, or an *output.ClosedError when Out is gone. What was finished
// before a stop is written, whatever stopped it.
func runBatch(ctx context.Context, o batchOptions) (first int, err error) {
	in := bufio.NewReaderSize(o.In, 64<<10)
	n := 0
	// Results are buffered while the next one is ready, and flushed before
	// waiting, so they appear as soon as they are known.
	w := bufio.NewWriterSize(o.Out, 64<<10)
	err = ordered.Run(ctx, ordered.Options[batchOp, batchResult]{
		Workers: o.Workers,
		Next: func(context.Context) (batchOp, bool, error) {
			for {
				text, err := in.ReadBytes('\n')
				n++
				if t := bytes.TrimSpace(text); len(t) > 0 && t[0] != '#' {
					return batchOp{Line: n, Text: t}, true, nil
				}
				if err == io.EOF {
					return batchOp{}, false, nil
				}
				if err != nil {
					return batchOp{}, false, fmt.Errorf("reading the batch: %w", err)
				}
			}
		},
		Do: o.Do,
		Emit: func(r batchResult) error {
			if _, err := w.Write(r.Out); err != nil {
				return &output.ClosedError{Err: err}
			}
			if r.Code != 0 && first == 0 {
				first = r.Code
				if !o.KeepGoing {
					return errStopped
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
	if isA[*output.ClosedError](err) {
		return first, err // Out is gone: nothing more can be written
	}
	if ferr := w.Flush(); ferr != nil {
		return first, &output.ClosedError{Err: ferr}
	}
	if err != nil && !errors.Is(err, errStopped) {
		return first, err // interrupted, timed out, or the input failed
	}
	return first, nil
}

// batchOutputLine is the output line of the operation on input line n:
// {"line":N,"id"?,"result"?,"error"?,"exit"?}. A failure (err) has an
// "exit", and an "error" unless it has a result (a tool's isError: true).
func batchOutputLine(n int, id, res json.RawMessage, err error, code int) []byte {
	b := make([]byte, 0, 64+len(res))
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(n), 10)
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
			b = append(append(b, `,"error":`...), errorMember(err)...)
		}
		b = append(append(b, `,"exit":`...), strconv.Itoa(code)...)
	}
	return append(b, '}', '\n')
}

// errorMember is the "error" member: the server's JSON-RPC error as it
// sent it, or mcpv's own message.
func errorMember(err error) []byte {
	if ce, ok := errors.AsType[*mcp.CallError](err); ok {
		return mustJSON(ce.Err)
	}
	return mustJSON(map[string]string{"message": err.Error()})
}

// RunJSON sends a {"id"?, "method", "params"?} line as it is (a
// notifications/ method as a notification) on the session client opens.
// A line that is no such object is a *errkind.UsageError.
func runJSONLine(ctx context.Context, text []byte, client func(context.Context) (*mcp.Client, error)) (id, res json.RawMessage, err error) {
	var method string
	var params json.RawMessage
	err = rawjson.ForEachMember(text, func(key string, value []byte) error {
		switch key {
		case "id":
			id = value
		case "method":
			var err error
			method, err = rawjson.String(value)
			return err
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
		return id, nil, errkind.Usagef("not an operation: %v", err)
	case method == "":
		return id, nil, errkind.Usagef(`an operation needs a "method"`)
	case params != nil && string(params) != "null" && !rawjson.IsObject(params) && params[0] != '[':
		return id, nil, errkind.Usagef(`"params" must be an object`)
	}
	c, err := client(ctx)
	if err != nil {
		return id, nil, err
	}
	if strings.HasPrefix(method, "notifications/") {
		return id, nil, c.Notify(ctx, method, params)
	}
	res, err = c.Call(ctx, method, params)
	return id, res, err
}

// textValue is what a command printed as text, as a JSON string; nothing
// printed is null.
func textValue(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return mustJSON(string(b))
}

// Value turns what a command printed into one JSON value: the value
// itself, an array when it printed several (a --jq filter's outputs), or
// a string when it printed something else.
func printedValue(b []byte) json.RawMessage {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	lines := bytes.Split(b, []byte("\n"))
	for _, l := range lines {
		if !json.Valid(l) {
			return mustJSON(string(b) + "\n")
		}
	}
	if len(lines) == 1 {
		return lines[0]
	}
	return append(append([]byte{'['}, bytes.Join(lines, []byte(","))...), ']')
}
