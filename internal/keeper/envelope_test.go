package keeper

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// A command's envelope is read into the parts of its message without a
// copy of them: params is the line's own bytes. What is not an envelope
// of a message is passed over.
func TestDecodeEnvelope(t *testing.T) {
	line := []byte(`{"msg":{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a":"\u00e9"}}},"headers":[{"path":["name"],"name":"Mcp-Name"}]}`)
	m, headers, ok := decodeEnvelope(line)
	if !ok || string(m.ID) != "7" || m.Method != "tools/call" || string(m.Params) != `{"name":"x","arguments":{"a":"\u00e9"}}` {
		t.Fatalf("decoded %v: id %s, method %q, params %s", ok, m.ID, m.Method, m.Params)
	}
	if at := bytes.Index(line, m.Params); &line[at] != &m.Params[0] {
		t.Error("params is a copy of the line's bytes")
	}
	if b, _ := json.Marshal(headers); string(b) != `[{"path":["name"],"name":"Mcp-Name"}]` {
		t.Errorf("headers %s", b)
	}
	m, _, ok = decodeEnvelope([]byte(`{"seek":"t\u00e9","msg":{"jsonrpc":"2.0","id":8,"method":"tools/list"}}`))
	if !ok || m.Method != "tools/list" || m.seek != "té" {
		t.Errorf("a request seeking a tool: %v, method %q, seek %q", ok, m.Method, m.seek)
	}
	m, _, ok = decodeEnvelope([]byte(`{"msg":{"id":"a","result":{"x":1},"error":null}}`))
	if !ok || string(m.ID) != `"a"` || string(m.Result) != `{"x":1}` || string(m.Error) != "null" || m.Method != "" {
		t.Errorf("an answer: %v %+v", ok, m)
	}
	for _, bad := range []string{
		``, `[]`, `{"msg":{"id":1,"method":"x"}`, `{"headers":[]}`, `{"msg":[1]}`, `{"msg":"x"}`,
		`{"msg":{"id":1,"method":5}}`, `{"msg":{"id":1},"headers":"x"}`, `{"msg":{"id":1}} x`, `{"msg":{"id":1},"seek":5}`,
	} {
		if _, _, ok := decodeEnvelope([]byte(bad)); ok {
			t.Errorf("%s: taken", bad)
		}
	}
}

// A request's progress token is replaced in one copy of params, with
// nothing else changed; a token that is not found within params is
// replaced all the same.
func TestWithToken(t *testing.T) {
	params := json.RawMessage(`{"name":"x","_meta":{"progressToken":"mine","other":[1]},"arguments":{"progressToken":"no"}}`)
	want := `{"name":"x","_meta":{"progressToken":"k1","other":[1]},"arguments":{"progressToken":"no"}}`
	tok := mcp.ProgressToken(params)
	got, err := withToken(params, tok, json.RawMessage(`"k1"`))
	if err != nil || string(got) != want {
		t.Errorf("withToken: %s, %v", got, err)
	}
	if string(params) != `{"name":"x","_meta":{"progressToken":"mine","other":[1]},"arguments":{"progressToken":"no"}}` {
		t.Errorf("params changed: %s", params)
	}
	got, err = withToken(params, bytes.Clone(tok), json.RawMessage(`"k1"`))
	var a, b any
	if err != nil || json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("withToken, a token not within params: %s, %v", got, err)
	}
}

// A line longer than the reader's buffer comes back whole, and the next
// one after it; a line past the limit is refused.
func TestReadLongLine(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	r := bufio.NewReaderSize(strings.NewReader(long+"\nshort\n"), 16)
	if line, err := readLine(r); err != nil || string(line) != long {
		t.Fatalf("the long line: %d bytes, %v", len(line), err)
	}
	if line, err := readLine(r); err != nil || string(line) != "short" {
		t.Fatalf("the next line: %q, %v", line, err)
	}
	if _, err := readLine(r); err == nil {
		t.Error("no error at the end")
	}
}

// TestFirstLines: the lines a command sends first are the controls the
// keeper reads.
func TestFirstLines(t *testing.T) {
	for _, tc := range []struct {
		line []byte
		want control
	}{
		{attachLine, control{Attach: &struct{}{}}},
		{statusLine, control{Status: &struct{}{}}},
		{stopLine, control{Stop: &struct{}{}}},
	} {
		want, err := json.Marshal(tc.want)
		if err != nil {
			t.Fatal(err)
		}
		if string(tc.line) != string(want)+"\n" {
			t.Errorf("%q: the control encodes as %s", tc.line, want)
		}
	}
}

