package mock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/mcp"
)

func logLines(t *testing.T, b []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestLogLines(t *testing.T) {
	var b bytes.Buffer
	secrets := redact.NewScrubber(nil)
	secrets.Add("hunter2-secret-value")
	l := NewRequestLog(&b, secrets, nil)
	at := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	l.Observe(serve.Exchange{Client: 1, ID: json.RawMessage(`7`), Method: "tools/call",
		Params: json.RawMessage(`{"name": "add",
 "arguments": {"a": "hunter2-secret-value", "token": "abc"}}`),
		Result: json.RawMessage(`{"content":[]}`), Time: at, Took: 1500 * time.Microsecond})
	l.Observe(serve.Exchange{Client: 2, Method: "notifications/initialized", Time: at})
	l.Observe(serve.Exchange{Client: 1, ID: json.RawMessage(`"x"`), Method: "tools/call", Time: at,
		Err: &mcp.RPCError{Code: -32000, Message: "busy", Data: json.RawMessage(`{"n":1}`)}})
	l.Observe(serve.Exchange{Client: 1, ID: json.RawMessage(`8`), Method: "ping", Time: at, Cancelled: true})
	l.Observe(serve.Exchange{Client: 3, Method: "roots/list", Asked: true, Params: json.RawMessage(`{}`), Time: at,
		Result: json.RawMessage(`{"roots":[]}`)})
	l.Observe(serve.Exchange{Client: 1, ID: json.RawMessage(`9`), Method: "tools/call", Time: at,
		Params: json.RawMessage(`{"big":"` + strings.Repeat("x", MaxLogValue) + `"}`)})
	if strings.Contains(b.String(), "hunter2-secret-value") || strings.Contains(b.String(), `"abc"`) {
		t.Fatalf("a secret is in the log:\n%s", b.String())
	}
	got := logLines(t, b.Bytes())
	if len(got) != 6 {
		t.Fatalf("%d lines, want 6:\n%s", len(got), b.String())
	}
	if got[0]["method"] != "tools/call" || got[0]["id"] != 7.0 || got[0]["client"] != 1.0 || got[0]["ms"] != 1.5 ||
		got[0]["time"] != "2026-01-02T15:04:05Z" || got[0]["result"] == nil {
		t.Errorf("request line: %v", got[0])
	}
	if _, ok := got[1]["id"]; ok || got[1]["method"] != "notifications/initialized" || got[1]["result"] != nil {
		t.Errorf("notification line: %v", got[1])
	}
	if e, _ := got[2]["error"].(map[string]any); e["code"] != -32000.0 || e["message"] != "busy" || got[2]["id"] != "x" {
		t.Errorf("error line: %v", got[2])
	}
	if got[3]["cancelled"] != true {
		t.Errorf("cancelled line: %v", got[3])
	}
	if _, ok := got[4]["id"]; ok || got[4]["asked"] != true || got[4]["client"] != 3.0 || got[4]["result"] == nil || got[4]["ms"] == nil {
		t.Errorf("a question's line: %v", got[4])
	}
	if s, _ := got[5]["params"].(string); !strings.Contains(s, "left out") || b.Len() > 2*MaxLogValue/1024 {
		t.Errorf("a huge value is not left out (%d bytes): %.200v", b.Len(), got[4]["params"])
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) { f.n++; return 0, errors.New("disk full") }

func TestLogStopsAtFirstFailure(t *testing.T) {
	w := &failingWriter{}
	var told []error
	l := NewRequestLog(w, nil, func(err error) { told = append(told, err) })
	for range 3 {
		l.Observe(serve.Exchange{Method: "notifications/initialized"})
	}
	if w.n != 1 || len(told) != 1 {
		t.Fatalf("writes %d, told %d: want 1 and 1", w.n, len(told))
	}
}

// Past its bound, the log says so on a last line and stops.
func TestLogBound(t *testing.T) {
	var b bytes.Buffer
	var told []error
	l := NewRequestLog(&b, nil, func(err error) { told = append(told, err) })
	l.max = 1000
	for range 100 {
		l.Observe(serve.Exchange{Method: "notifications/initialized"})
	}
	got := logLines(t, b.Bytes())
	last := got[len(got)-1]
	if b.Len() > 1000+200 || len(got) < 5 || !strings.Contains(fmt.Sprint(last["leftOut"]), "bound") || len(told) != 1 || !errors.Is(told[0], ErrLogFull) {
		t.Fatalf("%d bytes, told %v, last line %v", b.Len(), told, last)
	}
}

// A stopped log writes nothing more, and tells no one.
func TestLogStop(t *testing.T) {
	var b bytes.Buffer
	told := 0
	l := NewRequestLog(&b, nil, func(error) { told++ })
	l.Observe(serve.Exchange{Method: "notifications/initialized"})
	l.Stop()
	n := b.Len()
	l.Observe(serve.Exchange{Method: "notifications/initialized"})
	if n == 0 || b.Len() != n || told != 0 {
		t.Fatalf("%d bytes then %d, told %d", n, b.Len(), told)
	}
}

// TestErrFullNamesTheBound: the failure of a full log names MaxLogSize, which
// its text spells out (a constant, so that no error is built at init).
func TestErrFullNamesTheBound(t *testing.T) {
	if want := fmt.Sprintf("bound of %d MiB", MaxLogSize>>20); !strings.Contains(ErrLogFull.Error(), want) {
		t.Errorf("ErrLogFull is %q, want it to name %q", ErrLogFull, want)
	}
}
