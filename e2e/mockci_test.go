//go:build unix && e2e

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// The guide's recipe for testing a client against mcpv mock, run as
// printed: the demo server recorded, the faults file, and the CI step,
// with mcpv standing for the client under test (in place of npm test).
// A client that survives the faults passes; one that gives up after the
// error fails the step, by the request log's count.
func TestMockCIRecipe(t *testing.T) {
	testkit.SkipLong(t, "the guide's CI recipe: record, faults, a client run")
	t.Parallel()
	section := between(t, readText(t, "../docs/guide/testing.md"), "## Testing a client in CI against `mcpv mock`\n", "\nA stdio client")
	blocks := strings.Split(section, "```")
	if len(blocks) < 7 {
		t.Fatalf("want three blocks in the section, got:\n%s", section)
	}
	record := strings.TrimPrefix(blocks[1], "sh\n")
	faults := strings.TrimPrefix(blocks[3], "yaml\n")
	step := strings.TrimPrefix(blocks[5], "sh\n")

	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "tests"), 0o755)
	if err := os.Symlink(demoBin(t), filepath.Join(dir, "demo-server")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	path := "PATH=" + filepath.Dir(mcpvBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	if code, out := runScript(t, dir, record, path); code != 0 {
		t.Fatalf("recording: exit %d\n%s", code, out)
	}
	recorded := readText(t, filepath.Join(dir, "tests", "server.responses.json"))
	if !strings.Contains(recorded, `"name": "mcpv-demo"`) || !strings.Contains(recorded, `"instructions": "Demo server`) {
		t.Errorf("the recording lacks who the server is:\n%.600s", recorded)
	}
	os.WriteFile(filepath.Join(dir, "tests", "faults.yaml"), []byte(faults), 0o644)

	// The client under test: it calls add until it gets its sum, as a
	// client that retries after an error does, and waits through the slow
	// call.
	retrying := `for i in 1 2 3; do
  out=$(mcpv -u "$MCP_URL" call add a:=1 b:=2 2>client.err) && echo "$out" >>client.out || cat client.err >>client.out
done`
	for _, tt := range []struct {
		client string
		code   int
	}{{retrying, 0}, {`mcpv -u "$MCP_URL" call add a:=1 b:=2 || true`, 1}} {
		script := swap(t, step, "npm test ", tt.client+" ")
		code, out := runScript(t, dir, script, path)
		if code != tt.code {
			t.Errorf("client %q: exit %d, want %d\n%s", tt.client, code, tt.code, out)
		}
		log := readText(t, filepath.Join(dir, "mock.jsonl"))
		var calls []loggedCall
		for line := range strings.Lines(log) {
			if strings.Contains(line, `"method":"tools/call"`) {
				var c loggedCall
				if err := json.Unmarshal([]byte(line), &c); err != nil {
					t.Fatalf("a log line: %v\n%s", err, line)
				}
				calls = append(calls, c)
			}
		}
		if tt.code != 0 {
			if len(calls) != 1 || calls[0].Error.Message != "database is locked" {
				t.Errorf("a client that gives up: the log has %d calls:\n%s", len(calls), log)
			}
			continue
		}
		if len(calls) != 3 || calls[0].Error.Code != -32603 || calls[0].Error.Message != "database is locked" ||
			calls[1].Result == nil || calls[1].Ms < 2000 || calls[2].Result == nil || calls[2].Ms >= 2000 {
			t.Errorf("the log's calls: %+v\n%s", calls, log)
		}
		client := readText(t, filepath.Join(dir, "client.out"))
		if !strings.Contains(client, "mcpv: tools/call: server error -32603: database is locked") || strings.Count(client, `"structuredContent":{"sum":3}`) != 2 {
			t.Errorf("what the client saw:\n%s", client)
		}
	}
}

// loggedCall is what a test reads of a call's line in mock --log.
type loggedCall struct {
	Result map[string]any `json:"result"`
	Error  struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Ms float64 `json:"ms"`
}