// initOf is raw, an initialize result the test writes well formed, parsed.
func initOf(raw string) mcp.InitializeResult {
	r, err := mcp.ParseInitializeResult(json.RawMessage(raw))
	if err != nil {
		panic(err)
	}
	return r
}

// A hello as the keeper writes it is read without encoding/json, to what
// encoding/json reads of it; any other first line is left to it.
func TestParseHello(t *testing.T) {
	for _, h := range []hello{
		{State: mcp.State{Version: "2025-11-25", InitializeResult: initOf(`{"capabilities":{"tools":{}},"serverInfo":{"name":"x","version":"1"}}`)}},
		{State: mcp.State{Version: "2026-07-28", Modern: true, InitializeResult: initOf(`{}`)},
			Secrets: []string{"tok\"en", "é\u2028\\", ""}, Answers: json.RawMessage(`{"roots":["/tmp"]}`)},
	} {
		line, err := json.Marshal(control{Hello: &h})
		if err != nil {
			t.Fatal(err)
		}
		var want control
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatal(err)
		}
		got, ok := parseHello(line)
		if !ok || !reflect.DeepEqual(got, want.Hello) {
			t.Errorf("%s: read %v %+v, want %+v", line, ok, got, want.Hello)
		}
		ctl, err := readControl(bufio.NewReader(bytes.NewReader(append(line, '\n'))))
		if err != nil || !reflect.DeepEqual(ctl.Hello, want.Hello) {
			t.Errorf("readControl: %+v, %v", ctl.Hello, err)
		}
	}
	closed := "the server exited"
	for _, line := range []string{
		`{"closed":"the server exited"}`,
		`{"hello":{"state":{"protocolVersion":"x","initializeResult":{}},"later":1}}`,
		`{"hello":{"state":{"protocolVersion":"x","modern":"yes","initializeResult":{}}}}`,
		`{"hello":{"secrets":"x","state":{"initializeResult":{}}}}`,
		`{"hello":{}}`,
	} {
		if _, ok := parseHello([]byte(line)); ok {
			t.Errorf("%s: read as a hello", line)
		}
	}
	ctl, err := readControl(bufio.NewReader(strings.NewReader(`{"closed":"the server exited"}` + "\n")))
	if err != nil || ctl.Closed == nil || *ctl.Closed != closed {
		t.Errorf("a closed session: %+v, %v", ctl, err)
	}
}

// A message's envelope is one line, its end included, that reads back as
// the message, its headers and the tool it seeks, as json.Marshal's did:
// a message on one line as it is (where json.Marshal escaped <, > and &,
// the same JSON), one over several lines compacted onto one, a sought name
// with what JSON escapes escaped.
func TestEnvelopeLine(t *testing.T) {
	var headers []mcp.ParamHeader
	if err := json.Unmarshal([]byte(`[{"path":["name"],"name":"Mcp-Name"}]`), &headers); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		msg     string
		headers []mcp.ParamHeader
		seek    string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a<b>&\u2028","arguments":{}}}`, nil, ""},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`, headers, ""},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, nil, "t\"é<\n"},
		{"{\"jsonrpc\":\"2.0\",\r\n \"id\":4,\n\"method\":\"ping\"}", nil, ""},
	} {
		b, err := envelopeLine([]byte(c.msg), c.headers, c.seek)
		if err != nil {
			t.Fatalf("%s: %v", c.msg, err)
		}
		if i := bytes.IndexByte(b, '\n'); i != len(b)-1 {
			t.Errorf("%q: not one line ended by its newline", b)
		}
		want, _ := json.Marshal(envelope{Msg: json.RawMessage(c.msg), Headers: c.headers, Seek: c.seek})
		gm, gh, gok := decodeEnvelope(b[:len(b)-1])
		wm, wh, wok := decodeEnvelope(want)
		if !gok || !wok {
			t.Fatalf("%q (%v) or %q (%v) is not read back", b, gok, want, wok)
		}
		if string(gm.ID) != string(wm.ID) || gm.Method != wm.Method || gm.seek != wm.seek || !sameJSON(gm.Params, wm.Params) {
			t.Errorf("%q reads back as %+v, json.Marshal's %q as %+v", b, gm, want, wm)
		}
		if gb, _ := json.Marshal(gh); !bytes.Equal(gb, must(json.Marshal(wh))) {
			t.Errorf("%q: headers %s, want %s", b, gb, must(json.Marshal(wh)))
		}
	}
}

// sameJSON reports whether a and b are the same JSON value, however each
// is written (escapes, spaces).
func sameJSON(a, b []byte) bool {
	var x, y any
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
