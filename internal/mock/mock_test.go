package mock_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/mock"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// requests are what a client asks in the tests: the answers must be the
// same from the demo server and from the mock of its recording.
var requests = []struct{ method, params string }{
	{"tools/call", `{"name":"echo","arguments":{"message":"hi"}}`},
	{"tools/call", `{"name":"add","arguments":{"a":1,"b":2}}`},
	{"tools/call", `{"name":"add","arguments":{"a":1,"b":2.5}}`},
	{"tools/call", `{"name":"fail","arguments":{}}`},
	{"resources/read", `{"uri":"demo://readme"}`},
	{"prompts/get", `{"name":"greet","arguments":{"name":"Ada"}}`},
	{"completion/complete", `{"ref":{"type":"ref/prompt","name":"review"},"argument":{"name":"language","value":"ja"}}`},
}

// demoUpstream is a relay in front of the go-sdk demo server, recording
// what passes through to rec.
func demoUpstream(t *testing.T, rec serve.Recorder) *serve.Server {
	t.Helper()
	server := demoserver.New()
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	t.Cleanup(ts.Close)
	s := &connect.Settings{URL: ts.URL, Mode: mcp.ModeAuto, ProtocolEra: "legacy", ConnectTimeout: 30 * time.Second, Auth: connect.Auth{Mode: "none"}}
	env := connect.Env{Cwd: t.TempDir(), GOOS: runtime.GOOS}
	srv := &serve.Server{
		Open: func(ctx context.Context, r serve.Relay) (serve.Upstream, error) {
			c, err := connect.Open(ctx, s, env, connect.Hooks{Client: mcp.Implementation{Name: "mcpv", Version: "test"}, LogsElsewhere: true,
				NoteBackPressure: true, OnNotification: r.OnNotification, Route: r.Route, Capabilities: r.Capabilities,
				AwaitCapabilities: r.AwaitCapabilities, ReadGate: r.ReadGate, Secret: r.Secret})
			if err != nil {
				return nil, err
			}
			return serve.ClientUpstream(c.Client, func(ctx context.Context, name string) (json.RawMessage, bool) {
				t, err := c.Tools.Find(ctx, c.Client, name)
				return t.Raw, err == nil
			}, c.Close), nil
		},
		Record: rec,
	}
	start(t, srv)
	return srv
}

// mockServer serves a mock of the two files.
func mockServer(t *testing.T, snapshot, responses []byte) *serve.Server {
	t.Helper()
	snap, err := surface.ParseSnapshot(snapshot)
	if err != nil {
		t.Fatalf("snapshot: %v\n%s", err, snapshot)
	}
	resp, err := mock.ParseResponses(responses)
	if err != nil {
		t.Fatalf("responses: %v\n%s", err, responses)
	}
	m := mock.New(snap, resp, mcp.Implementation{Name: "mock", Version: "test"})
	srv := &serve.Server{Open: func(context.Context, serve.Relay) (serve.Upstream, error) { return m, nil }}
	start(t, srv)
	return srv
}

func start(t *testing.T, srv *serve.Server) {
	t.Helper()
	if err := srv.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(srv.Close)
}

// stdioClient is mcpv's own client of srv on a pair of pipes.
func stdioClient(t *testing.T, srv *serve.Server, era string) *mcp.Client {
	t.Helper()
	return playClientOf(t, srv, "stdio", era, `{}`, nil, &notes{})
}

// httpClient is mcpv's own client of srv over Streamable HTTP.
func httpClient(t *testing.T, srv *serve.Server, era string) *mcp.Client {
	t.Helper()
	return playClientOf(t, srv, "http", era, `{}`, nil, &notes{})
}

func ask(c *mcp.Client, method, params string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.Call(ctx, method, json.RawMessage(params))
}

