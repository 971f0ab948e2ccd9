package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// streamedCase is a file holding a JSON string of size bytes, a secret
// across the trace's cut, and the params that stream it.
type streamedCase struct {
	file          []byte
	st            *Streamed
	params, whole json.RawMessage
}

const streamedSecret = "SECRETVALUE-0123"

func newStreamedCase(size int) streamedCase {
	text := []byte(strings.Repeat("abc~ ", size/5+1)[:size])
	copy(text[traceHead-5:], streamedSecret)
	file := append(append([]byte(`{"id":7,"text":"`), text...), `"}`...)
	off := int64(len(`{"id":7,"text":`))
	marker := `"mcpv-streamed-test"`
	return streamedCase{
		file: file,
		st: &Streamed{Marker: []byte(marker), File: bytes.NewReader(file), Off: off, N: int64(len(text) + 2), Name: "rows.jsonl",
			Mask: func(s string) string { return strings.ReplaceAll(s, streamedSecret, "***") }},
		params: json.RawMessage(`{"name":"sink","arguments":{"n":7,"x":` + marker + `}}`),
		whole:  json.RawMessage(`{"name":"sink","arguments":{"n":7,"x":"` + string(text) + `"}}`),
	}
}

// recorder keeps the messages a fake server took whole.
type recorder struct {
	mu   sync.Mutex
	msgs [][]byte
}

func (r *recorder) add(msg []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, msg)
}

func (r *recorder) last() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.msgs) == 0 {
		return nil
	}
	return r.msgs[len(r.msgs)-1]
}

