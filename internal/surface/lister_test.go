package surface

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
)

// countingTransport counts the requests of each method a client sends.
type countingTransport struct {
	*pipeTransport
	mu   sync.Mutex // guards sent
	sent map[string]int
}

func (c *countingTransport) Write(ctx context.Context, msg []byte) error {
	var m struct {
		Method string `json:"method"`
	}
	json.Unmarshal(msg, &m)
	c.mu.Lock()
	c.sent[m.Method]++
	c.mu.Unlock()
	return c.pipeTransport.Write(ctx, msg)
}

func (c *countingTransport) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent[method]
}

// A snapshot and a lint through one Lister list the server once between
// them, every page of every list.
func TestListerListsOnce(t *testing.T) {
	spec := loadSpec(t, "good-v1.json") // pageSize 2: three tools in two pages
	tr := &countingTransport{pipeTransport: pipes(spec), sent: map[string]int{}}
	c := connect(t, tr)

	l := NewLister(c)
	s, err := l.Gather(t.Context())
	if err != nil || len(s.Tools) != 3 {
		t.Fatalf("Gather: %d tools, %v", len(s.Tools), err)
	}
	if _, err := l.Lint(t.Context()); err != nil {
		t.Fatal(err)
	}
	for method, want := range map[string]int{"tools/list": 2, "prompts/list": 1, "resources/templates/list": 1, "resources/list": 1} {
		if got := tr.count(method); got != want {
			t.Errorf("%s asked %d times, want %d", method, got, want)
		}
	}
	// Apart, each lists for itself.
	if _, err := NewLister(c).Gather(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := tr.count("tools/list"); got != 4 {
		t.Errorf("tools/list asked %d times after a second Gather, want 4", got)
	}
}
