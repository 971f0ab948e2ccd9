package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// Every line written through JSONLines is one JSON object: the failure's
// as it is, a note and a warning as objects of their text, written in
// pieces or many at once, from several goroutines.
func TestJSONLines(t *testing.T) {
	var buf bytes.Buffer
	w := JSONLines(&buf)
	w.Write([]byte("mcpv: serving at http://127.0.0.1:8808/mcp\nmcpv: warning: otel: "))
	w.Write([]byte("a bad \"value\"\n\n  an indented detail\r\n"))
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { w.Write([]byte("mcpv: a note from a goroutine\n")) })
	}
	wg.Wait()
	w.Write([]byte(`{"exit":4,"kind":"transport","message":"it failed"}` + "\n"))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 12 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	want := []string{`{"note":"serving at http://127.0.0.1:8808/mcp"}`, `{"warning":"otel: a bad \"value\""}`, `{"note":"  an indented detail"}`}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || len(m) == 0 {
			t.Errorf("line %d is no JSON object: %q", i, l)
		}
		if i < len(want) && l != want[i] {
			t.Errorf("line %d: %s, want %s", i, l, want[i])
		}
	}
	if last := lines[len(lines)-1]; last != `{"exit":4,"kind":"transport","message":"it failed"}` {
		t.Errorf("the failure: %s", last)
	}
}
