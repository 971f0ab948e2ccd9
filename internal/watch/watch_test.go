package watch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// server is a server of the initialize era on a pipe: it declares
// resources.subscribe (unless noSubscribe), follows each resources/subscribe
// with one update of that URI, answers resources/read of x://gone with an
// error and of any other URI with its text, and records the methods it is
// sent.
type server struct {
	noSubscribe bool
	extra       []string // notifications sent after the first subscribe

	mu   sync.Mutex
	sent []string
}

func (s *server) methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.sent...)
}

// start connects a client to the server, with w taking its notifications.
func (s *server) start(t *testing.T, w *Watch) *mcp.Client {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	go s.serve(toServer, fromServer)
	tr := mcp.NewStreamTransport(toClient, fromClient, func() error { fromClient.Close(); return toClient.Close() }, nil)
	sess := mcp.NewSession(tr, mcp.SessionOptions{OnNotification: w.Notify})
	t.Cleanup(func() { sess.Close(context.Background()) })
	client, err := mcp.Initialize(t.Context(), sess, mcp.ClientOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatalf("Initialize: %v", err)
	}
	return client
}

func (s *server) serve(r io.Reader, w io.WriteCloser) {
	defer w.Close()
	in := bufio.NewScanner(r)
	send := func(msg string) { fmt.Fprintln(w, msg) }
	first := true
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				URI string `json:"uri"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		s.mu.Lock()
		s.sent = append(s.sent, m.Method+" "+m.Params.URI)
		s.mu.Unlock()
		answer := func(result string) { send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`) }
		switch m.Method {
		case "initialize":
			caps := `{"resources":{"subscribe":true}}`
			if s.noSubscribe {
				caps = `{"resources":{}}`
			}
			answer(`{"protocolVersion":"2025-06-18","capabilities":` + caps + `,"serverInfo":{"name":"s","version":"0"}}`)
		case "resources/subscribe":
			answer(`{}`)
			if first {
				for _, n := range s.extra {
					send(`{"jsonrpc":"2.0","method":"` + n + `"}`)
				}
				first = false
			}
			send(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"` + m.Params.URI + `"}}`)
		case "resources/read":
			if m.Params.URI == "x://gone" {
				send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32002,"message":"no such resource"}}`)
				continue
			}
			answer(`{"contents":[{"uri":"` + m.Params.URI + `","text":"<` + m.Params.URI + `>"}]}`)
		default:
			answer(`{}`)
		}
	}
}

// lines runs a watch to its end and returns its lines, without their time.
func lines(t *testing.T, o Options, s *server) ([]map[string]any, []string, error) {
	t.Helper()
	var notes []string
	o.Warnf = func(format string, args ...any) { notes = append(notes, "warning: "+fmt.Sprintf(format, args...)) }
	o.Notef = func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	w := New(o)
	client := s.start(t, w)
	var got []map[string]any
	err := w.Run(t.Context(), client, func(line json.RawMessage) error {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %s: %v", line, err)
		}
		if _, err := time.Parse(time.RFC3339Nano, m["time"].(string)); err != nil {
			t.Errorf("line %s: time: %v", line, err)
		}
		delete(m, "time")
		got = append(got, m)
		return nil
	})
	return got, notes, err
}

