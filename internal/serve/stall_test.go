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
// notification for both reaches the client that reads, whatever the stalled one
// holds back (its own are dropped past its bound, and counted).
func TestStalledClientDelaysNoOther(t *testing.T) {
	t.Parallel()
	sdkServer, url := guardedServer(t)
	srv := startServer(t, settingsFor(url, "legacy", nil), nil, false)
	u := serveHTTP(t, srv, "")
	b, brec := httpClient(t, u, "legacy", "b")
	call(t, b, "resources/subscribe", `{"uri":"file:///pub/a"}`)

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
	req, _ = http.NewRequest("POST", u, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file:///pub/a"}}`))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
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

	// Updates of a resource both subscribe to, each carrying a large
	// _meta, so that A's share holds much: what a relay does not hold back
	// for A (below the upstream session's own bound, where it would keep
	// only the latest update of a resource).
	const n = 60
	big := strings.Repeat("x", 48<<10)
	for i := range n {
		sdkServer.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///pub/a", Meta: sdk.Meta{"i": i, "pad": big}})
	}
	got := 0
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got = 0
		for _, m := range brec.all() {
			if strings.Contains(string(m), "notifications/resources/updated") {
				got++
			}
		}
		if got == n {
			return
		}
	}
	t.Errorf("client B received %d of the %d updates while client A did not read", got, n)
}
