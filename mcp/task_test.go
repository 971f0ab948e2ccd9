package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// serve answers the client's requests on m with answer(method, params),
// which returns a result or an error object (raw JSON). It stops when the
// test ends; requests it has seen are in the returned log.
func serve(t *testing.T, m *memTransport, answer func(method string, params json.RawMessage) (result, rpcErr string)) *requestLog {
	t.Helper()
	log := &requestLog{}
	go func() {
		for {
			var b []byte
			select {
			case b = <-m.out:
			case <-m.closed:
				return
			}
			var w wireMsg
			if json.Unmarshal(b, &w) != nil || w.ID == nil {
				continue // notifications
			}
			log.add(w.Method + " " + string(w.Params))
			res, rerr := answer(w.Method, w.Params)
			msg := `{"jsonrpc":"2.0","id":` + string(w.ID) + `,"result":` + res + `}`
			if rerr != "" {
				msg = `{"jsonrpc":"2.0","id":` + string(w.ID) + `,"error":` + rerr + `}`
			}
			select {
			case m.in <- []byte(msg):
			case <-m.closed:
				return
			}
		}
	}()
	return log
}

type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reqs = append(l.reqs, s)
}

func (l *requestLog) methods() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.reqs {
		out = append(out, strings.Fields(r)[0])
	}
	return out
}

