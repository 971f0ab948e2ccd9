//lint:file-ignore SA1019 a mock plays servers that ask for roots and sampling and send log messages, which MCP 2026-07-28 deprecates but keeps for a year; the go-sdk client meets them here

package mock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/mock"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// playSnapshot and playResponses are a server with what a client meets:
// who it says it is, errors, slow calls with progress, log messages and
// list changes, a question to the client, answers that run out, resource
// templates and completions.
const playSnapshot = `{"mcpvSnapshot":1,
 "tools":[{"name":"add","inputSchema":{"type":"object"}},{"name":"book","inputSchema":{"type":"object"}},{"name":"once","inputSchema":{"type":"object"}},{"name":"context","inputSchema":{"type":"object"}}],
 "prompts":[{"name":"greet","arguments":[{"name":"name"}]}],
 "resourceTemplates":[{"uriTemplate":"demo://items/{id}","name":"item"}]}`

const playResponses = `server:
  serverInfo: {name: recorded, version: 2.0.0}
  instructions: Add with add.
  capabilities: {tools: {listChanged: true}, logging: {}, resources: {}, prompts: {}, completions: {}, tasks: {list: {}}}
tools:
  - name: add
    arguments: {a: 1}
    error: {code: -32000, message: busy, data: {retry: true}}
  - name: add
    arguments: {a: 2}
    steps:
      - progress: {progress: 1, total: 2, message: half}
      - log: {level: info, data: halfway}
      - notify: {method: notifications/tools/list_changed}
      - wait: 1ms
    result: {content: [{type: text, text: done}]}
  - name: book
    steps:
      - ask:
          method: elicitation/create
          params: {message: When?, requestedSchema: {type: object, properties: {date: {type: string}}}}
    result-jq: '{content: [{type: "text", text: ("booked " + ($answers[0].content.date // $answers[0].error.message))}]}'
  - name: context
    steps:
      - ask: {method: roots/list}
      - ask: {method: sampling/createMessage, params: {messages: [{role: user, content: {type: text, text: hi}}], maxTokens: 10}}
    result-jq: '{content: [{type: "text", text: ($answers[0].roots[0].uri + " " + $answers[1].content.text)}]}'
  - name: once
    times: 1
    result: {content: [{type: text, text: first}]}
  - name: once
    result: {content: [{type: text, text: later}]}
resources:
  - template: demo://items/{id}
    jq: '.id != "0"'
    result-jq: '{contents: [{uri: ("demo://items/" + .id), text: ("item " + .id)}]}'
completions:
  - ref: {type: ref/prompt, name: greet}
    argument: {name: name}
    result: {completion: {values: [Ada]}}
`

// playServer serves a mock of the files, logging to log when not nil.
func playServer(t *testing.T, snapshot, responses string, log io.Writer) (*serve.Server, *mock.Mock) {
	t.Helper()
	snap, err := surface.ParseSnapshot([]byte(snapshot))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := mock.ParseResponses([]byte(responses))
	if err != nil {
		t.Fatal(err)
	}
	m := mock.New(snap, resp, mcp.Implementation{Name: "mcpv-mock", Version: "test"})
	srv := &serve.Server{Open: m.Open}
	if log != nil {
		l := mock.NewRequestLog(log, nil, nil)
		srv.Observe = l.Observe
		m.ObserveQuestions(l.Observe)
	}
	start(t, srv)
	t.Cleanup(m.Close)
	return srv, m
}

// notes keeps the notifications a client got.
type notes struct {
	mu   sync.Mutex // guards got and wake
	got  []string
	wake chan struct{} // closed and replaced at each add
}

func (n *notes) add(method string, params json.RawMessage) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, method+" "+string(params))
	if n.wake != nil {
		close(n.wake)
		n.wake = nil
	}
}

