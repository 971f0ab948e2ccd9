package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

const schema = `{"type":"object","properties":{"message":{"type":"string"},"count":{"type":"integer"}},"required":["message"],"additionalProperties":false}`

func TestCheck(t *testing.T) {
	t.Parallel()
	var warned []string
	c := Checker{Tool: "echo", Warnf: func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }}
	if v, err := c.Check(t.Context(), "inputSchema", json.RawMessage(schema), json.RawMessage(`{"message":"hi"}`)); v != nil || err != nil {
		t.Errorf("valid arguments: %v, %v", v, err)
	}
	v, err := c.Check(t.Context(), "inputSchema", json.RawMessage(schema), json.RawMessage(`{"message":1}`))
	if v == nil || err != nil || !strings.Contains(v.Error(), "/message") {
		t.Errorf("a number for a string: %v, %v", v, err)
	}
	if warned != nil {
		t.Errorf("warnings for a usable schema: %q", warned)
	}
	v, err = c.Check(t.Context(), "outputSchema", json.RawMessage(`{"type":5}`), json.RawMessage(`{}`))
	if v != nil || err != nil || len(warned) != 1 || !strings.HasPrefix(warned[0], `tool "echo" has an invalid outputSchema (`) || !strings.HasSuffix(warned[0], "); not checked") {
		t.Errorf("an invalid schema: %v, %v, warnings %q", v, err, warned)
	}
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("interrupted")
	cancel(stop)
	if _, err := c.Check(ctx, "inputSchema", json.RawMessage(schema), json.RawMessage(`{}`)); !errors.Is(err, stop) {
		t.Errorf("an ended context: %v, want its cause", err)
	}
}

func TestBounded(t *testing.T) {
	t.Parallel()
	ctx, cancel := Checker{Timeout: time.Millisecond}.Bounded(t.Context(), "typing the arguments of tool echo")
	defer cancel()
	<-ctx.Done()
	var te *mcp.TimeoutError
	if err := context.Cause(ctx); !errors.As(err, &te) || te.Method != "typing the arguments of tool echo" || te.Timeout != time.Millisecond {
		t.Errorf("cause %v, want a *mcp.TimeoutError naming the work", err)
	}
	ctx, cancel = Checker{}.Bounded(t.Context(), "x")
	defer cancel()
	if _, ok := ctx.Deadline(); ok {
		t.Error("no Timeout, yet a deadline")
	}
}

func TestArgumentProblem(t *testing.T) {
	t.Parallel()
	c := Checker{Tool: "echo", Warnf: t.Errorf}
	problem := func(args string) string {
		t.Helper()
		v, err := c.Check(t.Context(), "inputSchema", json.RawMessage(schema), json.RawMessage(args))
		if v == nil || err != nil {
			t.Fatalf("%s: %v, %v; want a violation", args, v, err)
		}
		return ArgumentProblem("echo", json.RawMessage(schema), json.RawMessage(args), v)
	}
	if got, want := problem(`{"message":"hi","cuont":1}`), `tool "echo" has no argument "cuont"; did you mean "count"? (it takes: message, count)`; got != want {
		t.Errorf("a misspelt optional name: %q, want %q", got, want)
	}
	if got, want := problem(`{"mesage":"hi"}`), `tool "echo" has no argument "mesage"; did you mean "message"? (it takes: message, count)`; got != want {
		t.Errorf("a misspelt required name: %q, want %q", got, want)
	}
	if got := problem(`{"message":"hi","count":"x"}`); !strings.HasPrefix(got, "arguments ") || !strings.Contains(got, "/count") {
		t.Errorf("a wrong type: %q, want the violation as it is", got)
	}
}

func TestResultFieldsAndErr(t *testing.T) {
	t.Parallel()
	res := json.RawMessage(`{"content":[{"type":"text","text":"it broke"}],"isError":true,"structuredContent":{"a":1}}`)
	f := ResultFields(res)
	if !f.IsError || string(f.Structured) != `{"a":1}` {
		t.Errorf("ResultFields = %+v", f)
	}
	err := f.Err(res)
	if !errors.Is(err, ErrFailed) || err.Error() != "the tool reported an error: it broke" {
		t.Errorf("Err = %v", err)
	}
	if err := ResultFields(json.RawMessage(`{"content":[]}`)).Err(nil); err != nil {
		t.Errorf("Err without isError = %v", err)
	}
	if got := (&FailedError{}).Error(); got != "the tool reported an error (isError: true) without text" {
		t.Errorf("no text: %q", got)
	}
	long := (&FailedError{Text: "\x1b[31m" + strings.Repeat("é", 400)}).Error()
	if strings.Contains(long, "\x1b") || !strings.HasSuffix(long, "…") || len([]rune(strings.TrimPrefix(long, "the tool reported an error: "))) != maxErrorLine+1 {
		t.Errorf("a long text with an escape: %q", long)
	}
}

func TestNewTaskRequest(t *testing.T) {
	t.Parallel()
	if r := NewTaskRequest(false, time.Hour); r != nil {
		t.Errorf("no task: %+v", r)
	}
	for ttl, want := range map[time.Duration]string{0: `{}`, 90 * time.Second: `{"ttl":90000}`} {
		b, _ := json.Marshal(NewTaskRequest(true, ttl))
		if string(b) != want {
			t.Errorf("ttl %v: %s, want %s", ttl, b, want)
		}
	}
}