// canonical is a result without what differs between two answers of
// the same server (_meta) or between its eras (a complete resultType, which
// only the modern era writes), with its members sorted.
func canonical(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	delete(v, "_meta")
	if v["resultType"] == "complete" {
		delete(v, "resultType")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// recorded records the requests made of the demo server through serve,
// and returns the two files, as serve --record writes them.
func recorded(t *testing.T) (snapshot, responses []byte, want map[string]string) {
	t.Helper()
	rec := mock.NewRecorder()
	c := stdioClient(t, demoUpstream(t, rec), "legacy")
	want = map[string]string{}
	for _, r := range requests {
		res, err := ask(c, r.method, r.params)
		if err != nil {
			t.Fatalf("%s %s from the demo server: %v", r.method, r.params, err)
		}
		want[r.method+r.params] = canonical(t, res)
	}
	snapshot, responses = rec.Files()
	return snapshot, responses, want
}

func TestMockAnswersAsRecorded(t *testing.T) {
	snapshot, responses, want := recorded(t)
	srv := mockServer(t, snapshot, responses)
	for _, tr := range []string{"stdio", "http"} {
		for _, era := range []string{"legacy", "modern"} {
			t.Run(tr+"/"+era, func(t *testing.T) {
				var c *mcp.Client
				if tr == "stdio" {
					c = stdioClient(t, srv, era)
				} else {
					c = httpClient(t, srv, era)
				}
				for _, r := range requests {
					res, err := ask(c, r.method, r.params)
					if err != nil {
						t.Fatalf("%s %s: %v", r.method, r.params, err)
					}
					if got := canonical(t, res); got != want[r.method+r.params] {
						t.Errorf("%s %s:\n got %s\nwant %s", r.method, r.params, got, want[r.method+r.params])
					}
				}
				tools, err := ask(c, "tools/list", `{}`)
				if err != nil || !strings.Contains(string(tools), `"name":"echo"`) || !strings.Contains(string(tools), `"inputSchema"`) {
					t.Errorf("tools/list: %s, %v", tools, err)
				}
				// Who the server said it was, recorded.
				if init := string(c.InitializeResult().Raw()); !strings.Contains(init, `"name":"mcpv-demo"`) || !strings.Contains(init, `"instructions":"Demo server for mcpv.`) || !strings.Contains(init, `"completions":{}`) {
					t.Errorf("initialize result: %s", init)
				}
			})
		}
	}
}

func TestMockUnmatchedCall(t *testing.T) {
	snapshot, responses, _ := recorded(t)
	c := stdioClient(t, mockServer(t, snapshot, responses), "modern")
	res, err := ask(c, "tools/call", `{"name":"add","arguments":{"a":1,"b":7}}`)
	if err != nil {
		t.Fatalf("an unmatched call is a result, not an error: %v", err)
	}
	var r struct {
		IsError bool `json:"isError"`
		Content []struct{ Text string }
	}
	json.Unmarshal(res, &r)
	if !r.IsError || len(r.Content) != 1 || !strings.Contains(r.Content[0].Text, `the closest: "add" with arguments {"a":1,"b":2}`) {
		t.Errorf("unmatched call: %s", res)
	}
	_, err = ask(c, "resources/read", `{"uri":"demo://readmee"}`)
	var ce *mcp.CallError
	if !errors.As(err, &ce) || ce.Err.Code != -32602 || !strings.Contains(ce.Err.Message, `did you mean "demo://readme"`) { // a modern client's: -32002 retired
		t.Errorf("unmatched read: %v", err)
	}
}

func TestMockValidatesArguments(t *testing.T) {
	snapshot, responses, _ := recorded(t)
	srv := mockServer(t, snapshot, responses)
	for _, era := range []string{"legacy", "modern"} {
		c := stdioClient(t, srv, era)
		_, err := ask(c, "tools/call", `{"name":"add","arguments":{"a":"one","b":2}}`)
		var ce *mcp.CallError
		if !errors.As(err, &ce) || ce.Err.Code != mcp.CodeInvalidParams || !strings.Contains(ce.Err.Message, "/a") || !strings.Contains(ce.Err.Message, "(type)") {
			t.Errorf("%s: invalid arguments: %v", era, err)
		}
		_, err = ask(c, "tools/call", `{"name":"ad","arguments":{}}`)
		if !errors.As(err, &ce) || ce.Err.Code != mcp.CodeInvalidParams || !strings.Contains(ce.Err.Message, `did you mean "add"`) {
			t.Errorf("%s: unknown tool: %v", era, err)
		}
	}
}

func TestRecordMasksSecrets(t *testing.T) {
	rec := mock.NewRecorder()
	rec.Note("tools/call", json.RawMessage(`{"name":"login","arguments":{"user":"ada"}}`),
		json.RawMessage(`{"content":[{"type":"text","text":"token sk-live-0123456789"}],"structuredContent":{"apiKey":"abc"}}`))
	secrets := redact.NewScrubber(io.Discard)
	secrets.Add("sk-live-0123456789")
	_, responses := rec.Files()
	out := string(mock.Mask(responses, secrets))
	if strings.Contains(out, "sk-live-0123456789") || strings.Contains(out, `"abc"`) {
		t.Errorf("a secret was written: %s", out)
	}
	if _, err := mock.ParseResponses([]byte(out)); err != nil {
		t.Errorf("the masked file does not read back: %v", err)
	}
}

// TestRecorderBound: past its bound, a recorder keeps no more answers and
// says how many it left out; what it kept is written as before.
func TestRecorderBound(t *testing.T) {
	rec := mock.NewRecorder()
	rec.Max = 200 // one answer of about 90 bytes and its key (held twice), not two
	big := `{"content":[{"type":"text","text":"` + strings.Repeat("x", 60) + `"}]}`
	rec.Note("tools/call", json.RawMessage(`{"name":"a","arguments":{}}`), json.RawMessage(big))
	rec.Note("tools/call", json.RawMessage(`{"name":"b","arguments":{}}`), json.RawMessage(big))
	rec.Note("resources/read", json.RawMessage(`{"uri":"demo://x"}`), json.RawMessage(big))
	if n, _ := rec.Skipped(); n != 2 {
		t.Errorf("skipped %d answers, want 2", n)
	}
	_, responses := rec.Files()
	r, err := mock.ParseResponses(responses)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "a" || len(r.Resources) != 0 {
		t.Errorf("kept: %s", responses)
	}
}

// The bound counts what an answer is kept under as well as the answer:
// calls with large, distinct arguments and small results fill it too.
func TestRecorderBoundCountsArguments(t *testing.T) {
	rec := mock.NewRecorder()
	rec.Max = 1 << 20
	blob := strings.Repeat("x", 256<<10)
	for i := range 20 {
		rec.Note("tools/call", json.RawMessage(fmt.Sprintf(`{"name":"echo","arguments":{"i":%d,"blob":%q}}`, i, blob)), json.RawMessage(`{"content":[]}`))
	}
	_, responses := rec.Files()
	if len(responses) > 1<<20+1<<10 {
		t.Errorf("%d bytes of responses kept past a bound of %d", len(responses), rec.Max)
	}
	if n, _ := rec.Skipped(); n < 18 {
		t.Errorf("skipped %d of 20 calls of 256 KiB arguments under a 1 MiB bound", n)
	}
}

// Arguments the tool's schema refuses, to which the responses hold the
// server's answer (a trace of a --no-validate call), get that answer: the
// replay ends as the run did. Others are still refused.
func TestMockAnswersWhatWasAnswered(t *testing.T) {
	r, err := mock.ParseResponses([]byte(`{"tools":[{"name":"add","arguments":{"a":"x","b":2},"result":{"content":[{"type":"text","text":"a is not a number"}],"isError":true}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	snap := surface.Snapshot{Tools: []json.RawMessage{json.RawMessage(`{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}}`)}}
	m := mock.New(snap, r, mcp.Implementation{Name: "m", Version: "1"})
	res, err := m.Forward(context.Background(), "tools/call", json.RawMessage(`{"name":"add","arguments":{"b":2,"a":"x"}}`))
	if err != nil || !strings.Contains(string(res), `"isError":true`) || !strings.Contains(string(res), "a is not a number") {
		t.Errorf("the answered call: %s, %v", res, err)
	}
	var ce *mcp.RPCError
	if _, err := m.Forward(context.Background(), "tools/call", json.RawMessage(`{"name":"add","arguments":{"a":"y","b":2}}`)); !errors.As(err, &ce) || ce.Code != mcp.CodeInvalidParams {
		t.Errorf("arguments nothing answered, refused by the schema: %v", err)
	}
}

func TestParseResponsesYAML(t *testing.T) {
	r, err := mock.ParseResponses([]byte("tools:\n  - name: add\n    jq: '.a > 1'\n    result: {content: [{type: text, text: big}]}\n  - name: add\n    arguments: {a: 1}\n    result: {content: [{type: text, text: one}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	snap := surface.Snapshot{Tools: []json.RawMessage{json.RawMessage(`{"name":"add","inputSchema":{"type":"object"}}`)}}
	m := mock.New(snap, r, mcp.Implementation{Name: "m", Version: "1"})
	for args, want := range map[string]string{`{"a":5}`: "big", `{"a":1,"b":3}`: "one"} {
		res, err := m.Forward(context.Background(), "tools/call", json.RawMessage(`{"name":"add","arguments":`+args+`}`))
		if err != nil || !strings.Contains(string(res), `"text":"`+want+`"`) {
			t.Errorf("%s: %s, %v; want %s", args, res, err, want)
		}
	}
	if _, err := mock.ParseResponses([]byte("tools:\n  - name: add\n    jq: '.a >'\n    result: {}\n")); err == nil || !strings.Contains(err.Error(), "tools[0]: jq") ||
		!strings.Contains(err.Error(), `(column 4 of ".a >")`) || strings.Contains(err.Error(), "\n") {
		t.Errorf("a bad jq, not on one line that says where it went wrong: %q", err)
	}
}

// A result written in YAML is served as written: members in order,
// numbers as written, big integers exact.
func TestParseResponsesYAMLAsWritten(t *testing.T) {
	r, err := mock.ParseResponses([]byte("tools:\n  - name: add\n    result: {zeta: 1, big: 12345678901234567890, f: 1.50}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(r.Tools[0].Result), `{"zeta":1,"big":12345678901234567890,"f":1.50}`; got != want {
		t.Errorf("result = %s, want %s", got, want)
	}
	if _, err := mock.ParseResponses([]byte("tools:\n  - name: add\n    result: {n: .nan}\n")); err == nil || !strings.Contains(err.Error(), "3:17: .nan is not a number JSON can hold") {
		t.Errorf(".nan: %v", err)
	}
}

// The responses file the guide shows reads, and answers as it says.
func TestGuideResponsesExample(t *testing.T) {
	md, err := os.ReadFile("../../docs/guide/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(md), "```yaml\nserver:")
	block, _, _ = strings.Cut(block, "```")
	if !ok {
		t.Fatal("no responses example in docs/guide/serve.md")
	}
	snapshot := `{"mcpvSnapshot":1,
 "tools":[{"name":"add","inputSchema":{"type":"object"}},{"name":"book","inputSchema":{"type":"object"}}],
 "prompts":[{"name":"greet"}],
 "resourceTemplates":[{"uriTemplate":"demo://notes/{id}","name":"note"}]}`
	srv, _ := playServer(t, snapshot, "server:"+block, nil)
	var n notes
	c := playClient(t, srv, "stdio", "legacy", asking, &n)
	if init := string(c.InitializeResult().Raw()); !strings.Contains(init, `"instructions":"Add with add."`) {
		t.Errorf("initialize: %s", init)
	}
	for _, c2 := range []struct{ method, params, want string }{
		{"tools/call", `{"name":"add","arguments":{"a":1,"b":2}}`, `"text":"big"`},
		{"tools/call", `{"name":"add","arguments":{"a":2}}`, `busy`},
		{"tools/call", `{"name":"add","arguments":{"a":2}}`, `"isError":true`},
		{"tools/call", `{"name":"book","arguments":{}}`, `"text":"booked friday"`},
		{"resources/read", `{"uri":"demo://readme"}`, `"text":"# Demo"`},
		{"resources/read", `{"uri":"demo://notes/4"}`, `"text":"note 4"`},
		{"resources/list", `{}`, `"mimeType":"text/markdown"`},
		{"prompts/get", `{"name":"greet","arguments":{"name":"Ada"}}`, `"text":"Hello, Ada"`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"A"}}`, `"values":["Ada","Alan"]`},
	} {
		res, err := ask(c, c2.method, c2.params)
		if got := string(res) + fmt.Sprint(err); !strings.Contains(got, c2.want) {
			t.Errorf("%s %s: %s; want %s", c2.method, c2.params, got, c2.want)
		}
	}
	if !n.has(`notifications/message {"level":"warning","data":"slow"}`, 30*time.Second) {
		t.Errorf("notifications: %s", n.all())
	}
}

// A jq matcher that never ends stops with the call's context: the call is
// answered as unmatched, and the mock goes on.
func TestMockJQEndsWithTheCall(t *testing.T) {
	r, err := mock.ParseResponses([]byte("tools:\n  - name: add\n    jq: 'def f: f; f'\n    result: {content: [{type: text, text: never}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	snap := surface.Snapshot{Tools: []json.RawMessage{json.RawMessage(`{"name":"add","inputSchema":{"type":"object"}}`)}}
	m := mock.New(snap, r, mcp.Implementation{Name: "m", Version: "1"})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan json.RawMessage, 1)
	go func() {
		res, _ := m.Forward(ctx, "tools/call", json.RawMessage(`{"name":"add","arguments":{"a":1}}`))
		done <- res
	}()
	select {
	case res := <-done:
		if strings.Contains(string(res), "never") {
			t.Errorf("answered %s by a matcher that never ended", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call never ended")
	}
}

// A responses entry whose jq never ends, or grows without end, gives its
// call an error within the bounds of a jq run, with no deadline of the
// call's own, and the mock answers the next call as ever.
func TestMockJQIsBounded(t *testing.T) {
	t.Parallel()
	r, err := mock.ParseResponses([]byte(`tools:
  - name: add
    jq: '.loop == true and (def f: f; f)'
    result: {content: [{type: text, text: never}]}
  - name: add
    jq: '.grow == true and ([range(1e9)] | length > 0)'
    result: {content: [{type: text, text: never}]}
  - name: add
    result: {content: [{type: text, text: fine}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	snap := surface.Snapshot{Tools: []json.RawMessage{json.RawMessage(`{"name":"add","inputSchema":{"type":"object"}}`)}}
	m := mock.New(snap, r, mcp.Implementation{Name: "m", Version: "1"})
	for _, args := range []string{`{"loop":true}`, `{"grow":true}`} {
		done := make(chan error, 1)
		go func() {
			res, err := m.Forward(context.Background(), "tools/call", json.RawMessage(`{"name":"add","arguments":`+args+`}`))
			if err == nil {
				err = errors.New("answered " + string(res))
			}
			done <- err
		}()
		select {
		case err := <-done:
			var re *mcp.RPCError
			if !errors.As(err, &re) || !strings.Contains(re.Message, "ran past its bound") || !strings.Contains(re.Message, "tools[") {
				t.Errorf("%s: %v, want the error of a bounded jq naming its entry", args, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the call never ended", args)
		}
	}
	if res, err := m.Forward(context.Background(), "tools/call", json.RawMessage(`{"name":"add","arguments":{}}`)); err != nil || !strings.Contains(string(res), "fine") {
		t.Errorf("the next call: %s %v", res, err)
	}
}

// An answer whose params or list items do not decode is not kept under a
// name it was not given, and is counted apart from those past the bound.
func TestRecorderMalformed(t *testing.T) {
	rec := mock.NewRecorder()
	rec.Note("tools/list", nil, json.RawMessage(`{"tools":{"name":"a"}}`))
	rec.Note("tools/call", json.RawMessage(`{"name":5,"arguments":{}}`), json.RawMessage(`{"content":[]}`))
	rec.Note("prompts/get", json.RawMessage(`["hello"]`), json.RawMessage(`{"messages":[]}`))
	if _, n := rec.Skipped(); n != 3 {
		t.Errorf("malformed %d answers, want 3", n)
	}
	snap, responses := rec.Files()
	r, err := mock.ParseResponses(responses)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 0 || len(r.Prompts) != 0 || strings.Contains(string(snap), `"a"`) {
		t.Errorf("kept: %s %s", snap, responses)
	}
}
