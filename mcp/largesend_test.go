package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// TestLargeRequestCopiedOnce holds what a call whose params are large
// (a load run's data row, 16 MiB here) costs the client to send, over
// HTTP in each era: its message written once, at its size, and nothing
// more of it (each other copy, of the params with the progress token's
// _meta, of the message for the transport, costs the row again).
func TestLargeRequestCopiedOnce(t *testing.T) {
	testkit.SkipLong(t, "ten calls of 16 MiB params over HTTP")
	if raceEnabled {
		t.Skip("the race detector's own allocations")
	}
	const size = 16 << 20
	params := append(append([]byte(`{"name":"sink","arguments":{"text":"`), bytes.Repeat([]byte("a"), size)...), `"}}`...)
	for _, version := range []string{LatestVersion, ModernVersion} {
		t.Run(version, func(t *testing.T) {
			c := httpCallClient(t, startRawHTTPServer(t, false, greetResult), version)
			call := func() {
				if res, err := c.Call(context.Background(), "tools/call", json.RawMessage(params)); err != nil || string(res) != greetResult {
					t.Fatalf("call: %.80s, %v", res, err)
				}
			}
			call() // the server's body buffer made at the row's size
			const calls = 4
			per := testkit.Allocated(func() {
				for range calls {
					call()
				}
			}) / calls
			if per > size+size/4 {
				t.Errorf("a call of %d MiB params allocated %.1f MiB; want its message once", size>>20, float64(per)/(1<<20))
			}
		})
	}
}
