package mcp

// A call's round trip over the HTTP transport, as mcpv load makes it
// thousands of times a second: Client.Call through HTTPTransport to a
// server on the loopback that answers at once. The server is written on a
// bare TCP connection and reuses its buffers, so that what -benchmem
// counts is the client's work (the request built, POSTed, its answer read
// and routed to the caller), not a server's.
//
//	go test ./mcp -run XXX -bench HTTPCall -benchmem -count=5

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// rawHTTPServer answers each POST of a JSON-RPC request with its response
// (an SSE stream of one event, as the go-sdk's stateless server sends it,
// or a JSON body), each notification with 202 and anything else with 405.
type rawHTTPServer struct {
	ln     net.Listener
	sse    bool
	result []byte
	conns  sync.WaitGroup
	mu     sync.Mutex
	open   []net.Conn // closed at the end: a client keeps its idle connections
}

func startRawHTTPServer(tb testing.TB, sse bool, result string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &rawHTTPServer{ln: ln, sse: sse, result: []byte(result)}
	accepted := make(chan struct{})
	go func() { // accept loop: ends when the listener closes
		defer close(accepted)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.open = append(s.open, c)
			s.mu.Unlock()
			s.conns.Go(func() { s.serve(c) }) // one connection: ends when it is closed
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		<-accepted
		s.mu.Lock()
		for _, c := range s.open {
			c.Close()
		}
		s.mu.Unlock()
		s.conns.Wait()
	})
	return "http://" + ln.Addr().String() + "/"
}

// serve answers the requests of one connection until it closes.
func (s *rawHTTPServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 16<<10)
	w := bufio.NewWriterSize(c, 16<<10)
	var body, event []byte
	for {
		method, length, err := readRequestHead(r)
		if err != nil {
			return
		}
		if cap(body) < length {
			body = make([]byte, length)
		}
		body = body[:length]
		if _, err := ioReadFull(r, body); err != nil {
			return
		}
		id := requestID(body)
		switch {
		case method != "POST":
			w.WriteString("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
		case id == nil:
			w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		case s.sse:
			event = append(event[:0], "event: message\ndata: "...)
			event = appendResponse(event, id, s.result)
			event = append(event, "\n\n"...)
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
			w.WriteString(strconv.FormatInt(int64(len(event)), 16))
			w.WriteString("\r\n")
			w.Write(event)
			w.WriteString("\r\n0\r\n\r\n")
		default:
			event = appendResponse(event[:0], id, s.result)
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ")
			w.WriteString(strconv.Itoa(len(event)))
			w.WriteString("\r\n\r\n")
			w.Write(event)
		}
		if w.Flush() != nil {
			return
		}
	}
}

// readRequestHead reads a request's line and headers: its method and
// Content-Length.
func readRequestHead(r *bufio.Reader) (method string, length int, err error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return "", 0, err
	}
	switch {
	case bytes.HasPrefix(line, []byte("POST ")):
		method = "POST"
	default:
		method = "other"
	}
	for {
		line, err = r.ReadSlice('\n')
		if err != nil {
			return "", 0, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return method, length, nil
		}
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(k, []byte("Content-Length")) {
			if length, err = strconv.Atoi(string(bytes.TrimSpace(v))); err != nil {
				return "", 0, err
			}
		}
	}
}

func ioReadFull(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// requestID is the id of a request as mcpv writes it ({"jsonrpc":"2.0","id":N,...}),
// nil for a notification.
func requestID(body []byte) []byte {
	_, rest, ok := bytes.Cut(body, []byte(`"id":`))
	if !ok {
		return nil
	}
	end := bytes.IndexAny(rest, ",}")
	if end < 0 {
		return nil
	}
	return rest[:end]
}

func appendResponse(b, id, result []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, '}')
}

// greetResult is the go-sdk everything server's answer to greet.
const greetResult = `{"content":[{"type":"text","text":"Hi x"}]}`

