package mcptest

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// A tasks/result over HTTP whose task never ends gives up when its client
// goes: the request's handler returns, and the server can close.
func TestSpecTaskResultEndsWithItsRequest(t *testing.T) {
	spec, err := ParseSpec([]byte(`{"tools":[{"name":"job","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}],
		"capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"tasks":{"steps":1000000000}}`))
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(t, HTTPOptions{Spec: spec})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	post := func(ctx context.Context, session, body string) *http.Response {
		t.Helper()
		r, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if session != "" {
			r.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := testkit.HTTP(t).Do(r)
		if err != nil {
			t.Fatalf("POST: %v", err)
		}
		return resp
	}
	resp := post(ctx, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	resp = post(ctx, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"job","arguments":{},"task":{"ttl":60000}}}`)
	created, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	id, _ := stringMember(member(member(created, "result"), "task"), "taskId")
	if id == "" {
		t.Fatalf("no task made: %s", created)
	}
	rctx, rcancel := context.WithCancel(ctx)
	resp = post(rctx, session, `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+id+`"}}`)
	rcancel() // the client goes while the task runs
	resp.Body.Close()
	closed := make(chan struct{})
	go func() { // closes the server: returns once every request's handler has
		srv.ts.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("tasks/result was still being answered after its client went")
	}
}