// has waits for the notification want: one sent beside a response
// (list_changed on HTTP rides the standalone stream) may come after it.
// The wait ends at the first match; only a missing one waits it all.
func (n *notes) has(want string, wait time.Duration) bool {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		n.mu.Lock()
		if hasNote(strings.Join(n.got, "\n"), want) {
			n.mu.Unlock()
			return true
		}
		if n.wake == nil {
			n.wake = make(chan struct{})
		}
		wake := n.wake
		n.mu.Unlock()
		select {
		case <-wake:
		case <-deadline.C:
			return false
		}
	}
}

func (n *notes) all() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.got, "\n")
}

// asking answers the mock's questions as a user would: the date friday.
func asking(_ context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "elicitation/create":
		return json.RawMessage(`{"action":"accept","content":{"date":"friday"}}`), nil
	case "roots/list":
		return json.RawMessage(`{"roots":[{"uri":"file:///work","name":"work"}]}`), nil
	case "sampling/createMessage":
		return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"m"}`), nil
	}
	return nil, mcp.MethodNotFound(method)
}

// playClient is mcpv's own client of srv, on stdio or HTTP, of era,
// answering questions with handler and keeping notifications in n.
func playClient(t *testing.T, srv *serve.Server, transport, era string, handler mcp.RequestHandler, n *notes) *mcp.Client {
	t.Helper()
	return playClientOf(t, srv, transport, era, `{"elicitation":{},"sampling":{},"roots":{}}`, handler, n)
}

// playClientOf is playClient, saying it has the capabilities caps.
func playClientOf(t *testing.T, srv *serve.Server, transport, era, caps string, handler mcp.RequestHandler, n *notes) *mcp.Client {
	t.Helper()
	opts := mcp.SessionOptions{Handler: handler, OnNotification: n.add}
	var sess *mcp.Session
	if transport == "stdio" {
		upR, upW := io.Pipe()
		downR, downW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan error, 1)
		go func() { served <- srv.ServeStream(ctx, upR, downW, upR.Close); downW.Close() }() // ends at cancel
		sess = mcp.NewSession(mcp.NewStreamTransport(downR, upW, func() error { upW.Close(); return downR.Close() }, nil), opts)
		t.Cleanup(func() { cancel(); <-served })
	} else {
		h := srv.HTTPHandler("", false)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { h.Close(); ts.Close() })
		tr, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: ts.URL + "/mcp", Mode: mcp.ModeStreamable})
		if err != nil {
			t.Fatal(err)
		}
		sess = mcp.NewSession(tr, opts)
	}
	t.Cleanup(func() { sess.Close(context.Background()) })
	copts := mcp.ClientOptions{Info: mcp.Implementation{Name: "downstream", Version: "1"},
		Capabilities: json.RawMessage(caps), LogLevel: "debug"}
	if era == "modern" {
		copts.ProtocolVersion = mcp.ModernVersion
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mcp.Initialize(ctx, sess, copts)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if era != "modern" {
		if _, err := ask(c, "logging/setLevel", `{"level":"debug"}`); err != nil {
			t.Fatalf("logging/setLevel: %v", err)
		}
	}
	return c
}

// Each kind of entry, as mcpv's own client meets it, in both eras, on
// stdio and HTTP.
func TestMockPlaysEachEntryKind(t *testing.T) {
	t.Parallel()
	for _, era := range []string{"legacy", "modern"} {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(era+"/"+transport, func(t *testing.T) {
				t.Parallel()
				srv, _ := playServer(t, playSnapshot, playResponses, nil)
				var n notes
				c := playClient(t, srv, transport, era, asking, &n)
				init := string(c.InitializeResult().Raw())
				for _, want := range []string{`"name":"recorded"`, `"instructions":"Add with add."`, `"logging":{}`, `"listChanged":true`} {
					if !strings.Contains(init, want) {
						t.Errorf("initialize result lacks %s: %s", want, init)
					}
				}
				if strings.Contains(init, "mcpv-mock") || strings.Contains(init, `"tasks"`) {
					t.Errorf("initialize result: %s", init)
				}
				_, err := ask(c, "tools/call", `{"name":"add","arguments":{"a":1}}`)
				var re *mcp.RPCError
				if !errors.As(err, &re) || re.Code != -32000 || re.Message != "busy" || !strings.Contains(string(re.Data), `"retry":true`) {
					t.Errorf("error entry: %v", err)
				}
				res, err := ask(c, "tools/call", `{"name":"add","arguments":{"a":2},"_meta":{"progressToken":"p1"}}`)
				if err != nil || !strings.Contains(string(res), `"text":"done"`) {
					t.Errorf("steps entry: %s %v", res, err)
				}
				wantNotes := []string{
					`notifications/progress {"progress":1,"progressToken":"p1","total":2,"message":"half"}`,
					`notifications/message {"level":"info","data":"halfway"}`,
				}
				if era == "legacy" { // a modern client hears of list changes when it listens
					wantNotes = append(wantNotes, `notifications/tools/list_changed {}`)
				}
				for _, want := range wantNotes {
					if !n.has(want, 30*time.Second) {
						t.Errorf("no %s among the notifications:\n%s", want, n.all())
					}
				}
				res, err = ask(c, "tools/call", `{"name":"book","arguments":{}}`)
				if err != nil || !strings.Contains(string(res), `"text":"booked friday"`) {
					t.Errorf("ask entry: %s %v", res, err)
				}
				res, err = ask(c, "tools/call", `{"name":"context","arguments":{}}`)
				if err != nil || !strings.Contains(string(res), `"text":"file:///work sampled"`) {
					t.Errorf("roots and sampling entry: %s %v", res, err)
				}
				for _, want := range []string{"first", "later", "later"} {
					if res, err := ask(c, "tools/call", `{"name":"once","arguments":{}}`); err != nil || !strings.Contains(string(res), `"text":"`+want+`"`) {
						t.Errorf("times entry: %s %v, want %s", res, err, want)
					}
				}
				res, err = ask(c, "resources/read", `{"uri":"demo://items/7"}`)
				if err != nil || !strings.Contains(string(res), `"text":"item 7"`) || !strings.Contains(string(res), `"uri":"demo://items/7"`) {
					t.Errorf("template entry: %s %v", res, err)
				}
				_, err = ask(c, "resources/read", `{"uri":"demo://items/0"}`)
				if !errors.As(err, &re) || re.Code != map[string]int{"legacy": -32002, "modern": -32602}[era] || !strings.Contains(re.Message, `of the template "demo://items/{id}"`) { // 2026-07-28 retired -32002
					t.Errorf("template not matched: %v", err)
				}
				res, err = ask(c, "completion/complete", `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"A"}}`)
				if err != nil || !strings.Contains(string(res), `"values":["Ada"]`) {
					t.Errorf("completion entry: %s %v", res, err)
				}
			})
		}
	}
}

// hasNote reports whether got has the notification want, both "method
// params" lines, comparing params without the _meta serve adds.
func hasNote(got, want string) bool {
	canonical := func(line string) string {
		method, params, _ := strings.Cut(line, " ")
		v := map[string]any{}
		json.Unmarshal([]byte(params), &v)
		delete(v, "_meta")
		p, _ := json.Marshal(v)
		return method + " " + string(p)
	}
	for _, line := range strings.Split(got, "\n") {
		if canonical(line) == canonical(want) {
			return true
		}
	}
	return false
}

// The go-sdk's client meets each kind of entry as mcpv's does.
func TestMockPlaysTheSDKClient(t *testing.T) {
	t.Parallel()
	for era, version := range map[string]string{"legacy": "2025-11-25", "modern": mcp.ModernVersion} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			sdkPlay(t, version)
		})
	}
}

func sdkPlay(t *testing.T, version string) {
	srv, _ := playServer(t, playSnapshot, playResponses, nil)
	h := srv.HTTPHandler("", false)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	var n notes
	client := sdk.NewClient(&sdk.Implementation{Name: "sdk", Version: "1"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"date": "monday"}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			n.add("progress", json.RawMessage(r.Params.Message))
		},
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			b, _ := json.Marshal(r.Params.Data)
			n.add("log", b)
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { n.add("tools", nil) },
		CreateMessageHandler: func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			return &sdk.CreateMessageResult{Role: "assistant", Model: "m", Content: &sdk.TextContent{Text: "sampled"}}, nil
		},
	})
	client.AddRoots(&sdk.Root{URI: "file:///sdk", Name: "sdk"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	init := cs.InitializeResult()
	if init.ProtocolVersion != version {
		t.Fatalf("negotiated %s, want %s", init.ProtocolVersion, version)
	}
	if init.ServerInfo.Name != "recorded" || init.Instructions != "Add with add." || init.Capabilities.Logging == nil || init.Capabilities.Completions == nil {
		t.Errorf("initialize result: %+v", init)
	}
	modern := version == mcp.ModernVersion
	if !modern { // a modern client asks for log messages with each request
		if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1}})
	if err == nil || !strings.Contains(err.Error(), "busy") {
		t.Errorf("error entry: %v", err)
	}
	p := &sdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2}}
	p.SetProgressToken("p1")
	if modern {
		p.Meta["io.modelcontextprotocol/logLevel"] = "debug"
	}
	res, err := cs.CallTool(ctx, p)
	if err != nil || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != "done" {
		t.Errorf("steps entry: %+v %v", res, err)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "book", Arguments: map[string]any{}})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != "booked monday" {
		t.Errorf("ask entry: %+v %v", res, err)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "context", Arguments: map[string]any{}})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != "file:///sdk sampled" {
		t.Errorf("roots and sampling entry: %+v %v", res, err)
	}
	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "demo://items/3"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "item 3" {
		t.Errorf("template entry: %+v %v", rr, err)
	}
	cr, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "greet"}, Argument: sdk.CompleteParamsArgument{Name: "name", Value: "A"}})
	if err != nil || len(cr.Completion.Values) != 1 || cr.Completion.Values[0] != "Ada" {
		t.Errorf("completion entry: %+v %v", cr, err)
	}
	// The notifications of a call come before its result.
	if got := n.all(); !strings.Contains(got, "progress half") || !strings.Contains(got, `log "halfway"`) || !modern && !strings.Contains(got, "tools") {
		t.Errorf("notifications: %s", got)
	}
}

// The request log holds each message and its answer, in the order the
// answers went, and the questions the mock put to the client with the
// client's answers, for a test to assert on.
func TestMockRequestLog(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex // guards log
	var log bytes.Buffer
	srv, _ := playServer(t, playSnapshot, playResponses, writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return log.Write(p)
	}))
	var n notes
	c := playClient(t, srv, "stdio", "legacy", asking, &n)
	ask(c, "tools/call", `{"name":"add","arguments":{"a":1}}`)
	ask(c, "tools/call", `{"name":"book","arguments":{}}`)
	c.Close(context.Background())
	want := []string{
		`"method":"initialize"`, `"method":"notifications/initialized"`, `"method":"logging/setLevel"`,
		`"method":"tools/call","params":{"name":"add","arguments":{"a":1},`,
		`"method":"elicitation/create","asked":true,"params":{"message":"When?",`,
		`"method":"tools/call","params":{"name":"book","arguments":{},`,
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		got := log.String()
		mu.Unlock()
		lines := strings.Split(strings.TrimSpace(got), "\n")
		ok := len(lines) == len(want)
		for i := 0; ok && i < len(want); i++ {
			ok = strings.Contains(lines[i], want[i]) && strings.Contains(lines[i], `"client":1`)
		}
		if ok { // the answers as they went
			ok = strings.Contains(lines[3], `"error":{"code":-32000,"message":"busy","data":{"retry":true}},"ms":`) &&
				strings.Contains(lines[4], `"result":{"action":"accept","content":{"date":"friday"}},"ms":`) && !strings.Contains(lines[4], `"id"`) &&
				strings.Contains(lines[5], `"result":{"content":[{"text":"booked friday","type":"text"}]},"ms":`)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("log:\n%s\nwant lines with, in order:\n%s", got, strings.Join(want, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
