package mock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/trace"
)

// traceFile writes a trace of one session's messages, in order: "> "
// before a message the client sent, "< " before one it received.
func traceFile(t *testing.T, msgs ...string) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w, err := trace.Create(path, time.Now(), nil, trace.Header{Mcpv: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	s := w.Session()
	for _, m := range msgs {
		s.Message(strings.HasPrefix(m, "> "), []byte(m[2:]))
	}
	w.End(0, "")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A trace becomes the server it shows: who it is, its tools, and each
// answer to its request in turn (the last for good), with the progress,
// logs, notifications and questions that came while it was open; an
// error answered as an error; a request left unanswered waits, then
// fails; a tool called but never listed is offered.
func TestFromTrace(t *testing.T) {
	data := traceFile(t,
		`> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"real","version":"2"},"instructions":"Be kind.","capabilities":{"tools":{},"logging":{}}}}`,
		`> {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"add","inputSchema":{"type":"object"}}]}}`,
		`> {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1},"_meta":{"progressToken":"p1"}}}`,
		`< {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1,"total":2}}`,
		`< {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"half"}}`,
		`< {"jsonrpc":"2.0","id":"q","method":"elicitation/create","params":{"message":"sure?","requestedSchema":{"type":"object","properties":{}}}}`,
		`> {"jsonrpc":"2.0","id":"q","result":{"action":"accept","content":{}}}`,
		`< {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		`< {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"first"}]}}`,
		`> {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}`,
		`< {"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"busy now"}}`,
		`> {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hidden","arguments":{}}}`,
		`< {"jsonrpc":"2.0","id":5,"result":{"content":[]}}`,
		`> {"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"file:///x"}}`,
	)
	snap, r, notes, err := FromTrace(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Errorf("notes %q", notes)
	}
	if r.Server == nil || string(r.Server.ServerInfo) != `{"name":"real","version":"2"}` || *r.Server.Instructions != "Be kind." {
		t.Errorf("server %+v", r.Server)
	}
	if len(snap.Tools) != 2 || !strings.Contains(string(snap.Tools[1]), `"hidden"`) {
		t.Errorf("tools %s", snap.Tools)
	}
	if len(r.Tools) != 3 {
		t.Fatalf("tool entries %+v", r.Tools)
	}
	first, second := r.Tools[0], r.Tools[1]
	if first.Times != 1 || string(first.Result) != `{"content":[{"type":"text","text":"first"}]}` || len(first.Steps) != 4 ||
		first.Steps[0].Progress == nil || strings.Contains(string(first.Steps[0].Progress), "p1") ||
		first.Steps[1].Log == nil || first.Steps[2].Ask == nil || first.Steps[3].Notify == nil {
		t.Errorf("first answer %+v", first)
	}
	if second.Times != 0 || second.Error == nil || *second.Error.Code != -32000 || second.Error.Message != "busy now" {
		t.Errorf("second answer %+v", second)
	}
	if len(r.Resources) != 1 || r.Resources[0].Error == nil || len(r.Resources[0].Steps) != 1 || r.Resources[0].Steps[0].Wait == nil {
		t.Errorf("the unanswered read %+v", r.Resources)
	}
}

// An answer the trace cut is said so, not replayed; a file that is not a
// trace is refused.
func TestFromTraceCutAndRefused(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", trace.MaxMessage) + `"}]}}`
	data := traceFile(t,
		`> {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`,
		"< "+big,
	)
	_, r, notes, err := FromTrace(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tools) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "cut") {
		t.Errorf("entries %+v, notes %q", r.Tools, notes)
	}
	if _, _, _, err := FromTrace([]byte(`{"mcpvSnapshot":1}`)); err == nil {
		t.Error("a snapshot read as a trace")
	}
}

// A modern server is who its server/discover result says: serverInfo
// from _meta, instructions at the top.
func TestFromTraceModernServer(t *testing.T) {
	data := traceFile(t,
		`> {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`,
		`< {"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"instructions":"Be brief.","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern","version":"3"}}}}`,
	)
	_, r, _, err := FromTrace(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Server == nil || string(r.Server.ServerInfo) != `{"name":"modern","version":"3"}` || r.Server.Instructions == nil || *r.Server.Instructions != "Be brief." || string(r.Server.Capabilities) != `{"tools":{}}` {
		t.Errorf("server %+v", r.Server)
	}
}

// A list page in the trace whose items do not decode fails the mock,
// naming the method: a server without them would be a wrong one.
func TestFromTraceMalformedList(t *testing.T) {
	for _, page := range []string{`{"tools":"add"}`, `{"tools":["add"]}`, `[1]`} {
		data := traceFile(t,
			`> {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			`< {"jsonrpc":"2.0","id":2,"result":`+page+`}`,
		)
		_, _, _, err := FromTrace(data)
		if err == nil || !strings.Contains(err.Error(), "tools/list: malformed result") {
			t.Errorf("%s: err %v", page, err)
		}
	}
}
