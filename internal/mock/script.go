package mock

// What an entry does before it answers (its steps: waits, notifications,
// questions to the client), and its answer: a result as written, one
// made by jq from the call and the client's answers, or an error.
//
// A responses file may come from someone else, so each thing it asks for
// is bounded: the steps of an entry (MaxSteps), its waits in all
// (MaxWait), each question's wait for the client (MaxAskTimeout), and
// each jq run (jq's bounds). A wait and a question end when the call
// is cancelled (the client's notifications/cancelled, the client gone)
// or the mock closes (Ctrl-C).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/duration"
	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/mcp"
)

// Bounds of an entry's steps.
const (
	MaxSteps          = 10000
	MaxWait           = 10 * time.Minute
	DefaultAskTimeout = time.Minute
	MaxAskTimeout     = 10 * time.Minute
)

// Step is one thing an entry does before it answers: exactly one of its
// members.
type Step struct {
	// Wait waits this long.
	Wait *Duration `json:"wait,omitempty"`
	// Progress sends notifications/progress with these params under the
	// request's progress token (nothing when the request has none).
	Progress json.RawMessage `json:"progress,omitempty"`
	// Log sends notifications/message with these params, to a client
	// that asked for their level.
	Log json.RawMessage `json:"log,omitempty"`
	// Notify sends any notification: a list's change, a resource's
	// update.
	Notify *Notification `json:"notify,omitempty"`
	// Ask puts a request to the client (elicitation, sampling, roots);
	// its answer goes into $answers.
	Ask *Ask `json:"ask,omitempty"`
}

// Notification is a notification a step sends.
type Notification struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Ask is a request a step puts to the client, and how long it waits for
// the answer (DefaultAskTimeout when not given).
type Ask struct {
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	Timeout *Duration       `json:"timeout,omitempty"`
}

// askable are the requests a server puts to a client.
var askable = []string{"elicitation/create", "sampling/createMessage", "roots/list"}

// logLevels are the levels of a log message (RFC 5424's, as MCP names
// them).
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// Duration is a wait as a responses file writes it: a Go duration
// ("1.5s") or a number of seconds.
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	v, err := duration.Parse(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// checkSteps checks an entry's steps against the bounds and the shapes
// of what they send.
func (e *Entry) checkSteps() error {
	if len(e.Steps) > MaxSteps {
		return fmt.Errorf("%d steps: an entry has at most %d", len(e.Steps), MaxSteps)
	}
	var waited time.Duration
	for i, s := range e.Steps {
		at := fmt.Sprintf("steps[%d]", i)
		if given(s.Wait != nil, s.Progress != nil, s.Log != nil, s.Notify != nil, s.Ask != nil) != 1 {
			return fmt.Errorf("%s: give one of wait, progress, log, notify and ask", at)
		}
		switch {
		case s.Wait != nil:
			if waited = duration.Sum(waited, time.Duration(*s.Wait)); waited > MaxWait {
				return fmt.Errorf("%s: the entry waits %v in all: at most %v", at, waited, MaxWait)
			}
		case s.Progress != nil:
			var p struct {
				Progress json.Number `json:"progress"`
			}
			if !rawjson.IsObject(s.Progress) || json.Unmarshal(s.Progress, &p) != nil || p.Progress == "" {
				return fmt.Errorf("%s: progress is an object with a number progress (and total, message)", at)
			}
		case s.Log != nil:
			var p struct {
				Level string `json:"level"`
			}
			if !rawjson.IsObject(s.Log) || json.Unmarshal(s.Log, &p) != nil || !slices.Contains(logLevels, p.Level) {
				return fmt.Errorf("%s: log is an object with a level (%s) and data", at, strings.Join(logLevels, ", "))
			}
			e.logs = true
		case s.Notify != nil:
			if !strings.HasPrefix(s.Notify.Method, "notifications/") {
				return fmt.Errorf("%s: notify's method is a notification's (notifications/...), not %q", at, s.Notify.Method)
			}
			if s.Notify.Params != nil && !rawjson.IsObject(s.Notify.Params) {
				return fmt.Errorf("%s: notify's params must be an object", at)
			}
		case s.Ask != nil:
			switch t := s.Ask.Timeout; {
			case !slices.Contains(askable, s.Ask.Method):
				return fmt.Errorf("%s: ask's method is one of %s, not %q", at, strings.Join(askable, ", "), s.Ask.Method)
			case s.Ask.Params != nil && !rawjson.IsObject(s.Ask.Params):
				return fmt.Errorf("%s: ask's params must be an object", at)
			case t != nil && (*t <= 0 || time.Duration(*t) > MaxAskTimeout):
				return fmt.Errorf("%s: ask's timeout is more than 0 and at most %v", at, MaxAskTimeout)
			}
		}
	}
	return nil
}

// given is how many of members are given.
func given(members ...bool) (n int) {
	for _, g := range members {
		if g {
			n++
		}
	}
	return n
}

// orEmpty is raw, or {} for nothing.
func orEmpty(raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return json.RawMessage(`{}`)
	}
	return raw
}

// call is a request an entry answers: its params as sent, and what the
// entry's jq sees of it (the arguments, a template's variables, or the
// params).
type call struct {
	params json.RawMessage
	input  any
}

