package mcp

// Benchmarks of the session's hot paths: a small call's round trip, one huge
// response read from a stdio stream, and SSE parsing. Each one checks what it
// measured, so a broken path fails instead of timing nothing.
//
//	go test ./mcp -run XXX -bench 'RoundTrip|SSE' -benchmem -count=5
//	go test ./mcp -run XXX -bench DecodeLargeMessage -benchmem -benchtime=3x -count=5

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// echoResponse answers a request as encodeRequest writes it
// ({"jsonrpc":"2.0","id":N,"method":M,"params":P}) with the response
// {"jsonrpc":"2.0","id":N,"result":P}, found by slicing rather than decoding
// so that the fake server costs little next to the session it serves.
func echoResponse(req []byte) ([]byte, error) {
	_, rest, ok1 := bytes.Cut(req, []byte(`"id":`))
	id, rest, ok2 := bytes.Cut(rest, []byte(`,"method":`))
	_, params, ok3 := bytes.Cut(rest, []byte(`,"params":`))
	if !ok1 || !ok2 || !ok3 || !bytes.HasSuffix(params, []byte("}")) {
		return nil, fmt.Errorf("unexpected request %s", req)
	}
	params = params[:len(params)-1]
	resp := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id)+len(params))
	resp = append(resp, `{"jsonrpc":"2.0","id":`...)
	resp = append(resp, id...)
	resp = append(resp, `,"result":`...)
	resp = append(resp, params...)
	return append(resp, '}'), nil
}

// newEchoSession starts a session on a memTransport whose server answers every
// request at once, echoing its params as the result. The session is closed,
// and the server goroutine gone, when the benchmark ends.
func newEchoSession(b *testing.B) *Session {
	b.Helper()
	m := newMemTransport()
	s := NewSession(m, SessionOptions{})
	served := make(chan struct{})
	go func() { // stops when the transport is closed
		defer close(served)
		for {
			select {
			case req := <-m.out:
				resp, err := echoResponse(req)
				if err != nil {
					m.fail <- err // ends the session: every Call fails
					return
				}
				select {
				case m.in <- resp:
				case <-m.closed:
					return
				}
			case <-m.closed:
				return
			}
		}
	}()
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testWait)
		defer cancel()
		s.Close(ctx)
		<-served
		if m.concurrent.Load() {
			b.Error("the session called Transport.Write concurrently")
		}
	})
	return s
}

// BenchmarkSessionRoundTrip is one Session.Call at a time: the request
// encoded and written, the response read, decoded and routed to the caller.
// The allocations include the fake's two per call (memTransport.Write's copy
// of the request and the response echoResponse builds).
func BenchmarkSessionRoundTrip(b *testing.B) {
	s := newEchoSession(b)
	ctx := context.Background()
	params := json.RawMessage(`{"name":"echo","arguments":{"caller":0}}`)
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.Call(ctx, "tools/call", params)
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Equal(res, params) {
			b.Fatalf("result %s, want %s", res, params)
		}
	}
}

// BenchmarkSessionRoundTripParallel is BenchmarkSessionRoundTrip with many
// calls in flight on one session; each caller checks that it got the answer
// to its own request.
func BenchmarkSessionRoundTripParallel(b *testing.B) {
	for _, p := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("callers=%d", p*runtime.GOMAXPROCS(0)), func(b *testing.B) {
			s := newEchoSession(b)
			ctx := context.Background()
			var callers atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(p)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				params := json.RawMessage(fmt.Sprintf(`{"name":"echo","arguments":{"caller":%d}}`, callers.Add(1)))
				for pb.Next() {
					res, err := s.Call(ctx, "tools/call", params)
					if err != nil {
						b.Error(err)
						return
					}
					if !bytes.Equal(res, params) {
						b.Errorf("result %s, want %s", res, params)
						return
					}
				}
			})
		})
	}
}

// largeMessageSize is the size of the huge response, newline included.
const largeMessageSize = 100 << 20

// largeResponse is one stdio line of exactly largeMessageSize bytes: a
// tools/call response with one huge text block. Its id sits in a slot of
// spaces that setID fills in place, so that one buffer answers every request.
type largeResponse struct {
	line    []byte // the whole line, newline included
	idAt    int    // where the id slot starts
	textLen int    // length of the text block's string
}

const idSlot = 20 // the longest int64 has 19 digits

func newLargeResponse() *largeResponse {
	head := `{"jsonrpc":"2.0","id":`
	mid := `,"result":{"content":[{"type":"text","text":"`
	tail := "\"}]}}\n"
	textLen := largeMessageSize - len(head) - idSlot - len(mid) - len(tail)
	line := make([]byte, 0, largeMessageSize)
	line = append(line, head...)
	line = append(line, strings.Repeat(" ", idSlot)...)
	line = append(line, mid...)
	line = line[:len(line)+textLen]
	for i := len(line) - textLen; i < len(line); i++ {
		line[i] = 'x'
	}
	line = append(line, tail...)
	r := &largeResponse{line: line, idAt: len(head), textLen: textLen}
	r.setID([]byte("1"))
	return r
}

