package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

// partsTransport feeds the session one request and records what the
// session writes, in the parts it writes it.
type partsTransport struct {
	in      chan []byte
	written chan [][]byte
}

func (t *partsTransport) Read() ([]byte, error) {
	msg, ok := <-t.in
	if !ok {
		return nil, errors.New("closed")
	}
	return msg, nil
}

func (t *partsTransport) Write(_ context.Context, msg []byte) error {
	t.written <- [][]byte{msg}
	return nil
}

func (t *partsTransport) WriteParts(_ context.Context, parts [][]byte) error {
	t.written <- parts
	return nil
}

func (t *partsTransport) Close(context.Context) error { return nil }

// TestAnswerWrittenInParts: the answer to a peer's request reaches a
// PartsWriter with the handler's result as it was given, never copied,
// and the parts together are the message json.Marshal would write.
func TestAnswerWrittenInParts(t *testing.T) {
	result := json.RawMessage(`{"content":[{"type":"text","text":"big"}]}`)
	tr := &partsTransport{in: make(chan []byte, 1), written: make(chan [][]byte, 1)}
	s := NewSession(tr, SessionOptions{Handler: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		return result, nil
	}})
	defer func() { close(tr.in); s.Close(context.Background()) }()
	tr.in <- []byte(`{"jsonrpc":"2.0","id":"q1","method":"tools/call","params":{}}`)
	parts := <-tr.written
	if len(parts) != 3 || &parts[1][0] != &result[0] {
		t.Fatalf("parts %q: want the result itself as the middle one", parts)
	}
	want, _ := json.Marshal(wireResponse{JSONRPC: "2.0", ID: json.RawMessage(`"q1"`), Result: result})
	var got []byte
	for _, p := range parts {
		got = append(got, p...)
	}
	if string(got) != string(want) {
		t.Fatalf("joined %s, want %s", got, want)
	}
}
