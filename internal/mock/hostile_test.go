package mock_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/mock"
	"github.com/mcpv/mcpv/mcp"
)

// A responses file asks for bounded things only: waits, steps, the wait
// for a client's answer, templates' variables, and its nesting.
func TestResponsesBounds(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	bomb, prev := "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n", "a0"
	for i := 1; i < 9; i++ {
		name := fmt.Sprintf("a%d", i)
		bomb += name + ": &" + name + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = name
	}
	bomb += "tools:\n  - name: a\n    result: {x: *" + prev + "}\n"
	for _, tt := range []struct{ doc, want string }{
		{"tools:\n  - name: a\n    steps: [{wait: 6m}, {wait: 5m}]\n    result: {}\n", "waits 11m0s in all: at most 10m0s"},
		{"tools:\n  - name: a\n    steps: [{wait: 1000000h}]\n    result: {}\n", "at most 10m0s"},
		{"tools:\n  - name: a\n    steps: [{wait: 1m}, {wait: 2562047h47m16.854775807s}]\n    result: {}\n", "at most 10m0s"},
		{"tools:\n  - name: a\n    steps: [{ask: {method: roots/list, timeout: 11m}}]\n    result: {}\n", "at most 10m0s"},
		{"tools:\n  - name: a\n    steps: [{ask: {method: tools/call}}]\n    result: {}\n", `not "tools/call"`},
		{"tools:\n  - name: a\n    steps: [{notify: {method: tools/call}}]\n    result: {}\n", `not "tools/call"`},
		{"tools:\n  - name: a\n    steps: [{wait: 1s, log: {level: info}}]\n    result: {}\n", "give one of wait, progress, log, notify and ask"},
		{"tools:\n  - name: a\n    steps: [{log: {level: loud}}]\n    result: {}\n", "log is an object with a level"},
		{"tools:\n  - name: a\n    error: {message: x}\n", "an error has a code and a message"},
		{"resources:\n  - template: 'x://" + strings.Repeat("{a}/", 200) + "'\n    result: {}\n", "variables"},
		{`{"tools":[{"name":"a","result":` + deep + `}]}`, "depth"},
		{"tools:\n  - name: a\n    result: " + deep + "\n", "depth"},
		{bomb, "aliases expand the file beyond what mcpv reads"},
		{"tools:\n  - name: a\n    steps: [" + strings.Repeat("{wait: 0s},", mock.MaxSteps+1) + "]\n    result: {}\n", "at most 10000"},
	} {
		_, err := mock.ParseResponses([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%.80s: %v, want an error with %q", tt.doc, err, tt.want)
		}
	}
}

// A client that never answers the mock's question fails the call once
// the step's timeout passes, and the mock answers the next call.
func TestMockAskIsBounded(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	var mu sync.Mutex // guards log
	var log strings.Builder
	srv, _ := playServer(t, playSnapshot, `tools:
  - name: book
    steps: [{ask: {method: elicitation/create, params: {message: When?}, timeout: 100ms}}]
    result: {content: []}
  - name: once
    result: {content: [{type: text, text: fine}]}
`, writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return log.Write(p)
	}))
	var n notes
	silent := func(ctx context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
		select { // never answers while the test runs
		case <-release:
		case <-ctx.Done():
		}
		return nil, ctx.Err()
	}
	c := playClient(t, srv, "stdio", "legacy", silent, &n)
	_, err := ask(c, "tools/call", `{"name":"book","arguments":{}}`)
	var re *mcp.RPCError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "tools[0].steps[0]: the client did not answer elicitation/create within 100ms") {
		t.Errorf("unanswered question: %v", err)
	}
	if res, err := ask(c, "tools/call", `{"name":"once","arguments":{}}`); err != nil || !strings.Contains(string(res), "fine") {
		t.Errorf("the next call: %s %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(log.String(), `"method":"elicitation/create","asked":true,"params":{"message":"When?"},"error":{"code":-32603,"message":"mock: tools[0].steps[0]: the client did not answer`) {
		t.Errorf("the request log has no line of the unanswered question:\n%s", log.String())
	}
}

// A question to a client that did not say it takes them is not put: the
// client's error (as $answers holds it) is what the entry sees.
func TestMockAskUndeclared(t *testing.T) {
	t.Parallel()
	for _, era := range []string{"legacy", "modern"} {
		srv, _ := playServer(t, playSnapshot, playResponses, nil)
		var n notes
		c := playClientOf(t, srv, "stdio", era, `{}`, asking, &n)
		res, err := ask(c, "tools/call", `{"name":"book","arguments":{}}`)
		if err != nil || !strings.Contains(string(res), `"text":"booked elicitation/create: the client did not declare the elicitation capability"`) {
			t.Errorf("%s: a question to a client that takes none: %s %v", era, res, err)
		}
	}
}

// A long wait ends when the mock closes, as at Ctrl-C.
func TestMockWaitEndsAtClose(t *testing.T) {
	t.Parallel()
	srv, m := playServer(t, playSnapshot, `tools:
  - name: once
    steps: [{progress: {progress: 1}}, {wait: 10m}]
    result: {content: []}
`, nil)
	var n notes
	c := playClient(t, srv, "stdio", "legacy", asking, &n)
	done := make(chan error, 1)
	go func() {
		_, err := ask(c, "tools/call", `{"name":"once","arguments":{},"_meta":{"progressToken":1}}`)
		done <- err
	}()
	for !strings.Contains(n.all(), "notifications/progress") { // the wait has begun
		select {
		case err := <-done:
			t.Fatalf("the call ended before its wait: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	m.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("the call was answered")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the wait did not end with the mock")
	}
}

// What an entry sends about a call (its log messages, its progress, its
// questions) goes to that call's client alone, even while another
// client's call is in flight; a list's change goes to every client, as a
// server's would.
func TestMockTellsTheCallersClientOnly(t *testing.T) {
	t.Parallel()
	srv, _ := playServer(t, playSnapshot, playResponses, nil)
	var a, b notes
	ca := playClient(t, srv, "stdio", "legacy", asking, &a)
	askedB, release := make(chan string, 10), make(chan struct{})
	cb := playClient(t, srv, "stdio", "legacy", func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		askedB <- string(params)
		<-release
		return json.RawMessage(`{"action":"accept","content":{"date":"sunday"}}`), nil
	}, &b)
	bDone := make(chan string, 1)
	go func() {
		res, err := ask(cb, "tools/call", `{"name":"book","arguments":{}}`)
		bDone <- string(res) + fmt.Sprint(err)
	}()
	<-askedB // b's call waits for b's answer while a calls
	if res, err := ask(ca, "tools/call", `{"name":"add","arguments":{"a":2},"_meta":{"progressToken":"p1"}}`); err != nil || !strings.Contains(string(res), "done") {
		t.Fatalf("%s %v", res, err)
	}
	if res, err := ask(ca, "tools/call", `{"name":"book","arguments":{}}`); err != nil || !strings.Contains(string(res), "booked friday") {
		t.Fatalf("%s %v", res, err)
	}
	close(release)
	if got := <-bDone; !strings.Contains(got, "booked sunday") {
		t.Errorf("b's call: %s", got)
	}
	// b hears of the list change, which came after the log message and the
	// progress: had they been sent to b, they would be there by now.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(b.all(), "notifications/tools/list_changed") {
		if time.Now().After(deadline) {
			t.Fatalf("the other client never heard of the list change: %s", b.all())
		}
		time.Sleep(time.Millisecond)
	}
	if got := b.all(); strings.Contains(got, "halfway") || strings.Contains(got, "progress") || len(askedB) != 0 {
		t.Errorf("the other client got %q and was asked %d more times", got, len(askedB))
	}
	if got := a.all(); !strings.Contains(got, "halfway") || !strings.Contains(got, "progress") {
		t.Errorf("the caller got %q", got)
	}
}

// A client that cancels a call in a long wait, or hangs up (over HTTP:
// on stdio, a client that closes its input still gets its answers), ends
// the wait: the request log's line of the call, written once the mock is
// done with it, says it was cancelled.
func TestMockWaitEndsWithTheCall(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"cancel", "hang up"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex // guards log
			var log strings.Builder
			srv, _ := playServer(t, playSnapshot, `tools:
  - name: once
    steps: [{progress: {progress: 1}}, {wait: 10m}]
    result: {content: []}
`, writerFunc(func(p []byte) (int, error) {
				mu.Lock()
				defer mu.Unlock()
				return log.Write(p)
			}))
			var n notes
			c := playClient(t, srv, map[string]string{"cancel": "stdio", "hang up": "http"}[how], "legacy", asking, &n)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"once","arguments":{},"_meta":{"progressToken":1}}`))
				done <- err
			}()
			deadline := time.Now().Add(30 * time.Second)
			for !strings.Contains(n.all(), "notifications/progress") { // the wait has begun
				if time.Now().After(deadline) {
					t.Fatal("no progress")
				}
				time.Sleep(time.Millisecond)
			}
			if how == "cancel" {
				cancel()
			} else {
				c.Close(context.Background())
			}
			<-done
			for {
				mu.Lock()
				got := log.String()
				mu.Unlock()
				if strings.Contains(got, `"method":"tools/call","params":{"name":"once"`) && strings.Contains(got, `"cancelled":true`) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the wait did not end with its call:\n%s", got)
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
}

