package commands

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// endlessSpec is a server whose tools/list never ends: a new nextCursor
// on every page, and nothing new on them.
const endlessSpec = `{"tools":[{"name":"add","description":"Returns the sum of two numbers.","inputSchema":{"type":"object"}}],"endlessCursor":["tools/list"]}`

// Every command that reads a whole list, against a list that never ends:
// each ends with exit 4 and the walk's error, and keeps nothing of the
// list for the next run (a run kept every page it read, and one that had
// read a hundred thousand took hours to write them down).
func TestEveryConsumerOfAnEndlessList(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"list-tools", []string{"list-tools"}},
		{"list-tools -q", []string{"list-tools", "-q", ".tools|length"}},
		{"cost", []string{"cost", "--summary"}},
		{"pin", []string{"pin", "p.json"}},
		{"diff", []string{"diff", "old.json"}},
		{"audit", []string{"audit"}},
		// search's --wait, 20 s a server, is not this test's subject: the
		// walk's own bound is, which a race run at load takes longer to reach.
		{"search", []string{"search", "--wait", "10m", "numbers"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.env.Cwd = t.TempDir()
			if c.name == "diff" {
				r := w.mcpv(t, "", args([]string{"pin", "old.json"}, specFake(t, strings.Replace(endlessSpec, `"endlessCursor":["tools/list"]`, `"pageSize":1`, 1)))...)
				if r.code != 0 {
					t.Fatalf("the pin to compare with: exit %d, %s", r.code, r.stderr)
				}
			}
			r := w.mcpv(t, "", args(c.args, specFake(t, endlessSpec))...)
			if r.code != 4 || !strings.Contains(r.stderr, "so the list never ends") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
				t.Errorf("exit %d, want 4 and one line that says the list never ends\nstderr: %.1000s", r.code, r.stderr)
			}
			if kept := keptPages(t, w); kept != "" {
				t.Errorf("the list's pages are kept for the next run: %.300s", kept)
			}
		})
	}
}

// keptPages is what w's state directory keeps of list pages between runs
// ("" for none).
func keptPages(t *testing.T, w *world) string {
	t.Helper()
	var kept strings.Builder
	home := ""
	for _, kv := range w.env.Environ {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	filepath.WalkDir(filepath.Join(home, ".local", "state", "mcpv"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), "nextCursor") {
			kept.WriteString(path + ": " + string(data))
		}
		return nil
	})
	return kept.String()
}

// search --wait bounds each server's whole walk, and what the walk kept
// is written down at once: a configured server whose list never ends,
// each page with something new, is said and left out, and the others
// are searched. (The pages read within --wait were written down for
// minutes, one page cut at a time.)
func TestSearchPastAnEndlessServer(t *testing.T) {
	testkit.SkipLong(t, "waits --wait (10 s) for a list that never ends")
	t.Parallel()
	w := newCfgWorld(t)
	good := newMovingServer(t, `{"serverInfo":{"name":"calc"},"tools":[{"name":"add","description":"Returns the sum of two numbers.","inputSchema":{"type":"object"}}]}`)
	endless := newMovingServer(t, strings.Replace(endlessSpec, `"endlessCursor"`, `"serverInfo":{"name":"endless"},"endlessItems"`, 1))
	entry := func(s *movingServer) map[string]any {
		return map[string]any{"command": s.cmd[3], "env": map[string]string{mcptest.EnvVar: "spec=" + s.spec}}
	}
	conf, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"calc": entry(good), "endless": entry(endless)}})
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.json"), string(conf))
	done := make(chan result, 1)
	go func() { done <- w.mcpv(t, "", "search", "--wait", "10s", "numbers") }() // the search: ends with it
	var r result
	select {
	case r = <-done:
	case <-time.After(3 * time.Minute): // 10 s and the servers' start, on a busy machine
		t.Fatal("search --wait 10s: still searching after 3 minutes")
	}
	var got struct {
		Hits   []struct{ Server, Name string }
		Failed []struct{ Server, Error string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
		t.Fatalf("exit %d (%v), stdout %q, stderr %q", r.code, err, r.stdout, r.stderr)
	}
	if len(got.Hits) != 1 || got.Hits[0].Server != "calc" || len(got.Failed) != 1 || got.Failed[0].Server != "endless" ||
		!strings.Contains(r.stderr, `server "endless" could not be searched`) {
		t.Errorf("hits %+v, failed %+v, stderr %q", got.Hits, got.Failed, r.stderr)
	}
}