func TestRunSubscribesReadsAndUnsubscribes(t *testing.T) {
	t.Parallel()
	s := &server{}
	got, notes, err := lines(t, Options{URIs: []string{"x://a", "x://gone"}, Read: true, Count: 2}, s)
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := []map[string]any{
		{"uri": "x://a", "contents": []any{map[string]any{"uri": "x://a", "text": "<x://a>"}}},
		{"uri": "x://gone", "error": map[string]any{"code": float64(-32002), "message": "no such resource"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "resources/read") || !strings.Contains(notes[0], "no such resource") {
		t.Errorf("notes %q, want the read error", notes)
	}
	wantSent := []string{"initialize ", "resources/subscribe x://a", "resources/subscribe x://gone", "resources/read x://a", "resources/read x://gone", "resources/unsubscribe x://a", "resources/unsubscribe x://gone"}
	if d := cmp.Diff(wantSent, s.methods()); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
}

func TestRunReportsListChangesOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	extra := []string{"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/message"}
	got, _, err := lines(t, Options{URIs: []string{"x://a"}, Lists: true, Count: 4}, &server{extra: extra})
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	want := []map[string]any{{"list": "tools"}, {"list": "prompts"}, {"list": "resources"}, {"uri": "x://a"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	got, _, err = lines(t, Options{URIs: []string{"x://a"}, Count: 1}, &server{extra: extra})
	if err != nil || len(got) != 1 || got[0]["uri"] != "x://a" {
		t.Errorf("without Lists: %v, %v; want the update alone", got, err)
	}
}

func TestRunStopsAfterFor(t *testing.T) {
	t.Parallel()
	start := time.Now()
	got, _, err := lines(t, Options{URIs: []string{"x://a"}, For: 300 * time.Millisecond}, &server{})
	if err != nil || len(got) != 1 {
		t.Errorf("Run = %v with %d lines; want nil after the one update", err, len(got))
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("ended after %v, before For", took)
	}
}

func TestRunEndsWithItsContextAndEmit(t *testing.T) {
	t.Parallel()
	w := New(Options{URIs: []string{"x://a"}, Warnf: t.Logf, Notef: t.Logf})
	s := &server{}
	client := s.start(t, w)
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("stopped")
	err := w.Run(ctx, client, func(json.RawMessage) error { cancel(stop); return nil })
	if !errors.Is(err, stop) {
		t.Errorf("Run = %v, want the context's cause", err)
	}
	if got := s.methods(); got[len(got)-1] != "resources/unsubscribe x://a" {
		t.Errorf("requests %q: no unsubscribe at the end", got)
	}

	w = New(Options{URIs: []string{"x://a"}, Warnf: t.Logf, Notef: t.Logf})
	client = (&server{}).start(t, w)
	failed := errors.New("stdout closed")
	if err := w.Run(t.Context(), client, func(json.RawMessage) error { return failed }); !errors.Is(err, failed) {
		t.Errorf("Run = %v, want emit's error", err)
	}
}

func TestRunNeedsTheSubscribeCapability(t *testing.T) {
	t.Parallel()
	s := &server{noSubscribe: true}
	_, _, err := lines(t, Options{URIs: []string{"x://a"}}, s)
	var ce *mcp.CapabilityError
	if !errors.As(err, &ce) {
		t.Errorf("Run = %v, want a *mcp.CapabilityError", err)
	}
	if got := s.methods(); len(got) != 1 {
		t.Errorf("requests %q, want initialize alone", got)
	}
}

func TestCheckAck(t *testing.T) {
	t.Parallel()
	var warned []string
	w := New(Options{URIs: []string{"x://a", "x://b"}, Warnf: func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }})
	if err := w.checkAck(json.RawMessage(`{"notifications":{"resourceSubscriptions":["x://a","x://b"]}}`)); err != nil || warned != nil {
		t.Errorf("all acknowledged: %v, warnings %q", err, warned)
	}
	if err := w.checkAck(json.RawMessage(`{"notifications":{"resourceSubscriptions":["x://b"]}}`)); err != nil || len(warned) != 1 || !strings.Contains(warned[0], "x://a") {
		t.Errorf("one left out: %v, warnings %q", err, warned)
	}
	err := w.checkAck(json.RawMessage(`{"notifications":{}}`))
	var ue *UnacknowledgedError
	if !errors.As(err, &ue) || err.Error() != "the server acknowledged none of the subscriptions (x://a, x://b)" {
		t.Errorf("none acknowledged: %v", err)
	}
}

func TestQueueKeepsOrderAndWakes(t *testing.T) {
	t.Parallel()
	w := New(Options{})
	for i := range 3 {
		w.Notify("notifications/resources/updated", json.RawMessage(fmt.Sprintf(`{"uri":"x://%d"}`, i)))
	}
	select {
	case <-w.events.wake:
	default:
		t.Fatal("no wake after a push")
	}
	for i := range 3 {
		e, ok := w.events.pop()
		if want := fmt.Sprintf("x://%d", i); !ok || e.uri != want {
			t.Fatalf("pop %d = %+v, %v; want %s", i, e, ok, want)
		}
	}
	if _, ok := w.events.pop(); ok {
		t.Error("pop from an empty queue")
	}
}

func TestLineKeepsText(t *testing.T) {
	t.Parallel()
	got, err := rawjson.Encode(struct {
		URI      string          `json:"uri"`
		Contents json.RawMessage `json:"contents"`
	}{"x://a?b=1&c=<2>", json.RawMessage(`[ {"text": "<&>", "n": 1.50} ]`)})
	if want := `{"uri":"x://a?b=1&c=<2>","contents":[{"text":"<&>","n":1.50}]}`; err != nil || string(got) != want {
		t.Errorf("rawjson.Encode = %s, %v; want %s", got, err, want)
	}
}

// An update whose params do not decode (here none) is no line of an
// empty URI: it is said, and not counted toward --count.
func TestRunSaysMalformedUpdate(t *testing.T) {
	t.Parallel()
	s := &server{extra: []string{"notifications/resources/updated"}}
	got, notes, err := lines(t, Options{URIs: []string{"x://a"}, Count: 1}, s)
	if err != nil {
		t.Fatalf("Run = %v", err)
	}
	if d := cmp.Diff([]map[string]any{{"uri": "x://a"}}, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	if want := []string{"warning: the server's notifications/resources/updated was left out: its params do not decode"}; !cmp.Equal(notes, want) {
		t.Errorf("notes %q, want %q", notes, want)
	}
}