// A template that matches every URI answers what no entry of a fixed URI
// in its file answers; a URI past the matcher's bound matches no template
// and is answered as not recorded, at once.
func TestMockTemplateOfEverything(t *testing.T) {
	t.Parallel()
	srv, _ := playServer(t, playSnapshot, `resources:
  - template: '{+any}'
    result-jq: '{contents: [{uri: .any, text: "anything"}]}'
  - uri: demo://readme
    result: {contents: [{uri: demo://readme, text: readme}]}
`, nil)
	var n notes
	c := playClient(t, srv, "stdio", "legacy", asking, &n)
	for uri, want := range map[string]string{"demo://readme": `"text":"readme"`, "demo://other": `"text":"anything"`, "file:///etc/passwd": `"text":"anything"`} {
		if res, err := ask(c, "resources/read", `{"uri":"`+uri+`"}`); err != nil || !strings.Contains(string(res), want) {
			t.Errorf("%s: %s %v, want %s", uri, res, err, want)
		}
	}
	long := "demo://" + strings.Repeat("a", 10<<10)
	_, err := ask(c, "resources/read", `{"uri":"`+long+`"}`)
	var re *mcp.RPCError
	if !errors.As(err, &re) || re.Code != -32002 {
		t.Errorf("a URI past the bound: %v", err)
	}
}
