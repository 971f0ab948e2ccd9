package check

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
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
	// The cases run at once, each from a goroutine of its own, not queued
	// as parallel subtests: the runs of a retry field missing or not a
	// number wait out the client's backoff on every stream (11 s), and
	// queued behind the package's hundreds of cases they started late
	// and ran on after the rest.
	var cases sync.WaitGroup
	defer cases.Wait()
	for _, tt := range tests {
		cases.Go(func() {
			t.Run(tt.fault, func(t *testing.T) {
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
		})
	}
}

// http.disconnect fails a server on evidence alone: a resumed stream the
// server ends unanswered, with no retry field. A server that resumes the
// dropped call passes, polled or on an open stream; one whose every
// resumed connection closes with a retry and never brings the response
// (it keeps no stream to resume, as replaying is the server's choice) is
// not judged; nor is one with no stream to resume at all.
func TestDisconnectJudgedOnEvidence(t *testing.T) {
	t.Parallel()
	retryOnly := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || r.Header.Get("Last-Event-ID") == "" {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "retry: 100\n\n")
		})
	}
	for _, tt := range []struct {
		name string
		f    fake
		want Status
	}{
		{"resumed on an open stream", fake{transport: "http", change: map[string]string{"edges": `["sse-resumable"]`}}, Passed},
		{"resumed by polling", polling(), Passed},
		{"every resumption closed with a retry", fake{transport: "http", sse: true, wrap: retryOnly}, Skipped},
		{"no resumption", fake{transport: "http", sse: true}, Skipped},
		// a GET that opens a stream of the server's own, which never ends
		{"a resumption answered with another stream", fake{transport: "http", change: faults("get-stream")}, Skipped},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if r := runChecks(t, tt.f, "http.disconnect")["http.disconnect"]; r.Status != tt.want {
				t.Errorf("want %s: %s", tt.want, describeResult(r))
			}
		})
	}
}

// modern.cancel-call over HTTP opens a subscription to watch: one the
// server refuses with a bare HTTP error (no acknowledgement, no response)
// skips the check, rather than waiting out the check's time.
func TestCancelClosingListenRefused(t *testing.T) {
	t.Parallel()
	refuse := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if methodOf(body) == "subscriptions/listen" {
				http.Error(w, "no", http.StatusNotFound)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
		})
	}
	r := runChecks(t, fake{transport: "http", era: "modern", wrap: refuse}, "modern.cancel-call")["modern.cancel-call"]
	if r.Status != Skipped || !strings.Contains(r.Message, "not acknowledged") { // not inconclusive, the check's time waited out
		t.Errorf("want skipped: %s", describeResult(r))
	}
}
