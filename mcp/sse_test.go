package mcp

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func readAllEvents(t *testing.T, r io.Reader) ([]Event, *sseReader) {
	t.Helper()
	p := newSSEReader(r)
	var evs []Event
	for {
		ev, err := p.Next()
		if errors.Is(err, io.EOF) {
			return evs, p
		}
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
}

func TestSSEParser(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   []Event
		lastID string
		retry  time.Duration
	}{
		{"one event", "data: {\"a\":1}\n\n", []Event{{Data: []byte(`{"a":1}`)}}, "", 0},
		{"multi-line data", "data: a\ndata:b\ndata:  c\n\n", []Event{{Data: []byte("a\nb\n c")}}, "", 0},
		{"priming event is not dispatched", "id: p1\nretry: 500\ndata:\n\nid: p2\ndata: x\n\n",
			[]Event{{ID: "p2", Data: []byte("x")}}, "p2", 500 * time.Millisecond},
		{"comments and unknown fields", ": keep-alive\nfoo: bar\ndata: x\n\n", []Event{{Data: []byte("x")}}, "", 0},
		{"event type", "event: endpoint\ndata: /messages?s=1\n\n", []Event{{Type: "endpoint", Data: []byte("/messages?s=1")}}, "", 0},
		{"CRLF", "id: 1\r\ndata: x\r\n\r\n", []Event{{ID: "1", Data: []byte("x")}}, "1", 0},
		{"CR alone", "data: x\rdata: y\r\r", []Event{{Data: []byte("x\ny")}}, "", 0},
		{"BOM", "\xef\xbb\xbfdata: x\n\n", []Event{{Data: []byte("x")}}, "", 0},
		{"id with NUL ignored", "id: a\x00b\ndata: x\n\n", []Event{{Data: []byte("x")}}, "", 0},
		{"bad retry ignored", "retry: 5s\ndata: x\n\n", []Event{{Data: []byte("x"), Retry: "5s"}}, "", 0},
		// The retry a server asks is bounded: a retry of 0 would have a
		// server that closes at once asked again at once; hours (or more
		// milliseconds than an integer holds) would hang a call.
		{"retry 0 waits the least", "retry: 0\ndata: x\n\n", []Event{{Data: []byte("x"), Retry: "0"}}, "", minRetry},
		{"retry of hours waits the most", "retry: 36000000\ndata: x\n\n", []Event{{Data: []byte("x"), Retry: "36000000"}}, "", maxRetry},
		{"retry of 10^12 ms waits the most", "retry: 1000000000000\ndata: x\n\n", []Event{{Data: []byte("x"), Retry: "1000000000000"}}, "", maxRetry},
		{"retry past every integer waits the most", "retry: 99999999999999999999999\ndata: x\n\n", []Event{{Data: []byte("x"), Retry: "99999999999999999999999"}}, "", maxRetry},
		{"negative retry ignored", "retry: 200\n\nretry: -5\ndata: x\n\n", []Event{{Data: []byte("x"), Retry: "-5"}}, "", 200 * time.Millisecond},
		{"signed retry ignored", "retry: +5\ndata: x\n\n", []Event{{Data: []byte("x"), Retry: "+5"}}, "", 0},
		{"empty retry ignored", "retry:\ndata: x\n\n", []Event{{Data: []byte("x"), Retry: ""}}, "", 0},
		{"no space after colon", "data:x\n\n", []Event{{Data: []byte("x")}}, "", 0},
		{"field without colon", "data\n\ndata: y\n\n", []Event{{Data: []byte("y")}}, "", 0},
		{"unterminated event dropped", "data: x\n\ndata: half", []Event{{Data: []byte("x")}}, "", 0},
		{"type resets between events", "event: a\ndata: 1\n\ndata: 2\n\n",
			[]Event{{Type: "a", Data: []byte("1")}, {Data: []byte("2")}}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time, to cross every buffer boundary.
			evs, p := readAllEvents(t, iotestOneByte(strings.NewReader(tt.in)))
			if d := cmp.Diff(tt.want, evs); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
			if p.LastID != tt.lastID || p.Retry != tt.retry {
				t.Errorf("LastID %q, Retry %v; want %q, %v", p.LastID, p.Retry, tt.lastID, tt.retry)
			}
		})
	}
}

func TestSSEHugeEvent(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 20<<20)
	evs, _ := readAllEvents(t, strings.NewReader("id: 7\ndata: "+big+"\n\n"))
	if len(evs) != 1 || len(evs[0].Data) != len(big) {
		t.Fatalf("got %d events", len(evs))
	}
}

// oneByteReader returns one byte per Read.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

func iotestOneByte(r io.Reader) io.Reader { return oneByteReader{r} }

func FuzzSSEParser(f *testing.F) {
	f.Add("id: 1\nretry: 10\ndata: a\ndata: b\n\n: c\r\n\rdata: x\r\n\r\n")
	f.Add("\xef\xbb\xbfevent: endpoint\ndata: /m\n\n")
	f.Fuzz(func(t *testing.T, in string) {
		whole, _ := readAllEvents(t, strings.NewReader(in))
		bytewise, _ := readAllEvents(t, iotestOneByte(strings.NewReader(in)))
		if d := cmp.Diff(whole, bytewise); d != "" {
			t.Errorf("reading byte by byte changed the events (-whole +bytewise):\n%s", d)
		}
	})
}