const taskCaps = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}}}}`

func TestWaitTask(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		statuses   []string // what each tasks/get answers, in turn
		result     string   // tasks/result's answer ("" for an error)
		wantStatus string
		wantErr    string
		wantSeen   []string // statuses passed to onStatus
		wantCalls  []string
	}{
		{name: "completed", statuses: []string{"working", "completed"}, result: `{"content":[]}`, wantStatus: "completed",
			wantSeen: []string{"working", "working"}, wantCalls: []string{"tasks/get", "tasks/get", "tasks/result"}},
		{name: "input required", statuses: []string{"input_required", "completed"}, result: `{"content":[]}`, wantStatus: "completed",
			wantSeen: []string{"working"}, wantCalls: []string{"tasks/get", "tasks/result", "tasks/get"}},
		{name: "cancelled", statuses: []string{"cancelled"}, wantStatus: "cancelled", wantErr: "task t-1 cancelled: stopped",
			wantSeen: []string{"working"}, wantCalls: []string{"tasks/get"}},
		{name: "failed without result", statuses: []string{"failed"}, wantStatus: "failed", wantErr: "task t-1 failed: stopped",
			wantSeen: []string{"working"}, wantCalls: []string{"tasks/get", "tasks/result"}},
		{name: "failed with result", statuses: []string{"failed"}, result: `{"isError":true}`, wantStatus: "failed",
			wantSeen: []string{"working"}, wantCalls: []string{"tasks/get", "tasks/result"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, m := initialized(t, ClientOptions{}, taskCaps)
			var mu sync.Mutex
			n := 0
			log := serve(t, m, func(method string, _ json.RawMessage) (string, string) {
				mu.Lock()
				defer mu.Unlock()
				switch method {
				case "tasks/get":
					st := tt.statuses[min(n, len(tt.statuses)-1)]
					n++
					return fmt.Sprintf(`{"taskId":"t-1","status":%q,"statusMessage":"stopped","pollInterval":1}`, st), ""
				case "tasks/result":
					if tt.result == "" {
						return "", `{"code":-32603,"message":"no result"}`
					}
					return tt.result, ""
				}
				return "", `{"code":-32601,"message":"no"}`
			})
			var seen []string
			first := Task{TaskID: "t-1", Status: "working", PollInterval: new(float64)}
			res, final, err := c.WaitTask(t.Context(), first, func(t Task) { seen = append(seen, t.Status) })
			if tt.wantErr != "" {
				var ended *TaskEndedError
				if !errors.As(err, &ended) || err.Error() != tt.wantErr || ended.Failed() != (tt.wantStatus == "failed") {
					t.Errorf("err = %v, want a TaskEndedError %q", err, tt.wantErr)
				}
			} else if err != nil || string(res) != tt.result {
				t.Errorf("WaitTask = %s, %v; want %s", res, err, tt.result)
			}
			if final.Status != tt.wantStatus {
				t.Errorf("final status %q, want %q", final.Status, tt.wantStatus)
			}
			if d := cmp.Diff(tt.wantSeen, seen); d != "" {
				t.Errorf("statuses seen (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantCalls, log.methods()); d != "" {
				t.Errorf("requests (-want +got):\n%s", d)
			}
		})
	}
}

// The whole wait's timeout and the cancel's bound are on the bubble's
// clock: the cancel's answer, in the same process, comes within its 50 ms
// however busy the machine.
func TestWaitTaskTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	inBubble(t, func(t *testing.T) {
		c, m := initialized(t, ClientOptions{Timeout: 50 * time.Millisecond}, taskCaps)
		log := serve(t, m, func(method string, params json.RawMessage) (string, string) {
			if method == "tasks/cancel" {
				return `{"taskId":"t-1","status":"cancelled"}`, ""
			}
			return `{"taskId":"t-1","status":"working","pollInterval":10}`, ""
		})
		_, _, err := c.WaitTask(t.Context(), Task{TaskID: "t-1", Status: "working"}, nil)
		var te *TimeoutError
		if !errors.As(err, &te) || te.Method != "task t-1" {
			t.Fatalf("err = %v, want the whole wait's timeout", err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel() // the context that just ended: CancelTask still gets through
		if err := c.CancelTask(ctx, "t-1"); err != nil {
			t.Fatal(err)
		}
		if got := log.methods(); got[len(got)-1] != "tasks/cancel" {
			t.Errorf("requests %v, want tasks/cancel last", got)
		}
	})
}

func TestCancelTaskNeedsTheCapability(t *testing.T) {
	c, m := initialized(t, ClientOptions{}, `{"protocolVersion":"2025-11-25","capabilities":{"tasks":{}}}`)
	if err := c.CancelTask(t.Context(), "t-1"); !errors.Is(err, ErrNoTaskCancel) {
		t.Errorf("err = %v", err)
	}
	m.assertQuiet(t)
}

func TestCreatedTask(t *testing.T) {
	task, raw, err := CreatedTask(json.RawMessage(`{"task":{"taskId":"t-9","status":"working","ttl":500},"_meta":{}}`))
	if err != nil || task.TaskID != "t-9" || *task.TTL != 500 || string(raw) != `{"taskId":"t-9","status":"working","ttl":500}` {
		t.Errorf("CreatedTask = %+v, %s, %v", task, raw, err)
	}
	// The schema's integers are numbers with nothing after the point: a
	// server that writes them as floats (Python's json does for a float)
	// still gave a task.
	task, _, err = CreatedTask(json.RawMessage(`{"task":{"taskId":"t-8","status":"working","ttl":6e4,"pollInterval":1500.0}}`))
	if err != nil || *task.TTL != 60000 || task.Poll() != 1500*time.Millisecond {
		t.Errorf("a task whose numbers are written as floats: %+v, %v", task, err)
	}
	if _, _, err := CreatedTask(json.RawMessage(`{"content":[]}`)); !isTransportError(err) {
		t.Errorf("a result without a task: err = %v", err)
	}
}

func TestTaskPoll(t *testing.T) {
	ms := func(n float64) *float64 { return &n }
	for _, tt := range []struct {
		interval *float64
		want     time.Duration
	}{{nil, time.Second}, {ms(1), minPollInterval}, {ms(250), 250 * time.Millisecond}, {ms(250.9), 250 * time.Millisecond}, {ms(-5), minPollInterval},
		// Past what a Duration holds, a hostile interval is the longest
		// one (the whole wait is --timeout's), not wrapped round to 50 ms.
		{ms(9223372036855), math.MaxInt64}, {ms(1 << 62), math.MaxInt64}, {ms(9223372036854), 9223372036854 * time.Millisecond}} {
		if got := (Task{PollInterval: tt.interval}).Poll(); got != tt.want {
			t.Errorf("Poll with %v = %v, want %v", tt.interval, got, tt.want)
		}
	}
}

func TestTaskWanted(t *testing.T) {
	withTasks, _ := initialized(t, ClientOptions{}, taskCaps)
	without, _ := initialized(t, ClientOptions{}, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}`)
	listed := func(support string) Tool { return Tool{Name: "job", TaskSupport: support, Raw: json.RawMessage(`{}`)} }
	tests := []struct {
		name   string
		c      *Client
		tool   Tool
		asked  bool
		want   bool
		errHas string
	}{
		{"required, not asked", withTasks, listed("required"), false, true, ""},
		{"optional, asked", withTasks, listed("optional"), true, true, ""},
		{"optional, not asked", withTasks, listed("optional"), false, false, ""},
		{"forbidden, asked", withTasks, listed("forbidden"), true, false, `tool "job" does not support tasks`},
		{"unlisted, asked", withTasks, Tool{Name: "job"}, true, false, `lists no tool "job"`},
		{"no capability, asked", without, listed("optional"), true, false, `"tasks.requests.tools.call" capability`},
		{"no capability, required", without, listed("required"), false, false, ""},
	}
	for _, tt := range tests {
		got, err := tt.c.TaskWanted(tt.tool, tt.asked)
		if got != tt.want || (err == nil) != (tt.errHas == "") || (err != nil && !strings.Contains(err.Error(), tt.errHas)) {
			t.Errorf("%s: TaskWanted = %v, %v; want %v, %q", tt.name, got, err, tt.want, tt.errHas)
		}
	}
}

