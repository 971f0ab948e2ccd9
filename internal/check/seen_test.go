package check

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
)

// A flood of answers to ids no request had is said once, with how many
// more came, and the run ends.
func TestAnswerFloodSaidOnce(t *testing.T) {
	testkit.SkipLong(t, "a flood of 100,000 answers")
	t.Parallel()
	r := runHostile(t, fake{transport: "stdio", change: faults("answer-flood")}, Options{Only: []string{responseID}, CheckTimeout: patient(10 * time.Second)})
	for _, res := range r.Results {
		if res.ID != responseID {
			continue
		}
		if res.Status != Failed || !regexp.MustCompile(`a response under id "mcpv-flood-\d+", which no request had`).MatchString(res.Message) || !strings.Contains(res.Message, " more)") {
			t.Errorf("%s", describeResult(res))
		}
		return
	}
	t.Errorf("%s: no result", responseID)
}

// A session id given to two sessions is said with control characters
// escaped and clipped, however long and whatever it holds.
func TestSharedSessionIDSaidSafely(t *testing.T) {
	sid := "\x1b]0;pwned\x07\r\n" + strings.Repeat("x", 10<<10)
	r := &runner{}
	a, b := &conn{r: r, http: &httpSide{session: sid}}, &conn{r: r, http: &httpSide{session: sid}}
	r.conns = []*conn{a, b}
	r.sessionGiven(a, "another", &exchange{status: 200})
	if r.sharedSession.Load() != nil {
		t.Fatalf("a session id no other holds said shared: %s", *r.sharedSession.Load())
	}
	r.sessionGiven(b, sid, &exchange{status: 200})
	said := r.sharedSession.Load()
	if said == nil {
		t.Fatal("a session id two hold not said")
	}
	if len(*said) > 400 || strings.ContainsFunc(*said, unicode.IsControl) || !strings.Contains(*said, `\x1b]0;pwned\a\r\n`) {
		t.Errorf("said %d bytes: %q", len(*said), *said)
	}
}

// A code 2026-07-28 retired is named inside an event stream and inside
// a JSON array as anywhere.
func TestRetiredCodeInStreamAndArray(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]fake{
		"an event stream": {transport: "http", era: "modern", sse: true, change: faults("old-not-found-code")},
		"a JSON array":    {transport: "http", era: "modern", change: faults("old-not-found-code", "json-array-answer")},
	} {
		if r := runChecks(t, f, "modern.error-codes")["modern.error-codes"]; r.Status != Failed || !strings.Contains(r.Message, "error -32002, which 2026-07-28 retired") {
			t.Errorf("%s: %s", name, describeResult(r))
		}
	}
}

// What a response under an id no request waits for is: a late answer to
// a request given up (a slow server) and the same answer again are no
// answer under another's id; another answer under an id answered, or an
// id never sent, is, with the requests waiting named.
func TestUnpending(t *testing.T) {
	var sent, answered idSet
	first := mcp.Message{ID: json.RawMessage(`1`), Result: json.RawMessage(`{"a":1}`)}
	answered.put(idKey(first.ID), answerDigest(first))
	sent.add(idKey(json.RawMessage(`2`)))
	waits := []string{"tools/call (id 3)"}
	for _, tc := range []struct {
		id, result, want string
	}{
		{`2`, `{}`, ""},        // sent, given up, answered late
		{`1`, `{"a":1}`, ""},   // the same answer again: jsonrpc.one-response's
		{`1`, ` {"a":1} `, ""}, // spaced otherwise, the same
		{`1`, `{"b":2}`, "which answered another request before; it may be the answer to tools/call (id 3)"},
		{`"x"`, `{}`, "which no request had; it may be the answer to tools/call (id 3)"},
	} {
		m := mcp.Message{ID: json.RawMessage(tc.id), Result: json.RawMessage(tc.result)}
		if got := unpending(&sent, &answered, idKey(m.ID), m, waits); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.id, tc.result, got, tc.want)
		}
	}
	if got := unpending(&sent, &answered, idKey(json.RawMessage(`9`)), mcp.Message{ID: json.RawMessage(`9`)}, nil); got != "which no request had" {
		t.Errorf("none waiting: %q", got)
	}
}

