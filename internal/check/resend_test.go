package check

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// A request of the check's that only reads, or opens a session, goes
// again, on a new connection, when the server read it on a kept connection and closed
// that with no answer (as a server that ends its idle connections may):
// its answer, not the connection, is what a check judges. A call never
// goes again.
func TestReadsGoAgainOnAConnectionClosedUnderThem(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	got := map[string]int{} // the methods the server read, as often as each came
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for n := 1; ; n++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					m, _ := mcp.DecodeMessages(body)
					mu.Lock()
					got[m[0].Method]++
					mu.Unlock()
					if n == 2 {
						return // read, and the connection closed with no answer
					}
					answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, m[0].ID)
					fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(answer), answer)
				}
			}()
		}
	}()
	for _, tc := range []struct {
		method string
		again  bool
		header http.Header // the user's (-H): a key of theirs makes no call go again
	}{
		{"prompts/get", true, nil}, {"initialize", true, nil}, {"tools/call", false, nil},
		{"prompts/get", true, http.Header{"Idempotency-Key": {"k1"}}}, {"tools/call", false, http.Header{"Idempotency-Key": {"k1"}}},
		{"tools/call", false, http.Header{"X-Idempotency-Key": {"k1"}}},
	} {
		mu.Lock()
		clear(got)
		mu.Unlock()
		c := &conn{r: &runner{target: &Target{URL: "http://" + ln.Addr().String() + "/mcp", Header: tc.header, Client: &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}}}, http: &httpSide{}} // one connection: the second request waits for the first's, kept
		for i, method := range []string{"ping", tc.method} {
			msg, _ := mcp.EncodeRequest(json.RawMessage(fmt.Sprint(i+1)), method, json.RawMessage(`{"name":"x"}`))
			_, resp, err := c.roundHTTP(context.Background(), httpReq{body: msg})
			if err == nil {
				io.Copy(io.Discard, resp.Body) // the connection kept for the next
				resp.Body.Close()
			}
			if i == 1 && (err == nil) != tc.again {
				t.Errorf("%s on a kept connection closed under it: %v", method, err)
			}
		}
		mu.Lock()
		if want := map[bool]int{true: 2, false: 1}[tc.again]; got[tc.method] != want {
			t.Errorf("the server read %s %d times (user's header %v), want %d", tc.method, got[tc.method], tc.header, want)
		}
		mu.Unlock()
	}
}

// A server that answers input that is no request (a response to nothing
// it asked) with an error under that input's id answers what it was
// sent: jsonrpc.response-id holds, however the checks' traffic falls.
func TestStrayResponseAnsweredUnderItsID(t *testing.T) {
	t.Parallel()
	f := fake{transport: "stdio", change: map[string]string{"edges": `["stray-response-answered"]`}}
	for id, r := range runChecks(t, f, "jsonrpc.survives-bad-input", responseID) {
		if r.Status != Passed {
			t.Errorf("%s: %s", id, describeResult(r))
		}
	}
}

// A server that serves clients of 2025-03-26 too may read a request
// without MCP-Protocol-Version as it likes (2026-07-28 streamable-http,
// "Protocol Version Header"): one that serves it as its body says holds
// modern.header-version-missing, which a server of the 2026-07-28 era
// alone does not (TestBrokenServers).
func TestVersionHeaderMissingOfAServerOfOldClients(t *testing.T) {
	t.Parallel()
	f := fake{transport: "http", era: "modern", change: faults("version-header-optional"), wrap: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if methodOf(body) == "initialize" && str1(member(member(body, "params"), "protocolVersion")) == "2025-03-26" {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`, member(body, "id"))
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
		})
	}}
	if r := runChecks(t, f, "modern.header-version-missing")["modern.header-version-missing"]; r.Status != Passed {
		t.Errorf("%s", describeResult(r))
	}
}
