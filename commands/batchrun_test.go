package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// echo answers each line with its number and text; a line "fail N" exits
// N, and a line "sleep" waits a little first, to come out of order.
func echo(_ context.Context, op batchOp) batchResult {
	code := 0
	fmt.Sscanf(string(op.Text), "fail %d", &code)
	if string(op.Text) == "sleep" {
		time.Sleep(20 * time.Millisecond)
	}
	return batchResult{Out: fmt.Appendf(nil, "%d %s\n", op.Line, op.Text), Code: code}
}

func TestRun(t *testing.T) {
	t.Parallel()
	const in = "sleep\n\n# a comment\n  b  \nfail 3\nc\nfail 4\nd"
	for _, tt := range []struct {
		name      string
		keepGoing bool
		first     int
		out       string
	}{
		{"stops at the first failure", false, 3, "1 sleep\n4 b\n5 fail 3\n"},
		{"keeps going", true, 3, "1 sleep\n4 b\n5 fail 3\n6 c\n7 fail 4\n8 d\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			first, err := runBatch(t.Context(), batchOptions{In: strings.NewReader(in), Out: &out, Workers: 4, KeepGoing: tt.keepGoing, Do: echo})
			if err != nil || first != tt.first {
				t.Errorf("runBatch = %d, %v; want %d, nil", first, err, tt.first)
			}
			// Lines come out in input order, the slow first one first; a
			// stop writes nothing after the failure.
			if got := out.String(); got != tt.out {
				t.Errorf("output %q, want %q", got, tt.out)
			}
		})
	}
	var out strings.Builder
	if first, err := runBatch(t.Context(), batchOptions{In: strings.NewReader("a\nb\n"), Out: &out, Workers: 1, Do: echo}); first != 0 || err != nil || out.String() != "1 a\n2 b\n" {
		t.Errorf("all succeed: %d, %v, %q", first, err, out.String())
	}
}

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestRunEnds(t *testing.T) {
	t.Parallel()
	_, err := runBatch(t.Context(), batchOptions{In: strings.NewReader("a\n"), Out: brokenWriter{}, Workers: 1, Do: echo})
	var ce *output.ClosedError
	if !errors.As(err, &ce) {
		t.Errorf("a closed output: %v, want an *output.ClosedError", err)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("interrupted")
	cancel(stop)
	if _, err := runBatch(ctx, batchOptions{In: strings.NewReader("a\n"), Out: &strings.Builder{}, Workers: 1, Do: echo}); !errors.Is(err, stop) {
		t.Errorf("an ended context: %v, want its cause", err)
	}
}

func TestLine(t *testing.T) {
	t.Parallel()
	callErr := &mcp.CallError{Method: "tools/call", Err: &mcp.RPCError{Code: -32602, Message: "bad"}}
	for _, tt := range []struct {
		id, res string
		err     error
		code    int
		want    string
	}{
		{`"a"`, `{"x":1}`, nil, 0, `{"line":7,"id":"a","result":{"x":1}}`},
		{"", "", nil, 0, `{"line":7,"result":null}`},
		{"", `{"isError":true}`, errors.New("the tool reported an error"), 1, `{"line":7,"result":{"isError":true},"exit":1}`},
		{"", "", callErr, 3, `{"line":7,"error":{"code":-32602,"message":"bad"},"exit":3}`},
		{"1", "", errors.New("no <server>"), 4, `{"line":7,"id":1,"error":{"message":"no <server>"},"exit":4}`},
	} {
		var id, res json.RawMessage
		if tt.id != "" {
			id = json.RawMessage(tt.id)
		}
		if tt.res != "" {
			res = json.RawMessage(tt.res)
		}
		got := string(batchOutputLine(7, id, res, tt.err, tt.code))
		want := strings.ReplaceAll(tt.want, "<server>", `\u003cserver\u003e`) + "\n"
		if got != want {
			t.Errorf("batchOutputLine = %s, want %s", got, want)
		}
	}
}

func TestRunJSONRefusesWhatIsNoOperation(t *testing.T) {
	t.Parallel()
	opened := false
	client := func(context.Context) (*mcp.Client, error) { opened = true; return nil, errors.New("no server") }
	for line, want := range map[string]string{
		`{"id":1,"method":"ping","extra":1}`:  `not an operation: unknown member "extra"`,
		`{"id":1}`:                            `an operation needs a "method"`,
		`{"method":"x","params":"s"}`:         `"params" must be an object`,
		`{"method":"x","params":{}`:           "not an operation",
		`{"jsonrpc":"2.0","method":7,"id":2}`: "not an operation",
	} {
		_, _, err := runJSONLine(t.Context(), []byte(line), client)
		var ue *errkind.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a usage error saying %q", line, err, want)
		}
	}
	if opened {
		t.Error("a session was opened for a line that is no operation")
	}
	id, _, err := runJSONLine(t.Context(), []byte(`{"id":"x","method":"ping","params":null}`), client)
	if string(id) != `"x"` || err == nil || err.Error() != "no server" {
		t.Errorf("an operation: id %s, %v; want the id kept and the session's error", id, err)
	}
}

func TestValueAndText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                  "",
		"  \n":              "",
		`{"a":1}` + "\n":    `{"a":1}`,
		"1\n2\n\"x\"\n":     `[1,2,"x"]`,
		"not json\n":        `"not json\n"`,
		"1\nnot json\n\n\n": `"1\nnot json\n"`,
	} {
		if got := string(printedValue([]byte(in))); got != want {
			t.Errorf("printedValue(%q) = %s, want %s", in, got, want)
		}
	}
	if got := textValue(nil); got != nil {
		t.Errorf("textValue(nil) = %s", got)
	}
	if got := string(textValue([]byte("a\n<b>"))); got != `"a\n\u003cb\u003e"` {
		t.Errorf("textValue = %s", got)
	}
	buf := []byte(" x y \nz")
	printedValue(buf[:5])
	if string(buf) != " x y \nz" {
		t.Errorf("printedValue wrote into its argument's array: %q", buf)
	}
}

func TestErrorMember(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("wrapped: %w", &mcp.CallError{Method: "m", Err: &mcp.RPCError{Code: 1, Message: "m", Data: json.RawMessage(`{"d":2}`)}})
	if got := string(errorMember(err)); got != `{"code":1,"message":"m","data":{"d":2}}` {
		t.Errorf("a server's error: %s", got)
	}
}
