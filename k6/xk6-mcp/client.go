package xk6mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.k6.io/k6/metrics"

	"github.com/mcpv/mcpv/mcp"
)

// Client is one MCP session of a VU.
type Client struct {
	mi *instance
	c  *mcp.Client

	mu   sync.Mutex       // guards logs
	logs map[string]int64 // log messages by level, not yet pushed
}

// maxLevels bounds the levels told apart; the rest are "other".
const maxLevels = 16

// note counts a server's log message (on the session's dispatcher).
func (c *Client) note(method string, params json.RawMessage) {
	if method != "notifications/message" {
		return
	}
	var p struct {
		Level string `json:"level"`
	}
	json.Unmarshal(params, &p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.logs == nil {
		c.logs = map[string]int64{}
	}
	level := p.Level
	if _, ok := c.logs[level]; !ok && len(c.logs) >= maxLevels || len(level) > 32 {
		level = "other"
	}
	c.logs[level]++
}

// pushLogs pushes the log messages counted since the last push, on the
// VU's goroutine.
func (c *Client) pushLogs() {
	c.mu.Lock()
	logs := c.logs
	c.logs = nil
	c.mu.Unlock()
	for level, n := range logs {
		c.mi.pushTagged(c.mi.m.logs, float64(n), map[string]string{"level": level})
	}
}

// Response is what an operation returns to the script.
type Response struct {
	// OK: the server answered with a result, and a tool did not report
	// isError.
	OK bool `js:"ok"`
	// Result is the result as the server sent it, parsed.
	Result any `js:"result"`
	// IsError: a tool's result had isError: true.
	IsError bool `js:"isError"`
	// Error is what went wrong, or null.
	Error *Failure `js:"error"`
	// Duration is the operation's time, in milliseconds.
	Duration float64 `js:"duration"`
}

// Failure is an operation that failed.
type Failure struct {
	Kind    string `js:"kind"` // jsonrpc, tool, timeout, transport
	Code    int    `js:"code"` // the JSON-RPC error's code
	Message string `js:"message"`
}

// Call calls a tool with its arguments (an object, or null).
func (c *Client) Call(name string, args map[string]any) *Response {
	params, err := json.Marshal(struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}{name, orEmpty(args)})
	if err != nil {
		return &Response{Error: &Failure{Kind: "arguments", Message: err.Error()}}
	}
	return c.do("tools/call", name, func(ctx context.Context) (json.RawMessage, error) {
		return c.c.Call(ctx, "tools/call", params)
	})
}

// ListTools lists the tools, every page: the result is {tools: [...]}.
func (c *Client) ListTools() *Response { return c.list("tools/list", "tools") }

// ListResources lists the resources, every page.
func (c *Client) ListResources() *Response { return c.list("resources/list", "resources") }

// ListPrompts lists the prompts, every page.
func (c *Client) ListPrompts() *Response { return c.list("prompts/list", "prompts") }

// Read reads a resource.
func (c *Client) Read(uri string) *Response {
	params, _ := json.Marshal(map[string]string{"uri": uri})
	return c.do("resources/read", uri, func(ctx context.Context) (json.RawMessage, error) {
		return c.c.Call(ctx, "resources/read", params)
	})
}

// GetPrompt gets a prompt filled with its arguments (strings).
func (c *Client) GetPrompt(name string, args map[string]string) *Response {
	params, _ := json.Marshal(struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments,omitempty"`
	}{name, args})
	return c.do("prompts/get", name, func(ctx context.Context) (json.RawMessage, error) {
		return c.c.Call(ctx, "prompts/get", params)
	})
}

// Ping pings the server; in the modern era, which has no ping, it sends
// server/discover, as mcpv ping does.
func (c *Client) Ping() *Response {
	method := "ping"
	if c.c.Modern() {
		method = "server/discover"
	}
	return c.do(method, "", func(ctx context.Context) (json.RawMessage, error) { return c.c.Call(ctx, method, nil) })
}

// Request sends any request with params (an object, or null).
func (c *Client) Request(method string, params map[string]any) *Response {
	raw, err := json.Marshal(params)
	if err != nil || params == nil {
		raw = nil
	}
	return c.do(method, "", func(ctx context.Context) (json.RawMessage, error) { return c.c.Call(ctx, method, raw) })
}

// Close ends the session (an HTTP DELETE, where the server keeps one).
func (c *Client) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.c.Close(ctx)
}

// list walks every page of a list, merging the items under key.
func (c *Client) list(method, key string) *Response {
	return c.do(method, "", func(ctx context.Context) (json.RawMessage, error) {
		var items []json.RawMessage
		for p, err := range c.c.Walk(ctx, method, key, 0) {
			if err != nil {
				return nil, err
			}
			items = append(items, p.Items...)
		}
		return json.Marshal(map[string][]json.RawMessage{key: items})
	})
}

// do runs one operation, timed into mcp_duration, counted in mcp_reqs
// and mcp_failed.
func (c *Client) do(op, name string, send func(context.Context) (json.RawMessage, error)) *Response {
	start := time.Now()
	raw, err := send(c.mi.vu.Context())
	d := time.Since(start)
	r := &Response{Duration: metrics.D(d)}
	if err != nil {
		r.Error = failure(err)
	} else {
		var fields struct {
			IsError bool `json:"isError"`
		}
		json.Unmarshal(raw, &fields)
		json.Unmarshal(raw, &r.Result)
		r.IsError = op == "tools/call" && fields.IsError
		if r.IsError {
			r.Error = &Failure{Kind: "tool", Message: "the tool reported an error (isError: true)"}
		}
		r.OK = !r.IsError
	}
	c.mi.push(c.mi.m.duration, r.Duration, op, name)
	c.mi.push(c.mi.m.reqs, 1, op, name)
	failed := 0.0
	if !r.OK {
		failed = 1
	}
	c.mi.push(c.mi.m.failed, failed, op, name)
	c.pushLogs()
	return r
}

// failure names the kind of an error, as mcpv load does.
func failure(err error) *Failure {
	var ce *mcp.CallError
	var te *mcp.TimeoutError
	switch {
	case errors.As(err, &ce):
		return &Failure{Kind: "jsonrpc", Code: ce.Err.Code, Message: ce.Err.Message}
	case errors.As(err, &te), errors.Is(err, context.DeadlineExceeded):
		return &Failure{Kind: "timeout", Message: err.Error()}
	}
	return &Failure{Kind: "transport", Message: fmt.Sprint(err)}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
