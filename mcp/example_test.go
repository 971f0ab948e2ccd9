package mcp_test

// Examples of the calls another module makes of mcp: the k6 extension
// (k6/xk6-mcp) opens a session over Streamable HTTP, lets the era be found
// or names it, calls, walks lists page by page, tells errors apart by
// kind and closes. Each runs against the demo server on 127.0.0.1.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/mcp"
)

// demo serves the demo server over Streamable HTTP on 127.0.0.1 and
// returns its endpoint and what stops it.
func demo() (url string, stop func()) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := &http.Server{Handler: demoserver.HTTPHandler(demoserver.New(), nil)}
	go srv.Serve(l)
	return "http://" + l.Addr().String() + "/mcp", func() { srv.Close() }
}

// connect opens a session to the demo server as the k6 extension opens
// one (its own transport, a session, then the handshake, its era found
// with Probe), and returns what ends both.
func connect(opts mcp.ClientOptions) (c *mcp.Client, done func()) {
	url, stop := demo()
	t, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: url})
	if err != nil {
		panic(err)
	}
	opts.Info = mcp.Implementation{Name: "example", Version: "1"}
	if c, err = mcp.Initialize(context.Background(), mcp.NewSession(t, mcp.SessionOptions{}), opts); err != nil {
		panic(err)
	}
	return c, func() { c.Close(context.Background()); stop() }
}

// A Streamable HTTP transport, a session over it and the initialize
// handshake: the client knows who the server is and the version agreed.
func ExampleNewHTTPTransport() {
	url, stop := demo()
	defer stop()
	ctx := context.Background()
	t, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: url, Header: http.Header{"X-Team": {"load"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := mcp.Initialize(ctx, mcp.NewSession(t, mcp.SessionOptions{}), mcp.ClientOptions{Info: mcp.Implementation{Name: "example", Version: "1"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(ctx)
	init := c.InitializeResult()
	fmt.Println(init.ServerName(), init.HasCapability("tools"), c.ProtocolVersion())
	// Output: mcpv-demo true 2025-11-25
}

// NewSession takes the server's notifications as they come, on the
// session's dispatcher: here the progress of a slow tool.
func ExampleNewSession() {
	url, stop := demo()
	defer stop()
	ctx := context.Background()
	t, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: url})
	if err != nil {
		fmt.Println(err)
		return
	}
	progress := make(chan string, 8)
	s := mcp.NewSession(t, mcp.SessionOptions{OnNotification: func(method string, params json.RawMessage) {
		if method == "notifications/progress" {
			var p struct{ Message string }
			json.Unmarshal(params, &p)
			progress <- p.Message
		}
	}})
	c, err := mcp.Initialize(ctx, s, mcp.ClientOptions{Info: mcp.Implementation{Name: "example", Version: "1"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(ctx)
	if _, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"slow","arguments":{"seconds":0.02,"steps":2},"_meta":{"progressToken":1}}`)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-progress)
	fmt.Println(<-progress)
	// Output:
	// step 1 of 2
	// step 2 of 2
}

// With Probe, Initialize asks the server for its era first (server/discover)
// and falls back to the initialize handshake for a server of that era:
// Modern says which it found.
func ExampleInitialize() {
	c, done := connect(mcp.ClientOptions{Probe: true, Timeout: time.Minute})
	defer done()
	fmt.Println("modern:", c.Modern(), "version:", c.ProtocolVersion())
	// Output: modern: false version: 2025-11-25
}

// Client.Modern is false for a server of the initialize era; a client that
// asks for the modern era by its version (mcp.ModernVersion) gets it or
// an error, never the other era unasked.
func ExampleClient_Modern() {
	c, done := connect(mcp.ClientOptions{})
	defer done()
	ctx := context.Background()
	method := "ping"
	if c.Modern() {
		method = "server/discover" // the modern era has no ping
	}
	_, err := c.Call(ctx, method, nil)
	fmt.Println(method, err)
	// Output: ping <nil>
}

// Call sends a request and returns its result as the server wrote it.
func ExampleClient_Call() {
	c, done := connect(mcp.ClientOptions{})
	defer done()
	ctx := context.Background()
	result, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"message":"hello"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	var r struct {
		Content []struct{ Text string }
		IsError bool
	}
	json.Unmarshal(result, &r)
	fmt.Println(r.Content[0].Text, r.IsError)
	// Output: hello false
}

// Walk ranges over every page of a list; the first error ends the walk.
func ExampleClient_Walk() {
	c, done := connect(mcp.ClientOptions{})
	defer done()
	ctx := context.Background()
	var names []string
	for page, err := range c.Walk(ctx, "prompts/list", "prompts", 0) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, item := range page.Items {
			var p struct{ Name string }
			json.Unmarshal(item, &p)
			names = append(names, p.Name)
		}
	}
	fmt.Println(strings.Join(names, " "))
	// Output: greet review
}

// A JSON-RPC error the server answers with is a *CallError, with the
// server's code and message.
func ExampleCallError() {
	c, done := connect(mcp.ClientOptions{})
	defer done()
	ctx := context.Background()
	_, err := c.Call(ctx, "prompts/get", json.RawMessage(`{"name":"no-such-prompt"}`))
	var ce *mcp.CallError
	if errors.As(err, &ce) {
		fmt.Println(ce.Method, ce.Err.Code)
	}
	// Output: prompts/get -32602
}

// A request with no answer within the client's Timeout (and no progress
// that extends it) is a *TimeoutError; the request is cancelled on the
// wire, and the session goes on. (The timeout bounds the ping after it
// too: long enough for a loaded machine's loopback.)
func ExampleTimeoutError() {
	c, done := connect(mcp.ClientOptions{Timeout: 500 * time.Millisecond})
	defer done()
	ctx := context.Background()
	_, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"slow","arguments":{"seconds":3600,"steps":1}}`))
	var te *mcp.TimeoutError
	if errors.As(err, &te) {
		fmt.Println(te.Method, te.Timeout)
	}
	_, err = c.Call(ctx, "ping", nil)
	fmt.Println("then ping:", err)
	// Output:
	// tools/call 500ms
	// then ping: <nil>
}

// Close ends the session (over HTTP, a DELETE of the server's session);
// a call after it fails.
func ExampleClient_Close() {
	c, done := connect(mcp.ClientOptions{})
	defer done()
	ctx := context.Background()
	fmt.Println(c.Close(ctx))
	_, err := c.Call(ctx, "ping", nil)
	fmt.Println(err != nil)
	// Output:
	// <nil>
	// true
}
