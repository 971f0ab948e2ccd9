package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// resumeGET accepts the GETs that resume an answer's stream.
func resumeGET(r mcptest.HTTPRequest) bool {
	return r.Method == http.MethodGet && r.LastEventID != ""
}

func TestHTTPStreamResumed(t *testing.T) {
	t.Parallel()
	const retry = 50 * time.Millisecond
	var (
		mu    sync.Mutex
		cutAt time.Time
		id    string          // the id of the request whose answer is cut
		waits []time.Duration // from a cut to the GET that resumes it
	)
	resumed := func() {
		mu.Lock()
		waits = append(waits, time.Since(cutAt))
		mu.Unlock()
	}
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{
		Post: answerTo("tools/list", func(x *mcptest.Exchange) {
			e := x.SSE()
			// A priming event with the retry delay, a notification, then
			// half the response and the cut.
			e.Raw("id: ev-1\nretry: 50\ndata:\n\n")
			e.Event("ev-2", note("before the cut"))
			e.Raw(`data: {"jsonrpc":"2.0","id":` + string(x.ID) + `,"result":{"tools":[`)
			mu.Lock()
			cutAt, id = time.Now(), string(x.ID)
			mu.Unlock()
		}),
		Get: func(x *mcptest.Exchange) {
			switch x.LastEventID {
			case "ev-2": // the stream goes on a while, then breaks again
				resumed()
				x.SSE().Event("ev-3", note("after the first cut"))
				mu.Lock()
				cutAt = time.Now()
				mu.Unlock()
			case "ev-3":
				resumed()
				mu.Lock()
				answer := `{"jsonrpc":"2.0","id":` + id + `,` + "\n" + `"result":{"tools":[{"name":"resumed"}]}}`
				mu.Unlock()
				x.SSE().Event("ev-4", answer)
			default:
				x.Status(http.StatusMethodNotAllowed, "")
			}
		},
	})
	// One resumption in a row is allowed: the second works only because the
	// first made progress.
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, MaxResumes: 1}, SessionOptions{})
	c := h.initialize(t)
	got, err := c.Call(testCtx(t), "tools/list", nil)
	if err != nil || string(got) != `{"tools":[{"name":"resumed"}]}` {
		t.Fatalf("got %s, %v", got, err)
	}
	want := []string{
		"GET  sid=s1 version=2025-11-25 last-event-id=ev-2",
		"GET  sid=s1 version=2025-11-25 last-event-id=ev-3",
	}
	if d := cmp.Diff(want, summary(srv.Requests(), resumeGET)); d != "" {
		t.Errorf("resumptions (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{delivered("before the cut"), delivered("after the first cut")}, h.delivered(t)); d != "" {
		t.Errorf("notifications (-want +got):\n%s", d)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, w := range waits {
		if w < retry {
			t.Errorf("resumed %v after a cut; the server asked for %v", w, retry)
		}
	}
}

func TestHTTPStreamLost(t *testing.T) {
	t.Parallel()
	cut := func(x *mcptest.Exchange) {
		e := x.SSE()
		e.Raw("retry: 1\n")
		e.Event("ev-1", note("then nothing"))
	}
	tests := []struct {
		name       string
		post       func(x *mcptest.Exchange)
		get        func(x *mcptest.Exchange)
		errHas     string
		wantResume int
	}{
		{"no event id", func(x *mcptest.Exchange) { x.SSE().Event("", note("no id")) }, nil,
			"the stream ended before the response, and without an event id it cannot be resumed", 0},
		{"resumed streams end at once", cut, func(x *mcptest.Exchange) { x.SSE() },
			"the stream ended before the response; gave up after 2 reconnections", 2},
		{"resumption fails with 5xx", cut, func(x *mcptest.Exchange) { x.Status(http.StatusServiceUnavailable, "busy") },
			"gave up after 2 reconnections", 2},
		{"resumption is not an event stream", cut, func(x *mcptest.Exchange) {
			x.Status(http.StatusOK, "{}", "Content-Type", "application/json")
		}, "gave up after 2 reconnections", 2},
		{"resumption refused", cut, func(x *mcptest.Exchange) { x.Status(http.StatusBadRequest, "no such stream") },
			"resume the answer's stream: GET: HTTP 400 Bad Request from http://127.0.0.1", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{
				Post: answerTo("tools/list", tt.post),
				Get: func(x *mcptest.Exchange) {
					if x.LastEventID == "" {
						x.Status(http.StatusMethodNotAllowed, "")
						return
					}
					tt.get(x)
				},
			})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL, MaxResumes: 2}, SessionOptions{})
			c := h.initialize(t)
			_, err := c.Call(testCtx(t), "tools/list", nil)
			var te *TransportError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), tt.errHas) {
				t.Fatalf("got %v, want a *TransportError saying %q", err, tt.errHas)
			}
			if n := len(summary(srv.Requests(), resumeGET)); n != tt.wantResume {
				t.Errorf("%d resumptions, want %d", n, tt.wantResume)
			}
			// The failure was the request's alone.
			if _, err := c.Call(testCtx(t), "ping", nil); err != nil {
				t.Errorf("ping after the lost stream: %v", err)
			}
		})
	}
}