// streamedSession is a session to a fake server, over stdio or HTTP,
// that answers each request with an empty result and records it, or,
// lean, its head alone, reading what follows in pieces that it drops.
func streamedSession(t *testing.T, overHTTP, lean bool, opts SessionOptions) (*Session, *recorder) {
	t.Helper()
	rec := &recorder{}
	answer := func(msg []byte) []byte {
		_, id, ok := bytes.Cut(msg, []byte(`"id":`)) // mcpv writes it before the params
		if id, _, _ = bytes.Cut(id, []byte(",")); !ok {
			return nil
		}
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
	}
	var tr Transport
	if overHTTP {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body []byte
			var err error
			if !lean {
				body, err = io.ReadAll(r.Body)
			} else {
				body = make([]byte, 64<<10)
				n, _ := io.ReadFull(r.Body, body)
				body = body[:n]
				_, err = io.Copy(io.Discard, r.Body)
			}
			if err != nil {
				return // cut short: no message
			}
			rec.add(body)
			w.Header().Set("Content-Type", "application/json")
			w.Write(answer(body))
		}))
		t.Cleanup(srv.Close)
		h, err := NewHTTPTransport(HTTPOptions{URL: srv.URL, ProtocolVersion: LatestVersion})
		if err != nil {
			t.Fatal(err)
		}
		tr = h
	} else {
		c, err := StartCommand(CommandOptions{Path: "served", Serve: func(in io.ReadCloser, out, _ io.WriteCloser) error {
			r := bufio.NewReaderSize(in, 64<<10)
			for {
				var line []byte
				var err error
				if !lean {
					line, err = r.ReadBytes('\n')
				} else {
					line, err = r.ReadSlice('\n')
					line = bytes.Clone(line[:min(len(line), 4<<10)])
					for errors.Is(err, bufio.ErrBufferFull) {
						_, err = r.ReadSlice('\n')
					}
				}
				if err != nil {
					return nil
				}
				line = bytes.TrimSuffix(line, []byte("\n"))
				rec.add(line)
				if a := answer(line); a != nil {
					out.Write(append(a, '\n'))
				}
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		tr = c
	}
	s := NewSession(tr, opts)
	t.Cleanup(func() { s.Close(context.Background()) })
	// A first answer: the server's framing is known.
	if _, err := s.Call(context.Background(), "ping", nil); err != nil {
		t.Fatal(err)
	}
	return s, rec
}

// A request that streams a string from its file is the request the
// string itself makes, byte for byte, over stdio and HTTP; the trace
// sees its head, masked before the cut, and a note of its size, never
// the whole.
func TestStreamedRequestIsTheWholeOne(t *testing.T) {
	for _, overHTTP := range []bool{false, true} {
		t.Run(map[bool]string{false: "stdio", true: "http"}[overHTTP], func(t *testing.T) {
			c := newStreamedCase(1 << 20)
			var traced []byte
			s, rec := streamedSession(t, overHTTP, false, SessionOptions{Trace: func(out bool, msg []byte) {
				if out {
					traced = bytes.Clone(msg)
				}
			}})
			if _, err := s.call(context.Background(), "tools/call", c.params, c.st); err != nil {
				t.Fatal(err)
			}
			want, _ := encodeRequest([]byte("2"), "tools/call", c.whole)
			if got := rec.last(); !bytes.Equal(got, want) {
				t.Errorf("the server got %d bytes (%.80s…), want the %d of the whole request", len(got), got, len(want))
			}
			if !json.Valid(traced) || len(traced) > traceHead+1024 || !bytes.Contains(traced, []byte("abc~ abc~")) ||
				!bytes.Contains(traced, fmt.Appendf(nil, "(%d bytes in all, streamed from rows.jsonl)", 1<<20)) {
				t.Errorf("traced %d bytes: %.200s…%s; want the head and a note", len(traced), traced, traced[max(0, len(traced)-80):])
			}
			if bytes.Contains(traced, []byte(streamedSecret[:4])) {
				t.Errorf("the trace shows the start of a secret the cut splits: %s", traced[max(0, len(traced)-120):])
			}
		})
	}
}

// A file that changed under the send (cut short, or holding what a JSON
// string cannot: a bare quote, a broken escape, a raw control byte,
// invalid UTF-8) fails the request, and the server never takes a half
// message for a whole one: over stdio the line it gets is no JSON, over
// HTTP the body ends short of its length.
func TestStreamedFileChangedFailsTheRequest(t *testing.T) {
	for _, change := range []string{"shorter", "a quote", "a broken escape", "a control byte", "invalid UTF-8"} {
		for _, overHTTP := range []bool{false, true} {
			t.Run(change+map[bool]string{false: "/stdio", true: "/http"}[overHTTP], func(t *testing.T) {
				c := newStreamedCase(1 << 20)
				file := c.file
				if change == "shorter" {
					file = file[:len(file)-100]
				} else {
					file = bytes.Clone(file)
					copy(file[len(file)-1000:], map[string]string{"a quote": `"`, "a broken escape": `\u12x`, "a control byte": "\n", "invalid UTF-8": "\xe4\xb8"}[change])
				}
				c.st.File = bytes.NewReader(file)
				s, rec := streamedSession(t, overHTTP, false, SessionOptions{})
				_, err := s.call(context.Background(), "tools/call", c.params, c.st)
				if !errors.Is(err, errStreamChanged) {
					t.Fatalf("call error = %v, want the file changed", err)
				}
				if overHTTP {
					if got := rec.last(); len(got) > 100 {
						t.Errorf("the server took a body of %d bytes", len(got))
					}
					return
				}
				// The next request is read as a message of its own.
				if _, err := s.Call(context.Background(), "ping", nil); err != nil {
					t.Fatal(err)
				}
				rec.mu.Lock()
				defer rec.mu.Unlock()
				if n := len(rec.msgs); n != 3 || json.Valid(rec.msgs[1]) || len(rec.msgs[1]) < 1<<19 {
					t.Errorf("the server read %d lines, the second valid JSON: %v", n, n > 1 && json.Valid(rec.msgs[1]))
				}
			})
		}
	}
}

// A streamed request of a large string costs the client what it reads at
// a time, not the string: over stdio and HTTP.
func TestStreamedRequestHoldsNoWhole(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's own allocations")
	}
	const size = 16 << 20
	for _, overHTTP := range []bool{false, true} {
		t.Run(map[bool]string{false: "stdio", true: "http"}[overHTTP], func(t *testing.T) {
			c := newStreamedCase(size)
			s, _ := streamedSession(t, overHTTP, true, SessionOptions{Trace: func(bool, []byte) {}})
			call := func() {
				if _, err := s.call(context.Background(), "tools/call", c.params, c.st); err != nil {
					t.Fatal(err)
				}
			}
			call()
			const calls = 4
			per := testkit.Allocated(func() {
				for range calls {
					call()
				}
			}) / calls
			if per > size/8 {
				t.Errorf("a streamed call of %d MiB allocated %.1f MiB in the client; want what it reads at a time", size>>20, float64(per)/(1<<20))
			}
		})
	}
}

// A string with escapes, non-ASCII text and < > & streams as the file
// holds it: the server decodes from it the value the file holds, with a
// rune and an escape across the write's chunks; the trace shows the text
// decoded, not its escapes doubled.
func TestStreamedEscapedIsTheSameValue(t *testing.T) {
	marker := `"mcpv-streamed-test"`
	params := json.RawMessage(`{"name":"sink","arguments":{"n":7,"x":` + marker + `}}`)
	msg, _ := encodeRequest([]byte("2"), "tools/call", params)
	at := streamChunk - bytes.Index(msg, []byte(marker)) // the string's byte at the first chunk's end
	var lit bytes.Buffer
	lit.WriteString(`"`)
	for lit.Len() < at-2 {
		lit.WriteString(`line \"q\" <&> \u00e9 中文\n`)
	}
	lit.Truncate(at - 2)
	lit.WriteString("😀\\u4e2d\\n") // the emoji across the chunks' edge, then escapes
	for lit.Len() < 1<<20 {
		lit.WriteString(`\\ \/ \b\f\r\t \ud83d\ude00 😀 中文 <&>\n`)
	}
	lit.WriteString(`"`)
	var want string
	if err := json.Unmarshal(lit.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	file := append([]byte("{\"x\": "), lit.Bytes()...)
	for _, overHTTP := range []bool{false, true} {
		t.Run(map[bool]string{false: "stdio", true: "http"}[overHTTP], func(t *testing.T) {
			var traced []byte
			s, rec := streamedSession(t, overHTTP, false, SessionOptions{Trace: func(out bool, msg []byte) {
				if out {
					traced = bytes.Clone(msg)
				}
			}})
			st := &Streamed{Marker: []byte(marker), File: bytes.NewReader(file), Off: 6, N: int64(lit.Len()), Name: "rows.jsonl"}
			if _, err := s.call(context.Background(), "tools/call", params, st); err != nil {
				t.Fatal(err)
			}
			var got, seen struct {
				Params struct{ Arguments struct{ X string } }
			}
			if err := json.Unmarshal(rec.last(), &got); err != nil || got.Params.Arguments.X != want {
				t.Errorf("the server got %d bytes of text (%v), want the %d the file holds", len(got.Params.Arguments.X), err, len(want))
			}
			if err := json.Unmarshal(traced, &seen); err != nil || !strings.HasPrefix(seen.Params.Arguments.X, `line "q" <&> é 中文`+"\n"+`line "q"`) {
				t.Errorf("traced %.200s (%v); want the text decoded", traced, err)
			}
		})
	}
}
