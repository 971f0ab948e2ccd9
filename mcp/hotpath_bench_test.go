package mcp

// Benchmarks of the paths a large message takes besides the stdio line:
// a Content-Length framed body, a batch, a message the HTTP transport
// receives, and the arguments of a tools/call on their way out.
//
//	go test ./mcp -run XXX -bench 'ReadFramed|DecodeBatch|HTTPIncoming|CallArguments' -benchmem -count=6

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkReadFramedLarge reads one 100 MB Content-Length framed message
// per iteration through the stdio transport's message reader.
func BenchmarkReadFramedLarge(b *testing.B) {
	resp := newLargeResponse()
	body := resp.line[:len(resp.line)-1]
	framed := frame(body)
	feed := newFeedReader()
	defer feed.stop()
	m := newMessageReader(feed, readBufferSize)
	m.mode = framingHeaders
	var got []byte
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		feed.next <- framed
		var err error
		if got, err = m.next(); err != nil {
			b.Fatal(err)
		}
	}
	if !bytes.Equal(got, body) {
		b.Fatalf("read %d bytes, not the body of %d", len(got), len(body))
	}
}

// BenchmarkDecodeBatch decodes a batch (a JSON array of messages): small
// holds 64 small responses, large one response of 20 MB among them.
func BenchmarkDecodeBatch(b *testing.B) {
	small := make([]string, 64)
	for i := range small {
		small[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"answer %d"}],"isError":false}}`, i+1, i+1)
	}
	large := append([]string{}, small...)
	large[10] = `{"jsonrpc":"2.0","id":11,"result":{"content":[{"type":"text","text":"` + strings.Repeat("z", 20<<20) + `"}]}}`
	for _, tt := range []struct {
		name  string
		batch []byte
	}{
		{"small", []byte("[" + strings.Join(small, ",") + "]")},
		{"large", []byte("[" + strings.Join(large, ", ") + "]")},
	} {
		b.Run(tt.name, func(b *testing.B) {
			var msgs []message
			b.ReportAllocs()
			b.SetBytes(int64(len(tt.batch)))
			for b.Loop() {
				var err error
				if msgs, err = appendMessages(nil, tt.batch); err != nil {
					b.Fatal(err)
				}
			}
			if len(msgs) != 64 || string(msgs[63].ID) != "64" {
				b.Fatalf("decoded %d messages, want 64", len(msgs))
			}
		})
	}
}

// BenchmarkHTTPIncoming is what happens to each message an HTTP answer
// brings: the transport looks for the response it waits for
// (isResponseTo), then the session decodes it (decodeMessages).
func BenchmarkHTTPIncoming(b *testing.B) {
	id := json.RawMessage("7")
	for _, tt := range []struct {
		name string
		msg  []byte
	}{
		{"small", []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a short answer"}],"isError":false}}`)},
		{"20MB", []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat("z", 20<<20) + `"}]}}`)},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(tt.msg)))
			for b.Loop() {
				if !isResponseTo(tt.msg, id) {
					b.Fatal("not the response")
				}
				msgs, err := appendMessages(nil, tt.msg)
				if err != nil || len(msgs) != 1 {
					b.Fatal(err)
				}
			}
		})
	}
}

// answerTransport answers every request at once with an empty result,
// reading only its id; what it is sent is not copied.
type answerTransport struct {
	in   chan []byte
	done chan struct{}
}

func (a *answerTransport) Read() ([]byte, error) {
	select {
	case m := <-a.in:
		return m, nil
	case <-a.done:
		return nil, context.Canceled
	}
}

func (a *answerTransport) Write(ctx context.Context, msg []byte) error {
	_, rest, ok := bytes.Cut(msg, []byte(`"id":`))
	id, _, ok2 := bytes.Cut(rest, []byte(","))
	if !ok || !ok2 {
		return nil // a notification
	}
	a.in <- []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[]}}`)
	return nil
}

func (a *answerTransport) Close(context.Context) error { close(a.done); return nil }

// BenchmarkCallArguments is a tools/call with 10 MB of arguments through
// Client.Call: the progress token added to its params, the request
// encoded and written; the answer is small.
func BenchmarkCallArguments(b *testing.B) {
	tr := &answerTransport{in: make(chan []byte, 1), done: make(chan struct{})}
	s := NewSession(tr, SessionOptions{})
	defer s.Close(context.Background())
	c := Attach(s, ClientOptions{}, State{Version: LatestVersion, InitializeResult: parsedInit(`{"capabilities":{"tools":{}}}`)})
	params := json.RawMessage(`{"name":"summarize","arguments":{"lang":"en","text":"` + strings.Repeat("w", 10<<20) + `","limit":5}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(params)))
	for b.Loop() {
		if _, err := c.Call(context.Background(), "tools/call", params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSSEDropsAndGrowth reads SSE streams whose cost lies in lines
// the reader drops or in gathering one event: comments holds 100k comment
// and unknown-field lines around 1,000 small events (~12 MB); multiline is
// one event of 64 MiB in 4,096 data lines.
func BenchmarkSSEDropsAndGrowth(b *testing.B) {
	var comments bytes.Buffer
	for i := range 1000 {
		for j := range 50 {
			fmt.Fprintf(&comments, ": keep-alive %d, padded to look like what proxies send\n", j)
			fmt.Fprintf(&comments, "x-trace: %d-%d-0123456789abcdef0123456789abcdef\n", i, j)
		}
		fmt.Fprintf(&comments, "id: %d\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":%d}}\n\n", i, i)
	}
	var multi bytes.Buffer
	line := strings.Repeat("m", 16<<10)
	multi.WriteString("id: 1\n")
	for range 4096 {
		multi.WriteString("data: " + line + "\n")
	}
	multi.WriteString("\n")
	for _, tt := range []struct {
		name      string
		data      []byte
		events    int
		dataBytes int
	}{
		{"comments", comments.Bytes(), 1000, -1},
		{"multiline", multi.Bytes(), 1, 4096*(16<<10) + 4095},
	} {
		b.Run(tt.name, func(b *testing.B) {
			var events, dataBytes int
			b.ReportAllocs()
			b.SetBytes(int64(len(tt.data)))
			for b.Loop() {
				events, dataBytes = 0, 0
				p := newSSEReader(bytes.NewReader(tt.data))
				for {
					ev, err := p.Next()
					if err != nil {
						break
					}
					events++
					dataBytes += len(ev.Data)
				}
			}
			if events != tt.events || tt.dataBytes >= 0 && dataBytes != tt.dataBytes {
				b.Fatalf("%d events with %d bytes, want %d with %d", events, dataBytes, tt.events, tt.dataBytes)
			}
		})
	}
}
