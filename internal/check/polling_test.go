package check

import (
	"slices"
	"strings"
	"testing"
)

// polling is the spec server over HTTP with every answer an event stream
// that it polls (mcptest's sse-polling edge): a priming event, the
// connection closed, the rest sent to GETs with Last-Event-ID; faults
// added.
func polling(faultNames ...string) fake {
	change := map[string]string{"edges": `["sse-polling"]`}
	if len(faultNames) > 0 {
		change = merge(change, faults(faultNames...))
	}
	return fake{transport: "http", sse: true, change: change}
}

// A server that polls its streams as the transport lets it is judged as
// the same server answering on the open stream: every check that passes
// there passes here (utilities.progress and tools.result took the
// stream's end for the answer's loss before the checker resumed streams).
func TestPollingServerPassesAsItsTwin(t *testing.T) {
	t.Parallel()
	open := goodRun(t, fake{transport: "http", sse: true})
	polled := goodRun(t, polling())
	for id, r := range open {
		if r.Status == Passed && polled[id].Status != Passed {
			t.Errorf("passes on the open stream, not polled: %s", describeResult(polled[id]))
		}
	}
	for _, id := range []string{"utilities.progress", "tools.result", "http.retry", "http.resume", "http.event-ids"} {
		if r := polled[id]; r.Status != Passed {
			t.Errorf("polled: %s", describeResult(r))
		}
	}
}

// Each rule of polling is judged, each by its check, on the polled twin
// broken one way.
func TestPollingDefects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fault, id, says string
	}{
		// Last-Event-ID read only to find the stream: the events before
		// it again. The response comes (last, on the replay), and is taken
		// once: no check but the ids' fails.
		{"poll-replay-start", "http.event-ids", "replayed on a resumed stream after Last-Event-ID had passed it"},
		{"poll-other-stream", "http.resume", "a response to another request on a resumed stream"},
		{"poll-bad-retry", "http.retry", `retry field "1.5s", not a number of milliseconds`},
		{"poll-no-retry", "http.retry", "with no retry field"},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			t.Parallel()
			var only []string // the check alone, which sees its own traffic: each stream of the run resumed a second late, or more
			if tt.fault != "poll-replay-start" {
				only = []string{tt.id}
			}
			results := runShared(t, polling(tt.fault), only...)
			r := results[tt.id]
			if r.Status != Failed || !strings.Contains(r.Message, tt.says) {
				t.Errorf("want %s failed saying %q: %s", tt.id, tt.says, describeResult(r))
			}
			if tt.fault == "poll-replay-start" {
				for id, r := range results {
					if r.Status == Failed && id != tt.id && !slices.Contains([]string{"http.retry"}, id) {
						t.Errorf("a replay fails more than %s: %s", tt.id, describeResult(r))
					}
				}
			}
		})
	}
}