// modernClient is a modern client of a fake whose tools/call answers
// -32020 while mismatch is set, and otherwise echoes the Mcp-Param-Region
// header; calls counts the calls.
func modernClient(t *testing.T, mismatch *atomic.Bool, calls *atomic.Int32) *mcp.Client {
	t.Helper()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "server/discover":
			x.Reply(x.Result(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"f","version":"1"}}}`))
		case "tools/call":
			calls.Add(1)
			answer := x.Result(`{"content":[{"type":"text","text":"` + x.Header.Get("Mcp-Param-Region") + `"}]}`)
			if mismatch.Load() {
				answer = x.Error(mcp.CodeHeaderMismatch, "Header mismatch")
			}
			x.Reply(answer)
		default:
			return false
		}
		return true
	}})
	tr, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: srv.URL, Mode: mcp.ModeStreamable})
	if err != nil {
		t.Fatal(err)
	}
	sess := mcp.NewSession(tr, mcp.SessionOptions{})
	t.Cleanup(func() { sess.Close(context.Background()) })
	c, err := mcp.Initialize(t.Context(), sess, mcp.ClientOptions{ProtocolVersion: mcp.ModernVersion})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

func TestSendParamHeaders(t *testing.T) {
	t.Parallel()
	var mismatch atomic.Bool
	var calls atomic.Int32
	c := modernClient(t, &mismatch, &calls)
	params := json.RawMessage(`{"name":"t","arguments":{"r":"eu"}}`)
	good := mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}`), Raw: json.RawMessage(`{}`)}
	noRelist := func(context.Context) (mcp.Tool, error) { t.Error("tools listed again"); return good, nil }

	res, err := Send(t.Context(), c, good, params, true, noRelist)
	if err != nil || !strings.Contains(string(res), `"text":"eu"`) {
		t.Errorf("Send = %s, %v; want the argument in its header", res, err)
	}

	bad := mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"properties":{"f":{"type":"number","x-mcp-header":"F"}}}`)}
	before := calls.Load()
	_, err = Send(t.Context(), c, bad, params, true, noRelist)
	var he *HeaderError
	if !errors.As(err, &he) || !strings.HasPrefix(err.Error(), `tool "t" has an invalid x-mcp-header annotation (property "f": `) || calls.Load() != before {
		t.Errorf("an invalid annotation: %v, %d calls sent", err, calls.Load()-before)
	}
	if _, err := Send(t.Context(), c, bad, params, false, noRelist); err != nil {
		t.Errorf("not over HTTP, the annotations do not matter: %v", err)
	}

	// -32020: the tools are listed again and the call tried once more,
	// with the new definition; a second -32020 is the answer.
	mismatch.Store(true)
	relisted := 0
	relist := func(context.Context) (mcp.Tool, error) {
		relisted++
		mismatch.Store(relisted > 1)
		return good, nil
	}
	if res, err := Send(t.Context(), c, good, params, true, relist); err != nil || relisted != 1 || !strings.Contains(string(res), `"text":"eu"`) {
		t.Errorf("one mismatch: %s, %v, listed again %d times", res, err, relisted)
	}
	mismatch.Store(true)
	relisted = 1
	var ce *mcp.CallError
	if _, err := Send(t.Context(), c, good, params, true, relist); !errors.As(err, &ce) || ce.Err.Code != mcp.CodeHeaderMismatch || relisted != 2 {
		t.Errorf("two mismatches: %v, listed again %d times; want the second -32020 after one more list", err, relisted-1)
	}
	failed := errors.New("tools/list failed")
	if _, err := Send(t.Context(), c, good, params, true, func(context.Context) (mcp.Tool, error) { return mcp.Tool{}, failed }); !errors.Is(err, failed) {
		t.Errorf("listing again fails: %v", err)
	}
}

// TestParamsAsEncodingJSON: a call's params written by hand are what
// encoding/json writes, for arguments it would write as they are and for
// those it compacts or escapes.
func TestParamsAsEncodingJSON(t *testing.T) {
	for _, tt := range []struct {
		tool, args string
		task       *TaskRequest
	}{
		{"echo", `{"message":"hi"}`, nil},
		{"echo", `{}`, nil},
		{"echo", `{ "message" : "hi" }`, nil},
		{"echo", `{"html":"<b>&</b>"}`, nil},
		{"weird\"name<>", `{"a":1}`, nil},
		{"é", `{"a":"\u2028"}`, nil},
		{"slow", `{"n":1}`, &TaskRequest{TTL: 5000}},
	} {
		want, err := json.Marshal(struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Task      *TaskRequest    `json:"task,omitempty"`
		}{tt.tool, json.RawMessage(tt.args), tt.task})
		if err != nil {
			t.Fatal(err)
		}
		if got := Params(tt.tool, json.RawMessage(tt.args), tt.task); string(got) != string(want) {
			t.Errorf("Params(%q, %s) = %s, want %s", tt.tool, tt.args, got, want)
		}
	}
}
