package mcp

import (
	"context"
	"encoding/json"
	"testing"
)

// TestResultMembers: members a handler adds go at the front of its result,
// in a part of their own: the result itself, however large, is not
// copied, and the parts together are valid JSON with the members first.
func TestResultMembers(t *testing.T) {
	for _, tc := range []struct {
		result, want string
		inPlace      bool // the result's own bytes follow the members
	}{
		{`{"content":[]}`, `{"jsonrpc":"2.0","id":"q1","result":{"resultType":"complete","content":[]}}`, true},
		{`{}`, `{"jsonrpc":"2.0","id":"q1","result":{"resultType":"complete"}}`, false},
		// json.Marshal rewrites these (spaces, "<"): the answer is one
		// part, marshalled with the members in.
		{` { } `, `{"jsonrpc":"2.0","id":"q1","result":{"resultType":"complete"}}`, false},
		{`{ "a" : 1 }`, `{"jsonrpc":"2.0","id":"q1","result":{"resultType":"complete","a":1}}`, false},
		{`{"text":"<b>"}`, `{"jsonrpc":"2.0","id":"q1","result":{"resultType":"complete","text":"\u003cb\u003e"}}`, false},
	} {
		result := json.RawMessage(tc.result)
		tr := &partsTransport{in: make(chan []byte, 1), written: make(chan [][]byte, 1)}
		s := NewSession(tr, SessionOptions{Handler: func(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
			AddResultMembers(ctx, []byte(`"resultType":"complete"`))
			return result, nil
		}})
		tr.in <- []byte(`{"jsonrpc":"2.0","id":"q1","method":"tools/call","params":{}}`)
		parts := <-tr.written
		close(tr.in)
		s.Close(context.Background())
		var got []byte
		for _, p := range parts {
			got = append(got, p...)
		}
		if string(got) != tc.want || !json.Valid(got) {
			t.Errorf("%s: %s, want %s", tc.result, got, tc.want)
		}
		if tc.inPlace && (len(parts) != 4 || &parts[2][0] != &result[1]) {
			t.Errorf("%s: parts %q, want the result's own bytes after the members", tc.result, parts)
		}
	}
}

// TestResultMembersOnlyForResults: an error answer, or a handler outside
// a session, takes no members.
func TestResultMembersOnlyForResults(t *testing.T) {
	AddResultMembers(context.Background(), []byte(`"x":1`)) // no session: nothing happens
	tr := &partsTransport{in: make(chan []byte, 1), written: make(chan [][]byte, 1)}
	s := NewSession(tr, SessionOptions{Handler: func(ctx context.Context, _ string, _ json.RawMessage) (json.RawMessage, error) {
		AddResultMembers(ctx, []byte(`"resultType":"complete"`))
		return nil, &RPCError{Code: CodeInvalidParams, Message: "no"}
	}})
	defer func() { close(tr.in); s.Close(context.Background()) }()
	tr.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`)
	parts := <-tr.written
	if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`; len(parts) != 1 || string(parts[0]) != want {
		t.Errorf("%q, want %s", parts, want)
	}
}

// TestWithSentID: a request sent with WithSentID's context tells the id
// it goes under, before the server can answer it.
func TestWithSentID(t *testing.T) {
	s, m := newTestSession(t, SessionOptions{})
	ids := make(chan json.RawMessage, 1)
	ctx := WithSentID(context.Background(), func(id json.RawMessage) { ids <- id })
	done := goCall(ctx, s.Call, "tools/list", nil)
	sent := m.nextMsg(t)
	told := waitFor(t, ids)
	if string(told) != string(sent.ID) {
		t.Fatalf("told id %s, the request went as %s", told, sent.ID)
	}
	m.send(t, `{"jsonrpc":"2.0","id":`+string(sent.ID)+`,"result":{}}`)
	waitFor(t, done)
}
