package serve

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client whose event stream is not read delays no other: every
// notification reaches the client that reads, whatever the stalled one
// holds back (its own are dropped past its bound, and counted).
func TestStalledClientDelaysNoOther(t *testing.T) {
	t.Parallel()
	sdkServer, url := guardedServer(t)
	srv := startServer(t, settingsFor(url, "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "")
	b, brec := httpClient(t, u, "legacy", "b")
	call(t, b, "logging/setLevel", `{"level":"debug"}`)

	// Client A initializes, then opens an event stream it never reads.
	req, _ := http.NewRequest("POST", u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	resp.Body.Close()
	host := strings.TrimPrefix(strings.TrimSuffix(u, "/mcp"), "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.(*net.TCPConn).SetReadBuffer(1024)
	fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\n\r\n", host, sid)
	if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.Contains(line, "200") {
		t.Fatalf("A's stream: %q, %v", line, err)
	}

	const n = 60
	big := strings.Repeat("x", 120<<10)
	for range n {
		for ss := range sdkServer.Sessions() {
			//lint:ignore SA1019 log messages are what a server sends most; deprecated in 2026-07-28, still sent
			ss.Log(context.Background(), &sdk.LoggingMessageParams{Level: "info", Data: big})
		}
	}
	got := 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got = 0
		for _, m := range brec.all() {
			if strings.Contains(string(m), "notifications/message") {
				got++
			}
		}
		if got == n {
			return
		}
	}
	t.Errorf("client B received %d of the %d log messages while client A did not read", got, n)
}