// TestHTTPRequestErrorNamesItsRequest checks the transport contract below the
// session: a lost answer is a *RequestError carrying the request's id.
func TestHTTPRequestErrorNamesItsRequest(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/list", func(x *mcptest.Exchange) {
		x.SSE().Event("", note("no id"))
	})})
	tr := newHTTPTransport(t, HTTPOptions{URL: srv.URL})
	defer tr.Close(testCtx(t))
	ctx := testCtx(t)
	if err := tr.Write(ctx, []byte(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	if msg, err := tr.Read(); err != nil || !strings.Contains(string(msg), `"id":"i"`) {
		t.Fatalf("Read: %s, %v", msg, err)
	}
	if err := tr.Write(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)); err != nil {
		t.Fatal(err)
	}
	if msg, err := tr.Read(); err != nil || !strings.Contains(string(msg), "notifications/message") {
		t.Fatalf("Read: %s, %v; want the notification", msg, err)
	}
	_, err := tr.Read()
	var re *RequestError
	if !errors.As(err, &re) || string(re.ID) != "7" {
		t.Fatalf("Read: %v, want a *RequestError for id 7", err)
	}
	if !strings.Contains(re.Error(), "cannot be resumed") || errors.Unwrap(re) != re.Err {
		t.Errorf("RequestError %q does not say why", re)
	}
}

func TestHTTPGetStreamIsResumed(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Get: func(x *mcptest.Exchange) {
		switch n := len(summary(x.Server().Requests(), func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet })); n {
		case 1:
			e := x.SSE()
			e.Raw("retry: 1\n")
			e.Event("g1", note("first"))
		case 2:
			x.Status(http.StatusBadGateway, "") // a failure the stream survives
		case 3:
			x.SSE().Event("g2", note("second"))
			x.Hold()
		}
	}})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	h.initialize(t)
	want := []string{delivered("first"), delivered("second")}
	for _, w := range want {
		if got := waitFor(t, h.notes); got != w {
			t.Errorf("notification %s, want %s", got, w)
		}
	}
	gets := summary(srv.Requests(), func(r mcptest.HTTPRequest) bool { return r.Method == http.MethodGet })
	wantGets := []string{
		"GET  sid=s1 version=2025-11-25 last-event-id=",
		"GET  sid=s1 version=2025-11-25 last-event-id=g1",
		"GET  sid=s1 version=2025-11-25 last-event-id=g1",
	}
	if d := cmp.Diff(wantGets, gets); d != "" {
		t.Errorf("GETs (-want +got):\n%s", d)
	}
}