// setID writes id into the slot, padded with spaces (insignificant in JSON).
func (r *largeResponse) setID(id []byte) {
	slot := r.line[r.idAt : r.idAt+idSlot]
	n := copy(slot, id)
	for i := n; i < len(slot); i++ {
		slot[i] = ' '
	}
}

// check fails unless result is the huge result of r.
func (r *largeResponse) check(b *testing.B, result []byte) {
	b.Helper()
	prefix := `{"content":[{"type":"text","text":"`
	if want := len(prefix) + r.textLen + len(`"}]}`); len(result) != want {
		b.Fatalf("result of %d bytes, want %d", len(result), want)
	}
	if !bytes.HasPrefix(result, []byte(prefix+"xxxx")) || !bytes.HasSuffix(result, []byte(`xxxx"}]}`)) {
		b.Fatalf("result %.60q…, not the huge text", result)
	}
}

// feedReader is an in-memory stdout: Read returns the bytes of one fed
// message after another, blocking while there are none, and io.EOF once
// closed.
type feedReader struct {
	next   chan []byte   // messages to read next; buffered
	closed chan struct{} // closed by stop
	once   sync.Once
	cur    []byte // what is left of the message being read; reader only
}

func newFeedReader() *feedReader {
	return &feedReader{next: make(chan []byte, 1), closed: make(chan struct{})}
}

func (f *feedReader) Read(p []byte) (int, error) {
	if len(f.cur) == 0 {
		select {
		case f.cur = <-f.next:
		case <-f.closed:
			return 0, io.EOF
		}
	}
	n := copy(p, f.cur)
	f.cur = f.cur[n:]
	return n, nil
}

func (f *feedReader) stop() { f.once.Do(func() { close(f.closed) }) }

// stdioFeed is a Transport that reads through the real stdio transport's
// line reader (CommandTransport.Read over a feedReader instead of a pipe) and
// answers every request with the huge response, its id set to the request's.
// mcp has no constructor of a CommandTransport over a plain reader, so this
// builds one field by field.
type stdioFeed struct {
	ct   *CommandTransport
	feed *feedReader
	resp *largeResponse
}

func newStdioFeed(resp *largeResponse) *stdioFeed {
	feed := newFeedReader()
	ct := &CommandTransport{
		opts:     CommandOptions{Grace: time.Millisecond},
		tail:     &tailBuffer{max: stderrTailBytes},
		readDone: make(chan struct{}), // Read closes it at the end of the feed
	}
	ct.msgs = newMessageReader(feed, readBufferSize)
	ct.junk = junkWarner{log: slog.New(slog.DiscardHandler), where: "on the server's stdout"}
	ct.msgs.junk = ct.junk.warn
	return &stdioFeed{ct: ct, feed: feed, resp: resp}
}

func (f *stdioFeed) Read() ([]byte, error) { return f.ct.Read() }

