package serve

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serve/servetest"
)

// hangServer is a Server started in front of a hang.
func hangServer(t *testing.T) (*servetest.Hang, *Server) {
	t.Helper()
	up := &servetest.Hang{End: make(chan struct{}), Called: make(chan struct{}, 1)}
	srv := &Server{Open: func(context.Context, Relay) (Upstream, error) { return up, nil }}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return up, srv
}

// TestStdinEndThenSignal: a client whose input ended while a call still
// runs upstream does not keep serve from ending when its context does.
func TestStdinEndThenSignal(t *testing.T) {
	up, srv := hangServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go io.Copy(io.Discard, outR)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.ServeStream(ctx, inR, outW, inR.Close) }()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}`+"\n")
	<-up.Called
	inW.Close()                        // the client's input ends while its call hangs upstream
	time.Sleep(100 * time.Millisecond) // let the reader see the end of the input
	cancel()                           // SIGTERM
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStream did not return 5s after its context ended")
	}
}

// Two requests in flight under one id (a client's mistake) are two
// answers to wait for: the end of input waits for both.
func TestDrainCountsARepeatedID(t *testing.T) {
	d := newDrain()
	d.add([]byte(`1`))
	d.add([]byte(`1`))
	d.settle([]byte(`1`))
	waited := make(chan struct{})
	go func() { d.owed.wait(-1, d.stop); close(waited) }()
	select {
	case <-waited:
		t.Fatal("the wait ended with one of two answers still due")
	case <-time.After(50 * time.Millisecond):
	}
	d.settle([]byte(`1`))
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not end once both were answered")
	}
}

// TestMalformedLinesDoNotEndServe: a client's lines that are no JSON
// (cut short, a member without its comma, broken params) get parse errors
// or nothing; serve lives on and answers what comes next.
func TestMalformedLinesDoNotEndServe(t *testing.T) {
	t.Parallel()
	_, srv := hangServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStream(context.Background(), inR, outW, inR.Close); outW.Close() }()
	lines := bufio.NewScanner(outR)
	for _, junk := range []string{`{"a"`, `{"id":1 "method":"x"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"a":1}"b":2}}`, `{"id":`} {
		io.WriteString(inW, junk+"\n")
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","id":9,"method":"ping"}`+"\n")
	for lines.Scan() {
		if strings.Contains(lines.Text(), `"id":9`) {
			break
		}
	}
	if !strings.Contains(lines.Text(), `"id":9,"result":{}`) {
		t.Fatalf("after the junk: %s, %v", lines.Text(), lines.Err())
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("serve ended with %v", err)
	}
}

// TestInvalidRequestAnsweredOverStdio: a client's line that is no JSON
// is answered a parse error; one that is JSON but no JSON-RPC message is
// answered Invalid Request, as over HTTP, under its id where that is one
// (its client would otherwise wait on it), and never reaches the server; an answer of the client's is answered
// nothing, and a request after them is served.
func TestInvalidRequestAnsweredOverStdio(t *testing.T) {
	t.Parallel()
	_, srv := hangServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- srv.ServeStream(context.Background(), inR, outW, inR.Close); outW.Close() }()
	go func() { // the answers come while the lines are written
		for _, line := range []string{`garbage`, `{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":"s","method":7}`,
			`{"jsonrpc":"2.0","id":5,"result":{}}`, `{"jsonrpc":"2.0","id":9,"method":"ping"}`} {
			io.WriteString(inW, line+"\n")
		}
	}()
	var got []string
	for lines := bufio.NewScanner(outR); lines.Scan() && !strings.Contains(lines.Text(), `"id":9`); {
		got = append(got, lines.Text())
	}
	want := []string{
		`{"error":{"code":-32700,"message":"a line of input is not JSON"},"id":null,"jsonrpc":"2.0"}`,
		`{"error":{"code":-32600,"message":"not one JSON-RPC message: neither a request, a notification nor a response"},"id":1,"jsonrpc":"2.0"}`,
		`{"error":{"code":-32600,"message":"not one JSON-RPC message: its id is neither a string nor a number"},"id":null,"jsonrpc":"2.0"}`,
		`{"error":{"code":-32600,"message":"not one JSON-RPC message: method is not a string"},"id":"s","jsonrpc":"2.0"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("before the ping's answer:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("serve ended with %v", err)
	}
}