func TestToolCache(t *testing.T) {
	c, m := initialized(t, ClientOptions{}, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}`)
	log := serve(t, m, func(method string, params json.RawMessage) (string, string) {
		if strings.Contains(string(params), "p2") {
			return `{"tools":[{"name":"b","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`, ""
		}
		return `{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"p2"}`, ""
	})
	var tc ToolCache
	for _, name := range []string{"b", "a", "nope", "b"} {
		tool, err := tc.Find(t.Context(), c, name)
		var nl *ToolNotListedError
		if name == "nope" {
			if !errors.As(err, &nl) || nl.Name != "nope" || !slices.Equal(nl.Listed, []string{"a", "b"}) || tool.Name != name || tool.Raw != nil {
				t.Fatalf("Find(nope) = %+v, %v; want a ToolNotListedError listing a and b", tool, err)
			}
			continue
		}
		if err != nil || tool.Name != name || tool.Raw == nil {
			t.Fatalf("Find(%s) = %+v, %v", name, tool, err)
		}
		if name == "b" && tool.TaskSupport != "optional" {
			t.Errorf("b's task support = %q", tool.TaskSupport)
		}
	}
	if got := len(log.methods()); got != 2 {
		t.Errorf("%d tools/list requests for four finds, want one walk of two pages", got)
	}
	tc.Reset()
	if _, err := tc.Find(t.Context(), c, "a"); err != nil {
		t.Fatal(err)
	}
	if got := len(log.methods()); got != 4 {
		t.Errorf("%d tools/list requests, want a second walk after Reset", got)
	}
	found, err := c.FindTool(t.Context(), "a")
	if err != nil || found.Raw == nil || len(log.methods()) != 5 {
		t.Errorf("FindTool(a) = %+v, %v after %d requests; want it found on the first page", found, err, len(log.methods()))
	}
	found, err = c.FindTool(t.Context(), "c")
	var nl *ToolNotListedError
	if !errors.As(err, &nl) || !slices.Equal(nl.Listed, []string{"a", "b"}) || found.Raw != nil || len(log.methods()) != 7 {
		t.Errorf("FindTool(c) = %+v, %v after %d requests; want every page walked and a ToolNotListedError", found, err, len(log.methods()))
	}
}

// Lookup counts every copy of a name, read as the exact member "name"
// before the rest is decoded: a first copy that does not decode is
// counted, and one named "Name" is not the tool called "name".
func TestToolCacheCountsEveryCopy(t *testing.T) {
	for _, tt := range []struct {
		name, tools string
		want        int
		found       bool
	}{
		{"a first copy that does not decode", `[{"name":"add","execution":"x","inputSchema":{"type":"object"}},{"name":"add","inputSchema":{"type":"object"}}]`, 2, true},
		{"the only copy does not decode", `[{"name":"add","execution":"x"}]`, 1, false},
		{"one on each page", `[{"name":"add","inputSchema":{"type":"object"}}],"nextCursor":"p2"`, 2, true},
		{"Name is another member", `[{"name":"add","inputSchema":{"type":"object"}},{"Name":"add","inputSchema":{"type":"object"}}]`, 1, true},
		{"Name alone", `[{"Name":"add","inputSchema":{"type":"object"}}]`, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, m := initialized(t, ClientOptions{}, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}`)
			serve(t, m, func(method string, params json.RawMessage) (string, string) {
				if strings.Contains(string(params), "p2") {
					return `{"tools":[{"name":"add","inputSchema":{"type":"object"}}]}`, ""
				}
				return `{"tools":` + tt.tools + `}`, ""
			})
			var tc ToolCache
			tool, n, err := tc.Lookup(t.Context(), c, "add")
			var nl *ToolNotListedError
			if n != tt.want || (err == nil) != tt.found || (err != nil && !errors.As(err, &nl)) || tool.Name != "add" {
				t.Errorf("Lookup(add) = %+v, %d, %v; want %d copies, found %v", tool, n, err, tt.want, tt.found)
			}
			if tt.found && (tool.InputSchema == nil || rawjson.Member(tool.Raw, "execution") != nil) {
				t.Errorf("Lookup(add) = %s; want the first copy that decodes", tool.Raw)
			}
			if !tt.found && (tt.want > 0) != (tool.Raw != nil) {
				t.Errorf("Lookup(add) = %s; want the copy listed, which does not decode, and no other", tool.Raw)
			}
		})
	}
}

// A task's id, status and message are the server's: an ended task's error
// shows them escaped, as every server string on a terminal.
func TestTaskEndedErrorEscapes(t *testing.T) {
	err := &TaskEndedError{Task: Task{TaskID: "t\x1b]0;x\x07", Status: "failed\x1b[2J", StatusMessage: "disk\nfull \x1b]52;c;aGk=\x07"}}
	if got, want := err.Error(), `task t\x1b]0;x\x07 failed\x1b[2J: disk full \x1b]52;c;aGk=\x07`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
