package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
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