// httpCallClient is a Client on an HTTPTransport to url, negotiated at
// version (nothing is sent to attach it).
func httpCallClient(tb testing.TB, url, version string) *Client {
	tb.Helper()
	tr, err := NewHTTPTransport(HTTPOptions{URL: url, ProtocolVersion: version})
	if err != nil {
		tb.Fatal(err)
	}
	s := NewSession(tr, SessionOptions{})
	c := Attach(s, ClientOptions{Info: Implementation{Name: "mcpv", Version: "bench"}, Timeout: 60e9},
		State{Version: version, Modern: IsModern(version), InitializeResult: parsedInit(`{"capabilities":{"tools":{}}}`)})
	tb.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// BenchmarkHTTPCall is one tools/call at a time through Client.Call over
// the HTTP transport, in each era, answered as an SSE stream and as a JSON
// body.
func BenchmarkHTTPCall(b *testing.B) {
	params := json.RawMessage(`{"name":"greet","arguments":{"name":"x"}}`)
	for _, era := range []string{LatestVersion, ModernVersion} {
		for _, sse := range []bool{true, false} {
			answer := map[bool]string{true: "sse", false: "json"}[sse]
			b.Run(fmt.Sprintf("%s/%s", era, answer), func(b *testing.B) {
				c := httpCallClient(b, startRawHTTPServer(b, sse, greetResult), era)
				ctx := context.Background()
				b.ReportAllocs()
				cpu0, cpuOK := processCPU()
				for b.Loop() {
					res, err := c.Call(ctx, "tools/call", params)
					if err != nil {
						b.Fatal(err)
					}
					if string(res) != greetResult {
						b.Fatalf("result %s, want %s", res, greetResult)
					}
				}
				reportCPU(b, cpu0, cpuOK)
			})
		}
	}
}

// reportCPU reports the process's CPU time per operation since cpu0
// (client and server both, the server's share small): on a shared machine
// a steadier figure than the time per operation, which counts the waits
// for a core.
func reportCPU(b *testing.B, cpu0 time.Duration, ok bool) {
	if cpu1, ok1 := processCPU(); ok && ok1 && b.N > 0 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

// TestHTTPCallAllocatesLittle holds the bytes a call over HTTP allocates
// in the client: each request's answer stream is read through a buffer of
// 64 KiB, which a call of mcpv load would otherwise make anew (73 KB a
// call, and the collector's work for it, against about 8 KB).
func TestHTTPCallAllocatesLittle(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops a quarter of what goes back to a sync.Pool")
	}
	c := httpCallClient(t, startRawHTTPServer(t, true, greetResult), LatestVersion)
	params := json.RawMessage(`{"name":"greet","arguments":{"name":"x"}}`)
	call := func() {
		if res, err := c.Call(context.Background(), "tools/call", params); err != nil || string(res) != greetResult {
			t.Fatalf("call: %s, %v", res, err)
		}
	}
	call() // the connection dialled, the first buffers made
	const calls = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		call()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / calls; per > 32<<10 {
		t.Errorf("a call allocated %d bytes, want at most %d", per, 32<<10)
	}
}

// TestHTTPRequestGoroutinesEndWithTheTransport: the goroutines that ran
// requests' exchanges and wait for the next (goRequest) end when the
// transport closes, with none left behind, though their idle wait is an
// hour.
func TestHTTPRequestGoroutinesEndWithTheTransport(t *testing.T) {
	url := startRawHTTPServer(t, true, greetResult)
	tr, err := NewHTTPTransport(HTTPOptions{URL: url, ProtocolVersion: LatestVersion})
	if err != nil {
		t.Fatal(err)
	}
	tr.postIdle = time.Hour
	s := NewSession(tr, SessionOptions{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := s.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"greet"}`)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := requestGoroutines(); n == 0 || n > 8 {
		t.Errorf("%d goroutines wait for the next exchange after 8 calls at once, want 1 to 8", n)
	}
	s.Close(context.Background())
	// Their idle wait is an hour: within the minute's guard only the
	// transport's end ends them (a loaded machine may take a while).
	deadline := time.Now().Add(time.Minute)
	for requestGoroutines() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of the closed transport still wait for an exchange", requestGoroutines())
		}
		time.Sleep(time.Millisecond)
	}
}

// requestGoroutines counts the goroutines in goRequest's loop.
func requestGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Count(buf[:n], []byte("(*HTTPTransport).goRequest.func"))
		}
		buf = make([]byte, 2*len(buf))
	}
}

// TestHTTPRequestWrittenAsTheTransportCloses: requests written while the
// transport closes either run or are refused, and none starts a goroutine
// Close does not wait for (an exchange that began while Close waited for
// the others raced that wait, which the race detector caught); one
// written after Close is refused with an error, not taken and dropped.
func TestHTTPRequestWrittenAsTheTransportCloses(t *testing.T) {
	url := startRawHTTPServer(t, true, greetResult)
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet"}}`)
	for range 20 {
		tr, err := NewHTTPTransport(HTTPOptions{URL: url, ProtocolVersion: LatestVersion})
		if err != nil {
			t.Fatal(err)
		}
		tr.postIdle = time.Hour
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { tr.Write(context.Background(), call) })
		}
		tr.Close(context.Background())
		wg.Wait()
		if err := tr.Write(context.Background(), call); err == nil {
			t.Fatal("a request written after Close was taken")
		}
	}
	deadline := time.Now().Add(time.Minute)
	for requestGoroutines() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of closed transports still wait for an exchange", requestGoroutines())
		}
		time.Sleep(time.Millisecond)
	}
}
