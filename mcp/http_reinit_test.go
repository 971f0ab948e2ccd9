package mcp

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// The answer to the initialize the transport sends again after a 404 is
// read within a bound, as JSON or as an event stream: a server that
// answers it without end fails the call once the bound is read, and is
// read no further (MaxMessage when smaller; reinitLimit otherwise).
func TestHTTPReinitializeAnswerIsBounded(t *testing.T) {
	t.Parallel()
	const endless = 4 * reinitLimit // what the server would write
	for _, tc := range []struct {
		name       string
		sse        bool
		maxMessage int64
		limit      int64
	}{
		{"json", false, 0, reinitLimit},
		{"event stream", true, 0, reinitLimit},
		{"json within MaxMessage", false, 1 << 20, 1 << 20},
		{"event stream within MaxMessage", true, 1 << 20, 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var expired atomic.Bool
			var wrote atomic.Int64
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
				if x.RPCMethod != "initialize" || !expired.Load() {
					return false
				}
				x.W.Header().Set("Mcp-Session-Id", "s2")
				prefix, piece := `{"jsonrpc":"2.0","id":`+string(x.ID)+`,"result":{"instructions":"`, strings.Repeat("x", 64<<10)
				if tc.sse {
					x.W.Header().Set("Content-Type", "text/event-stream")
					prefix = "event: message\ndata: " + prefix
				} else {
					x.W.Header().Set("Content-Type", "application/json")
				}
				x.W.WriteHeader(http.StatusOK)
				n, err := x.W.Write([]byte(prefix))
				for total := int64(n); err == nil && total < endless; total += int64(n) {
					n, err = x.W.Write([]byte(piece))
				}
				wrote.Store(1) // the whole of it was taken
				if err != nil {
					wrote.Store(-1)
				}
				return true
			}})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL, MaxMessage: tc.maxMessage}, SessionOptions{})
			c := h.initialize(t)
			srv.Expire("s1")
			expired.Store(true)
			_, err := c.Call(testCtx(t), "tools/list", nil)
			var se *MessageSizeError
			if !errors.As(err, &se) || se.Limit != tc.limit {
				t.Fatalf("got %v, want a *MessageSizeError of %d bytes", err, tc.limit)
			}
			if wrote.Load() == 1 {
				t.Errorf("the transport read all %d bytes of the answer", endless)
			}
		})
	}
}