func TestHTTPGetStreamGivesUp(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Get: func(x *mcptest.Exchange) {
		if x.LastEventID == "" {
			e := x.SSE()
			e.Raw("retry: 1\n")
			e.Event("g1", note("once"))
			return
		}
		x.SSE() // ends at once: no progress
	}})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, MaxResumes: 2}, SessionOptions{})
	h.initialize(t)
	waitFor(t, h.notes)
	// The first GET, then MaxResumes+1 that make no progress; then it stops,
	// which the transport's wait group sees when it closes.
	resumes := 0
	awaitRequest(t, srv, func(r mcptest.HTTPRequest) bool {
		if resumeGET(r) {
			resumes++
		}
		return resumes == 3
	})
	h.close(t)
	if n := len(summary(srv.Requests(), resumeGET)); n != 3 {
		t.Errorf("%d resumptions, want 3", n)
	}
}

func TestRetryDelay(t *testing.T) {
	tests := []struct {
		retry   time.Duration
		attempt int
		want    time.Duration
	}{
		{0, 1, time.Second},
		{0, 2, 2 * time.Second},
		{0, 4, 8 * time.Second},
		{0, 5, 10 * time.Second},
		{0, 70, 10 * time.Second}, // the shift overflows
		{50 * time.Millisecond, 3, 50 * time.Millisecond},
		// A retry of hours never reaches it: the parser holds it to
		// maxRetry (TestSSEParser).
	}
	for _, tt := range tests {
		if got := retryDelay(tt.retry, tt.attempt); got != tt.want {
			t.Errorf("retryDelay(%v, %d) = %v, want %v", tt.retry, tt.attempt, got, tt.want)
		}
	}
}

// A server that dies mid-answer is not waited for: nothing listens, so the
// first resumption is refused and the call fails at once, saying so,
// rather than after the whole backoff. Here the backoff is hours (a
// thousand resumptions, up to 30 s apart): the call ends within testCtx
// only if it stops at the refusal.
func TestHTTPServerDiesMidAnswer(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/list", func(x *mcptest.Exchange) {
		e := x.SSE()
		e.Raw("retry: 10\n")
		e.Event("ev-1", note("working"))
		x.Server().Die()
	})})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, MaxResumes: 1000}, SessionOptions{})
	c := h.initialize(t)
	_, err := c.Call(testCtx(t), "tools/list", nil)
	var te *TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "resume the answer's stream") || !connRefusedText(err.Error()) {
		t.Fatalf("got %v, want a *TransportError saying the resumption was refused", err)
	}
}

// When every resumption fails, the error says how the last one did.
func TestHTTPResumeGivesUpWithTheLastError(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{
		Post: answerTo("tools/list", func(x *mcptest.Exchange) {
			e := x.SSE()
			e.Raw("retry: 1\n")
			e.Event("ev-1", note("working"))
		}),
		Get: func(x *mcptest.Exchange) {
			x.Status(http.StatusBadGateway, "<title>upstream gone</title>", "Content-Type", "text/html")
		},
	})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL, MaxResumes: 2}, SessionOptions{})
	c := h.initialize(t)
	_, err := c.Call(testCtx(t), "tools/list", nil)
	if err == nil || !strings.Contains(err.Error(), `gave up after 2 reconnections, the last: GET: HTTP 502 Bad Gateway from `) ||
		!strings.Contains(err.Error(), `an HTML page titled "upstream gone"`) {
		t.Fatalf("got %v", err)
	}
}

func TestHTTPResumeWaitEndsWithTheCall(t *testing.T) {
	t.Parallel()
	// The server asks for a long retry; cancelling the call must not wait it out.
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: answerTo("tools/list", func(x *mcptest.Exchange) {
		e := x.SSE()
		e.Raw("retry: 600000\n")
		e.Event("ev-1", note("then a long wait"))
	})})
	h := dialHTTP(t, HTTPOptions{URL: srv.URL}, SessionOptions{})
	c := h.initialize(t)
	ctx, cancel := context.WithCancel(context.Background())
	call := goCall(ctx, c.Call, "tools/list", nil)
	waitFor(t, h.notes) // the stream was read to its end
	cancel()
	if r := waitFor(t, call); !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Call returned %v", r.err)
	}
	if n := len(summary(srv.Requests(), resumeGET)); n != 0 {
		t.Errorf("%d resumptions after the call ended", n)
	}
}

