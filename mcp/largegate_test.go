package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// roundTripper answers an HTTP request with a function.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// fed is a body whose bytes the test hands over, one chunk at a time: a
// send on ch returns once the reader has taken the chunk.
type fed struct {
	ch  chan []byte
	cur []byte
}

func (f *fed) Read(p []byte) (int, error) {
	if len(f.cur) == 0 {
		b, ok := <-f.ch
		if !ok {
			return 0, io.EOF
		}
		f.cur = b
	}
	n := copy(p, f.cur)
	f.cur = f.cur[n:]
	return n, nil
}

func (f *fed) Close() error { return nil }

// largeEvent is an SSE event holding the response to id, a text of size
// bytes.
func largeEvent(id, size int) string {
	return fmt.Sprintf(`data: {"jsonrpc":"2.0","id":%d,"result":{"text":"%s"}}`+"\n\n", id, strings.Repeat("x", size))
}

// Two large answers on two streams are read one at a time: while the
// session holds the first, the second stream is read no further than
// largeMessage, and it goes on once the session comes back for the next
// message. Read on at once, both would be in memory together.
func TestHTTPLargeAnswersReadOneAtATime(t *testing.T) {
	testkit.SkipLong(t, "two answers of 12 MiB read in turn")
	t.Parallel()
	const size = 3 * largeMessage
	second := &fed{ch: make(chan []byte)}
	defer close(second.ch)
	rt := roundTripper(func(r *http.Request) (*http.Response, error) {
		body, _ := io.ReadAll(r.Body)
		resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Request: r}
		if bytes.Contains(body, []byte(`"id":1`)) {
			resp.Body = io.NopCloser(strings.NewReader(largeEvent(1, size)))
		} else {
			resp.Body = second
		}
		return resp, nil
	})
	tr := newHTTPTransport(t, HTTPOptions{URL: "http://mcp.test/mcp", Client: &http.Client{Transport: rt}})
	defer tr.Close(context.Background())
	ctx := testCtx(t)
	for id := 1; id <= 2; id++ {
		if err := tr.Write(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{}}`, id)); err != nil {
			t.Fatal(err)
		}
	}
	first, err := tr.Read()
	if err != nil || !isResponseTo(first, []byte("1")) || len(first) < size {
		t.Fatalf("first message: %d bytes, %v", len(first), err)
	}

	// The second answer, fed while the session holds the first: it stops
	// being taken once largeMessage bytes of it are read.
	rest := []byte(largeEvent(2, size))
	const chunk = 64 << 10
	sent := 0
	for sent < len(rest) {
		end := min(sent+chunk, len(rest))
		select {
		case second.ch <- rest[sent:end]:
			sent = end
			continue
		case <-time.After(100 * time.Millisecond):
		}
		break
	}
	if sent > largeMessage+2*chunk {
		t.Fatalf("the second stream was read to %d bytes while the first large message was held", sent)
	}

	// The session comes back for the next message: the second is read.
	got := make(chan []byte, 1)
	go func() {
		m, err := tr.Read()
		if err != nil {
			t.Error(err)
		}
		got <- m
	}()
	// Each send is bounded: a reader that stopped, or a Read that came
	// back with something else, is a failure that says so, not a hang.
	for sent < len(rest) {
		end := min(sent+chunk, len(rest))
		select {
		case second.ch <- rest[sent:end]:
			sent = end
		case m := <-got:
			t.Fatalf("Read came back with %d bytes (%.120q) when %d of the second answer's %d were sent", len(m), m, sent, len(rest))
		case <-time.After(testWait):
			t.Fatalf("the second answer was read no further than %d of its %d bytes", sent, len(rest))
		}
	}
	if m := <-got; !isResponseTo(m, []byte("2")) || len(m) < size {
		t.Fatalf("second message: %d bytes", len(m))
	}
}

// An event the caller does not take gives the gate back when the next is
// asked for; one taken holds it until released; a reader that stops gives
// back what it holds.
func TestSSEReaderGate(t *testing.T) {
	gate := newLargeGate()
	big := strings.Repeat("y", largeMessage)
	stream := "data: " + big + "\n\n" + "data: small\n\n" + "data: " + big + "\n\n"
	r := newGatedSSEReader(context.Background(), strings.NewReader(stream), gate)

	if ev, err := r.Next(); err != nil || len(ev.Data) != largeMessage || len(gate.slot) != 1 {
		t.Fatalf("first event: %d bytes, %v, gate held %d", len(ev.Data), err, len(gate.slot))
	}
	// Not taken: the next event frees it.
	if ev, err := r.Next(); err != nil || string(ev.Data) != "small" || len(gate.slot) != 0 || r.take() {
		t.Fatalf("second event: %q, %v, gate held %d", ev.Data, err, len(gate.slot))
	}
	if _, err := r.Next(); err != nil || len(gate.slot) != 1 || !r.take() {
		t.Fatalf("third event: %v, gate held %d", err, len(gate.slot))
	}
	// Taken: the reader frees nothing; its taker does.
	if _, err := r.Next(); !errors.Is(err, io.EOF) || len(gate.slot) != 1 {
		t.Fatalf("end: %v, gate held %d", err, len(gate.slot))
	}
	gate.release()

	// A reader that holds the gate when its caller stops gives it back.
	r = newGatedSSEReader(context.Background(), strings.NewReader("data: "+big+"\n\n"), gate)
	if _, err := r.Next(); err != nil || len(gate.slot) != 1 {
		t.Fatalf("held: %v, %d", err, len(gate.slot))
	}
	r.release()
	if len(gate.slot) != 0 {
		t.Fatal("release left the gate held")
	}

	// A line that would need the gate while another holds it waits, and
	// ends with the reader's context.
	gate.slot <- struct{}{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r = newGatedSSEReader(ctx, strings.NewReader("data: "+big+"\n\n"), gate)
	if _, err := r.Next(); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting for a held gate: %v", err)
	}
}

// A JSON body holds the gate from largeMessage bytes on; one that fails
// gives it back.
func TestReadBodyGate(t *testing.T) {
	tr := newHTTPTransport(t, HTTPOptions{URL: "http://mcp.test/mcp"})
	data, large, err := tr.readBody(context.Background(), strings.NewReader(strings.Repeat("z", largeMessage-1)))
	if err != nil || large || len(data) != largeMessage-1 || len(tr.large.slot) != 0 {
		t.Fatalf("small body: %d bytes, large %v, %v", len(data), large, err)
	}
	data, large, err = tr.readBody(context.Background(), strings.NewReader(strings.Repeat("z", largeMessage+1)))
	if err != nil || !large || len(data) != largeMessage+1 || len(tr.large.slot) != 1 {
		t.Fatalf("large body: %d bytes, large %v, %v", len(data), large, err)
	}
	tr.large.release()
	broken := io.MultiReader(strings.NewReader(strings.Repeat("z", largeMessage+1)), iotest.ErrReader(errors.New("connection reset")))
	if _, large, err = tr.readBody(context.Background(), broken); err == nil || large || len(tr.large.slot) != 0 {
		t.Fatalf("broken body: large %v, %v, gate held %d", large, err, len(tr.large.slot))
	}
}

// A large answer the server stalls in the middle of holds the gate, and
// holds the other streams' large answers up for the gate's wait, not for
// as long as it stalls: they are read on without the gate.
func TestHTTPStalledLargeAnswerHoldsOthersBriefly(t *testing.T) {
	t.Parallel()
	const size = 2 * largeMessage
	stalled := &fed{ch: make(chan []byte)}
	rt := roundTripper(func(r *http.Request) (*http.Response, error) {
		body, _ := io.ReadAll(r.Body)
		resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}}, Request: r}
		if bytes.Contains(body, []byte(`"id":1`)) {
			resp.Body = stalled
		} else {
			resp.Body = io.NopCloser(strings.NewReader(largeEvent(2, size)))
		}
		return resp, nil
	})
	tr := newHTTPTransport(t, HTTPOptions{URL: "http://mcp.test/mcp", Client: &http.Client{Transport: rt}})
	defer tr.Close(context.Background())
	defer close(stalled.ch) // the stalled stream ends before the transport closes
	tr.large.wait = 100 * time.Millisecond
	ctx := testCtx(t)
	if err := tr.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	// The first answer is read past largeMessage, and no further.
	first := []byte(largeEvent(1, size))
	for sent := 0; sent < largeMessage+(64<<10); sent += 64 << 10 {
		stalled.ch <- first[sent : sent+64<<10]
	}
	if err := tr.Write(ctx, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}`)); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		m, _ := tr.Read()
		got <- m
	}()
	select {
	case m := <-got:
		if !isResponseTo(m, []byte("2")) || len(m) < size {
			t.Fatalf("read %d bytes, not the second answer", len(m))
		}
	case <-time.After(testWait):
		t.Fatal("the second answer waited for the stalled first one")
	}
}

// A reader that waited out the gate for an event reads the rest of that
// event on without asking again, however many data lines it has; the next
// event asks again.
func TestSSEReaderWaitsOnceAnEvent(t *testing.T) {
	t.Parallel()
	gate := newLargeGate()
	gate.wait = 50 * time.Millisecond
	gate.slot <- struct{}{} // another stream's
	// Many lines: waiting once a line would take lines×wait (51 s), far
	// longer than once an event.
	const lines = 2 * largeMessage / (8 << 10)
	line := "data: " + strings.Repeat("z", 8<<10) + "\n"
	event := strings.Repeat(line, lines) + "\n"
	r := newGatedSSEReader(context.Background(), strings.NewReader(event+event), gate)
	for i := range 2 {
		start := time.Now()
		if _, err := r.Next(); err != nil || r.take() {
			t.Fatalf("event %d: %v, or it holds the gate another holds", i, err)
		}
		if d := time.Since(start); d < gate.wait || d >= lines/2*gate.wait {
			t.Errorf("event %d: read in %v, waiting %v once, not once for each of its %d lines", i, d, gate.wait, lines)
		}
	}
}
