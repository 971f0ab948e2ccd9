package demoserver

//lint:file-ignore SA1019 the demo server serves roots, sampling and logging, which MCP 2026-07-28 deprecates but keeps for a year; mcpv still speaks them

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect runs srv over in-memory transports and returns a connected client session.
func connect(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	return res
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("got %d content blocks, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

func TestInitialize(t *testing.T) {
	cs := connect(t, New(), nil)
	ir := cs.InitializeResult()
	if ir.ServerInfo.Name != "mcpv-demo" || ir.ServerInfo.Version != "1.0.0" || ir.Instructions == "" {
		t.Errorf("server info = %+v, instructions %q", ir.ServerInfo, ir.Instructions)
	}
	c := ir.Capabilities
	if c.Tools == nil || c.Resources == nil || c.Prompts == nil || c.Logging == nil || c.Completions == nil {
		t.Errorf("missing capabilities: %+v", c)
	}
}

func TestTools(t *testing.T) {
	cs := connect(t, New(), nil)
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"add", "ask", "big", "echo", "fail", "log", "roots", "sample", "slow"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	for _, tool := range lt.Tools {
		if tool.Name != "echo" {
			continue
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"required":["message"]`) {
			t.Errorf("echo input schema = %s", schema)
		}
	}

	if got := textOf(t, call(t, cs, "echo", map[string]any{"message": "hi there"})); got != "hi there" {
		t.Errorf("echo = %q", got)
	}
	res := call(t, cs, "add", map[string]any{"a": 2, "b": 0.5})
	if got := textOf(t, res); got != "2.5" {
		t.Errorf("add text = %q", got)
	}
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"sum":2.5}` {
		t.Errorf("add structured = %s", sc)
	}

	res = call(t, cs, "fail", nil)
	if !res.IsError || textOf(t, res) != "failed: as asked" {
		t.Errorf("fail = %v %q", res.IsError, textOf(t, res))
	}
	res = call(t, cs, "fail", map[string]any{"reason": "boom"})
	if !res.IsError || textOf(t, res) != "failed: boom" {
		t.Errorf("fail(boom) = %v %q", res.IsError, textOf(t, res))
	}

	if got := textOf(t, call(t, cs, "big", map[string]any{"bytes": 100_000})); got != strings.Repeat("x", 100_000) {
		t.Errorf("big returned %d bytes", len(got))
	}
	if res := call(t, cs, "big", map[string]any{"bytes": MaxBigBytes + 1}); !res.IsError {
		t.Error("big above the maximum should be a tool error")
	}
	if res := call(t, cs, "echo", map[string]any{}); !res.IsError {
		t.Error("echo without message should be a tool error")
	}
	// Defaults are applied from the schema; keep it short here.
	if got := textOf(t, call(t, cs, "slow", map[string]any{"seconds": 0.05})); got != "done after 0.05s" {
		t.Errorf("slow = %q", got)
	}

	_, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("unknown tool: err = %v, want code %d", err, jsonrpc.CodeInvalidParams)
	}
}

func TestSlowProgressAndCancel(t *testing.T) {
	cancelled := make(chan error, 1)
	progress := make(chan *mcp.ProgressNotificationParams, 10)
	cs := connect(t, newServer(config{onSlowCancel: func(err error) { cancelled <- err }}), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params
		},
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"seconds": 20, "steps": 100}}
	params.SetProgressToken("tok-1")
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()

	select {
	case p := <-progress:
		if p.ProgressToken != "tok-1" || p.Progress != 1 || p.Total != 100 || p.Message != "step 1 of 100" {
			t.Errorf("progress = %+v", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no progress notification")
	}
	cancel()
	start := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("CallTool err = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second): // a hang guard
		t.Fatal("CallTool did not return after cancel")
	}
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler saw %v, want context.Canceled", err)
		}
	case <-time.After(30*time.Second - time.Since(start)):
		t.Fatal("handler did not observe cancellation")
	}
}

func TestSlowWithoutToken(t *testing.T) {
	var got atomic.Int32
	cs := connect(t, New(), &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { got.Add(1) },
	})
	res := call(t, cs, "slow", map[string]any{"seconds": 0.01, "steps": 3})
	if textOf(t, res) != "done after 0.01s" || got.Load() != 0 {
		t.Errorf("slow = %q, %d progress notifications", textOf(t, res), got.Load())
	}
}

func TestResources(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, New(), nil)
	lr, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range lr.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if want := []string{"demo://clock", "demo://logo.png", "demo://readme"}; !slices.Equal(uris, want) {
		t.Errorf("resources = %v, want %v", uris, want)
	}
	lt, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.ResourceTemplates) != 1 || lt.ResourceTemplates[0].URITemplate != "demo://notes/{id}" {
		t.Errorf("templates = %+v", lt.ResourceTemplates)
	}

	read := func(uri string) *mcp.ResourceContents {
		t.Helper()
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if len(rr.Contents) != 1 || rr.Contents[0].URI != uri {
			t.Fatalf("read %s: contents %+v", uri, rr.Contents)
		}
		return rr.Contents[0]
	}
	if c := read("demo://readme"); c.MIMEType != "text/markdown" || !strings.Contains(c.Text, "demo server") {
		t.Errorf("readme = %+v", c)
	}
	c := read("demo://logo.png")
	if c.MIMEType != "image/png" {
		t.Errorf("logo mime = %q", c.MIMEType)
	}
	if _, err := png.Decode(bytes.NewReader(c.Blob)); err != nil {
		t.Errorf("logo is not a PNG: %v", err)
	}
	if c := read("demo://notes/42"); c.Text != "note 42" || c.MIMEType != "text/plain" {
		t.Errorf("note = %+v", c)
	}

	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://missing"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != codeResourceNotFound {
		t.Errorf("unknown resource: err = %v, want code %d", err, codeResourceNotFound)
	}
}

func TestPrompts(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, New(), nil)
	lp, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lp.Prompts) != 2 {
		t.Errorf("got %d prompts, want 2", len(lp.Prompts))
	}
	get := func(name string, args map[string]string) string {
		t.Helper()
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("GetPrompt(%s): %v", name, err)
		}
		if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
			t.Fatalf("GetPrompt(%s) messages = %+v", name, res.Messages)
		}
		return res.Messages[0].Content.(*mcp.TextContent).Text
	}
	if got := get("greet", map[string]string{"name": "Ada"}); got != "Say hello to Ada." {
		t.Errorf("greet = %q", got)
	}
	if got := get("review", map[string]string{"code": "x := 1", "language": "Go"}); !strings.Contains(got, "Go code") || !strings.Contains(got, "x := 1") {
		t.Errorf("review = %q", got)
	}
	if got := get("review", map[string]string{"code": "x := 1"}); !strings.Contains(got, "this code") {
		t.Errorf("review without language = %q", got)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err == nil {
		t.Error("greet without name should fail")
	}

	cr, err := cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "review"},
		Argument: mcp.CompleteParamsArgument{Name: "language", Value: "ja"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"java", "javascript"}; !slices.Equal(cr.Completion.Values, want) {
		t.Errorf("completion = %v, want %v", cr.Completion.Values, want)
	}

	cr, err = cs.Complete(ctx, &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "demo://notes/{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: "1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1", "12"}; !slices.Equal(cr.Completion.Values, want) || cr.Completion.Total != 2 {
		t.Errorf("note id completion = %+v, want %v", cr.Completion, want)
	}
}