// Write answers at once. The previous answer has been read whole by then (its
// caller had it), so the shared line can be rewritten.
func (f *stdioFeed) Write(ctx context.Context, msg []byte) error {
	_, rest, ok := bytes.Cut(msg, []byte(`"id":`))
	id, _, ok2 := bytes.Cut(rest, []byte(","))
	if !ok || !ok2 || len(id) > idSlot {
		return fmt.Errorf("unexpected request %s", msg)
	}
	f.resp.setID(id)
	select {
	case f.feed.next <- f.resp.line:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (f *stdioFeed) Close(context.Context) error {
	f.ct.closeMu.Lock()
	f.ct.isClosed = true // Read then reports "connection closed" at once
	f.ct.closeMu.Unlock()
	f.feed.stop()
	return nil
}

// BenchmarkDecodeLargeMessage delivers one 100 MB response per iteration.
// session is the whole path of a huge tools/call result: Session.Call, the
// stdio transport's line reading (messageReader and the trims),
// decodeMessages (one pass that checks the message and finds its members)
// and routing. stdio-read and decode time the two halves alone. Run with
// -benchtime=3x: each iteration allocates a few hundred MB.
func BenchmarkDecodeLargeMessage(b *testing.B) {
	resp := newLargeResponse()
	line := resp.line[:len(resp.line)-1] // without its newline
	b.Run("session", func(b *testing.B) {
		f := newStdioFeed(resp)
		s := NewSession(f, SessionOptions{})
		defer s.Close(context.Background())
		var result json.RawMessage
		b.ReportAllocs()
		b.SetBytes(largeMessageSize)
		for b.Loop() {
			var err error
			if result, err = s.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"big"}`)); err != nil {
				b.Fatal(err)
			}
		}
		resp.check(b, result)
	})
	b.Run("stdio-read", func(b *testing.B) {
		f := newStdioFeed(resp)
		defer f.Close(context.Background())
		var got []byte
		b.ReportAllocs()
		b.SetBytes(largeMessageSize)
		for b.Loop() {
			f.feed.next <- resp.line
			var err error
			if got, err = f.Read(); err != nil {
				b.Fatal(err)
			}
		}
		if !bytes.Equal(got, line) {
			b.Fatalf("Read returned %d bytes, not the line of %d", len(got), len(line))
		}
	})
	b.Run("decode", func(b *testing.B) {
		resp.setID([]byte("1")) // session left its last id there
		var msgs []message
		b.ReportAllocs()
		b.SetBytes(largeMessageSize)
		for b.Loop() {
			var err error
			if msgs, err = appendMessages(nil, line); err != nil {
				b.Fatal(err)
			}
		}
		if len(msgs) != 1 || string(msgs[0].ID) != "1" {
			b.Fatalf("decoded %d messages, want one with id 1", len(msgs))
		}
		resp.check(b, msgs[0].Result)
	})
}

// sseStream is a canned SSE stream and what parsing it must yield.
type sseStream struct {
	data      []byte
	events    int    // events that carry data
	dataBytes int    // their data, summed
	lastID    string // the last id field
}

// newSSEStream builds small events (id and one data line of JSON-RPC),
// with a keep-alive comment every 50 events and a retry field every 1,000;
// and, when large > 0, that many events of 1 MiB of data spread over 64 lines.
func newSSEStream(small, large int) *sseStream {
	var (
		s   sseStream
		buf bytes.Buffer
		id  int
	)
	event := func(data ...string) {
		id++
		fmt.Fprintf(&buf, "id: %d\n", id)
		if id%1000 == 0 {
			buf.WriteString("retry: 3000\n")
		}
		for i, d := range data {
			fmt.Fprintf(&buf, "data: %s\n", d)
			s.dataBytes += len(d)
			if i > 0 {
				s.dataBytes++ // the newline joining data lines
			}
		}
		buf.WriteString("\n")
		s.events++
		s.lastID = fmt.Sprint(id)
	}
	every := 0
	if large > 0 {
		every = small / large
	}
	big := make([]string, 64)
	for i := range big {
		big[i] = strings.Repeat("y", 16<<10)
	}
	for i := 1; i <= small; i++ {
		if i%50 == 0 {
			buf.WriteString(": keep-alive\n\n")
		}
		event(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpv-1","progress":%d,"total":%d,"message":"step %d of the job"}}`, i, small, i))
		if every > 0 && i%every == 0 {
			event(big...)
		}
	}
	s.data = buf.Bytes()
	return &s
}

// newHugeSSEEvent is one event whose data is a single 64 MiB line: a huge
// tools/call result answered on a Streamable HTTP stream.
func newHugeSSEEvent() *sseStream {
	head := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`
	tail := `"}]}}`
	data := head + strings.Repeat("z", 64<<20) + tail
	return &sseStream{
		data:      []byte("id: 1\nretry: 3000\ndata: " + data + "\n\n"),
		events:    1,
		dataBytes: len(data),
		lastID:    "1",
	}
}

// BenchmarkSSEParse reads a whole stream with the SSE reader per iteration:
// typical holds 100k small events (~17 MB); with-large holds 50k of them
// and 8 events of 1 MiB in 64 data lines each (~17 MB); huge-event is one
// event of 64 MiB on one data line.
func BenchmarkSSEParse(b *testing.B) {
	for _, tt := range []struct {
		name         string
		small, large int
	}{
		{"typical", 100_000, 0},
		{"with-large", 50_000, 8},
		{"huge-event", 0, 0},
	} {
		b.Run(tt.name, func(b *testing.B) {
			want := newSSEStream(tt.small, tt.large)
			if tt.name == "huge-event" {
				want = newHugeSSEEvent()
			}
			var (
				events, dataBytes int
				p                 *sseReader
			)
			b.ReportAllocs()
			b.SetBytes(int64(len(want.data)))
			for b.Loop() {
				events, dataBytes = 0, 0
				p = newSSEReader(bytes.NewReader(want.data))
				for {
					ev, err := p.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					events++
					dataBytes += len(ev.Data)
				}
			}
			if events != want.events || dataBytes != want.dataBytes {
				b.Fatalf("%d events with %d bytes of data, want %d with %d", events, dataBytes, want.events, want.dataBytes)
			}
			if p.LastID != want.lastID || p.Retry != 3*time.Second {
				b.Fatalf("LastID %q, Retry %v; want %q, 3s", p.LastID, p.Retry, want.lastID)
			}
		})
	}
}