// errClosed ends what an entry does when the mock closes.
var errClosed = errors.New("the mock was closed")

// run answers c with e: its steps in order, then its answer.
func (m *Mock) run(ctx context.Context, e *Entry, c call) (json.RawMessage, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() { // mock call's close watcher: ends with the call, or when the mock closes
		select {
		case <-m.done:
			cancel(errClosed)
		case <-ctx.Done():
		}
	}()
	var answers []any
	for i, s := range e.Steps {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		switch {
		case s.Wait != nil:
			t := time.NewTimer(time.Duration(*s.Wait))
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, context.Cause(ctx)
			}
		case s.Progress != nil:
			if token := mcp.ProgressToken(c.params); token != nil {
				if p, err := mcp.Retoken(s.Progress, token); err == nil {
					m.tell(ctx, "notifications/progress", p)
				}
			}
		case s.Log != nil:
			m.tell(ctx, "notifications/message", s.Log)
		case s.Notify != nil:
			m.tell(ctx, s.Notify.Method, s.Notify.Params)
		case s.Ask != nil:
			a, err := m.ask(ctx, e, i, s.Ask)
			if err != nil {
				return nil, err
			}
			answers = append(answers, a)
		}
	}
	switch {
	case e.Error != nil:
		return nil, &mcp.RPCError{Code: *e.Error.Code, Message: e.Error.Message, Data: e.Error.Data, Raw: e.Error.raw}
	case e.result != nil:
		return e.compute(ctx, c, answers)
	}
	return e.Result, nil
}

// tell sends a notification about the call being answered in ctx to its
// client, or, outside a client's request, to whom serve sends the
// server's notifications.
func (m *Mock) tell(ctx context.Context, method string, params json.RawMessage) {
	if serve.Tell(ctx, method, params) {
		return
	}
	if r := m.relay(); r.OnNotification != nil {
		r.OnNotification(method, params)
	}
}

// ask puts a step's request to the call's client and waits, within the
// step's timeout, for its answer: a result, or {"error": ...} for the
// client's error. A client that does not answer in time fails the call.
func (m *Mock) ask(ctx context.Context, e *Entry, i int, a *Ask) (any, error) {
	wait := DefaultAskTimeout
	if a.Timeout != nil {
		wait = time.Duration(*a.Timeout)
	}
	route := m.relay().Route
	if route == nil {
		return errorAnswer(&mcp.RPCError{Code: mcp.CodeInternalError, Message: a.Method + ": no client to ask"}), nil
	}
	actx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	params := orEmpty(a.Params)
	start := time.Now()
	res, _, err := route(actx, a.Method, params)
	late := ctx.Err() == nil && actx.Err() != nil
	if late {
		err = &mcp.RPCError{Code: mcp.CodeInternalError,
			Message: fmt.Sprintf("mock: %s.steps[%d]: the client did not answer %s within %v", e.where, i, a.Method, wait)}
	}
	if m.observe != nil {
		m.observe(serve.Exchange{Client: serve.ClientOf(ctx), Method: a.Method, Params: params, Asked: true,
			Result: res, Err: err, Cancelled: ctx.Err() != nil, Time: start, Took: time.Since(start)})
	}
	switch {
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case late:
		return nil, err
	case err != nil:
		return errorAnswer(err), nil
	}
	v, derr := jq.DecodeJSON(res)
	if derr != nil {
		return errorAnswer(derr), nil
	}
	return v, nil
}

// errorAnswer is a client's error as $answers holds it.
func errorAnswer(err error) any {
	var re *mcp.RPCError
	if !errors.As(err, &re) {
		re = &mcp.RPCError{Code: mcp.CodeInternalError, Message: err.Error()}
	}
	e := map[string]any{"code": re.Code, "message": re.Message}
	if re.Data != nil {
		if d, err := jq.DecodeJSON(re.Data); err == nil {
			e["data"] = d
		}
	}
	return map[string]any{"error": e}
}

// compute is the result of an entry's result-jq: its one output, an
// object, from the call's input with $answers and $params.
func (e *Entry) compute(ctx context.Context, c call, answers []any) (json.RawMessage, error) {
	params, _ := jq.DecodeJSON(c.params)
	if answers == nil {
		answers = []any{}
	}
	var outs []any
	var err error
	run := e.result.With(jq.Variable{Name: "answers", Value: answers}, jq.Variable{Name: "params", Value: params})
	for v, rerr := range run.RunWithin(ctx, c.input, jq.Default) {
		if rerr != nil {
			err = rerr
			break
		}
		if outs = append(outs, v); len(outs) == 2 {
			break
		}
	}
	fail := func(msg string) error {
		return &mcp.RPCError{Code: mcp.CodeInternalError, Message: "mock: the responses' " + e.where + ": result-jq " + msg}
	}
	switch {
	case err != nil:
		return nil, fail(err.Error())
	case len(outs) != 1:
		return nil, fail(fmt.Sprintf("gave %s values: want one, an object", map[bool]string{true: "no", false: "several"}[len(outs) == 0]))
	}
	if _, ok := outs[0].(map[string]any); !ok {
		return nil, fail("gave " + jqType(outs[0]) + ": want an object")
	}
	b, err := jq.Marshal(outs[0])
	if err != nil {
		return nil, fail(err.Error())
	}
	return b, nil
}

func jqType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "a number"
}