// A request the check breaks on purpose (its method no string) is still
// one it sent: the error answered under its id, as JSON-RPC 2.0 lets a
// server that could read the id answer, is no response under an id no
// request had (kit P's stdio controls, failed jsonrpc.response-id for it).
func TestBrokenRequestsIDSent(t *testing.T) {
	c := &conn{}
	c.noteSent([]byte(`{"jsonrpc":"2.0","id":"mcpv-check-invalid","method":42}`))
	c.noteSent([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`))
	for _, id := range []string{`"mcpv-check-invalid"`, `7`} {
		if !c.sent.has(idKey(json.RawMessage(id))) {
			t.Errorf("%s: not noted as sent", id)
		}
	}
	c.noteSent([]byte(`not JSON`))
	if len(c.sent.ids) != 2 {
		t.Errorf("%d ids noted, want 2", len(c.sent.ids))
	}
}

// A probe of headers of its own (a foreign Origin, a rebound Host) goes
// on a connection of its own: a server that refuses it before reading its
// body (kit P's Python controls answer 403 and keep the connection) would
// read that body as the next request's beginning, and answer it 501. The
// check's other requests keep their connection.
func TestProbesAloneOnTheirConnection(t *testing.T) {
	t.Parallel()
	tg, srv := fake{transport: "http"}.targetServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), patient(time.Minute))
	defer cancel()
	if _, err := Run(ctx, tg, Options{Only: []string{"http.origin", "http.dns-rebinding"}}); err != nil {
		t.Fatal(err)
	}
	probes, others := 0, 0
	for _, r := range srv.Requests() {
		probe := r.Header.Get("Origin") != ""
		closes := r.Header.Get("Connection") == "close"
		switch {
		case probe && !closes:
			t.Errorf("a probe kept its connection: %s", r)
		case !probe && closes:
			t.Errorf("a request of the check's own closed its connection: %s", r)
		}
		if probe {
			probes++
		} else {
			others++
		}
	}
	if probes < 4 || others == 0 {
		t.Errorf("%d probes, %d other requests", probes, others)
	}
}

// A JSON log line on stdout is said to be JSON however long it is: it is
// read whole, before the clip that keeps 4 KiB of it for the report.
func TestLongJSONLogLineSaidJSON(t *testing.T) {
	for _, n := range []int{10, maxKept} {
		line := `{"level":50,"msg":"` + strings.Repeat("x", n) + `"}`
		ss := unitsOf([]byte(line), "stdout", "", false, true)
		if len(ss) != 1 || ss[0].bad != junkLine || !ss[0].jsonLog {
			t.Errorf("%d bytes: %+v", len(line), ss)
		}
	}
	if ss := unitsOf([]byte(`{"level":50,`), "stdout", "", false, true); len(ss) != 1 || ss[0].jsonLog {
		t.Errorf("no JSON read as a JSON log line: %+v", ss)
	}
}

// A progress notification is late when its token's request had completed
// before it on the same stream: over stdio, stdout, whose order is the
// server's; over HTTP, the request's own event stream alone, where one
// on another stream (a GET stream, another request's) may have crossed
// the response. A task's creation and an input_required result complete
// nothing, and a token given again is its new request's.
func TestProgressAfterItsResponse(t *testing.T) {
	msg := func(s string) mcp.Message {
		ms, err := mcp.DecodeMessages([]byte(s))
		if err != nil || len(ms) != 1 {
			t.Fatalf("%s: %v", s, err)
		}
		return ms[0]
	}
	call := func(id string) mcp.Message {
		return msg(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"tok"}}}`)
	}
	progress := msg(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1}}`)
	other := msg(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"other","progress":1}}`)
	done := msg(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	for _, tc := range []struct {
		name   string
		steps  []mcp.Message
		stream []string // where each step came ("" for a request sent)
		late   string   // what the last step, a progress notification, is said to be
	}{
		{"before the response, over stdio", []mcp.Message{call("1"), progress}, []string{"", "stdout"}, ""},
		{"after the response, over stdio", []mcp.Message{call("1"), progress, done, progress}, []string{"", "stdout", "stdout", "stdout"}, "tools/call (id 1)"},
		{"after an error", []mcp.Message{call("1"), msg(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}`), progress}, []string{"", "stdout", "stdout"}, "tools/call (id 1)"},
		{"another token after the response", []mcp.Message{call("1"), done, other}, []string{"", "stdout", "stdout"}, ""},
		{"after the response on the request's stream", []mcp.Message{call("1"), done, progress}, []string{"", "n:1", "n:1"}, "tools/call (id 1)"},
		{"after the response on a GET stream", []mcp.Message{call("1"), done, progress}, []string{"", "n:1", ""}, ""},
		{"after the response on another request's stream", []mcp.Message{call("1"), done, progress}, []string{"", "n:1", "n:2"}, ""},
		{"after a task's creation", []mcp.Message{call("1"), msg(`{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t","status":"working"}}}`), progress}, []string{"", "stdout", "stdout"}, ""},
		{"after an input_required result", []mcp.Message{call("1"), msg(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}`), progress}, []string{"", "stdout", "stdout"}, ""},
		{"after the response, its token given again", []mcp.Message{call("1"), done, call("2"), progress}, []string{"", "stdout", "", "stdout"}, ""},
		{"after the response to the token's new request", []mcp.Message{call("1"), call("2"), msg(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`), progress}, []string{"", "", "stdout", "stdout"}, "tools/call (id 2)"},
		{"after the response to its old request", []mcp.Message{call("1"), call("2"), done, progress}, []string{"", "", "stdout", "stdout"}, ""},
	} {
		var g given
		late := ""
		for i, m := range tc.steps {
			switch {
			case m.IsRequest():
				g.sent(m)
			default:
				g.answered(m, tc.stream[i])
				late = g.late(m, tc.stream[i])
			}
		}
		if late != tc.late {
			t.Errorf("%s: late %q, want %q", tc.name, late, tc.late)
		}
	}
}