// A server that ignores Last-Event-ID replays its stream from the start
// on each reconnection: what the session had is not handed over again,
// a replay is no progress (the stream is given up after MaxResumes, not
// followed for ever), and a response that comes at last is taken once.
func TestHTTPStreamReplayedFromTheStart(t *testing.T) {
	t.Parallel()
	for _, answered := range []bool{false, true} {
		t.Run(fmt.Sprint("answered=", answered), func(t *testing.T) {
			t.Parallel()
			var (
				mu sync.Mutex
				id string
			)
			replay := func(e *mcptest.SSEWriter) {
				e.Raw("id: ev-1\nretry: 0\ndata:\n\n")
				e.Event("ev-2", note("working"))
			}
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{
				Post: answerTo("tools/list", func(x *mcptest.Exchange) {
					mu.Lock()
					id = string(x.ID)
					mu.Unlock()
					replay(x.SSE())
				}),
				Get: func(x *mcptest.Exchange) {
					if x.LastEventID == "" {
						x.Status(http.StatusMethodNotAllowed, "")
						return
					}
					e := x.SSE()
					replay(e)
					n := len(summary(x.Server().Requests(), resumeGET))
					if answered && n == 3 {
						mu.Lock()
						e.Event("ev-3", `{"jsonrpc":"2.0","id":`+id+`,"result":{"tools":[]}}`)
						e.Event("ev-3", `{"jsonrpc":"2.0","id":`+id+`,"result":{"tools":[{"name":"twice"}]}}`)
						mu.Unlock()
					}
				},
			})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL, MaxResumes: 3}, SessionOptions{})
			c := h.initialize(t)
			got, err := c.Call(testCtx(t), "tools/list", nil)
			if answered {
				if err != nil || string(got) != `{"tools":[]}` {
					t.Fatalf("got %s, %v", got, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), "gave up after 3 reconnections") {
				t.Fatalf("got %s, %v; want the stream given up", got, err)
			}
			if d := cmp.Diff([]string{delivered("working")}, h.delivered(t)); d != "" {
				t.Errorf("notifications (-want +got):\n%s", d)
			}
		})
	}
}

// Against the spec server's polling (mcptest's sse-polling edge), a call
// gets its result and each progress notification once, however many
// times the stream was resumed; a server that closes every resumed stream
// with nothing but another priming event is given up after MaxResumes,
// with one *TransportError (exit 4).
func TestHTTPPollingServer(t *testing.T) {
	t.Parallel()
	for _, fault := range []string{"", "poll-close-forever"} {
		t.Run("fault="+fault, func(t *testing.T) {
			t.Parallel()
			faults := "[]"
			if fault != "" {
				faults = `["` + fault + `"]`
			}
			spec, err := mcptest.ParseSpec([]byte(`{"tools":[{"name":"slow","inputSchema":{"type":"object"}}],"edges":["sse-polling"],"faults":` + faults + `}`))
			if err != nil {
				t.Fatal(err)
			}
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Spec: spec, SSE: true})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL, MaxResumes: 2}, SessionOptions{})
			c := h.initialize(t)
			got, err := c.Call(testCtx(t), "tools/call", json.RawMessage(`{"name":"slow","_meta":{"progressToken":"p"}}`))
			resumed := len(summary(srv.Requests(), resumeGET))
			if fault != "" {
				var te *TransportError
				if !errors.As(err, &te) || !strings.Contains(err.Error(), "gave up after 2 reconnections") || resumed != 2 {
					t.Fatalf("got %s, %v after %d resumptions; want the stream given up after 2", got, err, resumed)
				}
				return
			}
			if err != nil || !strings.Contains(string(got), `"content"`) || resumed == 0 {
				t.Fatalf("got %s, %v after %d resumptions", got, err, resumed)
			}
			seen := map[string]bool{}
			for _, n := range h.delivered(t) {
				if seen[n] {
					t.Errorf("delivered twice: %s", n)
				}
				seen[n] = true
			}
			if len(seen) == 0 {
				t.Error("no progress delivered")
			}
		})
	}
}
