package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

func TestDryRunPrintsWhatWouldBeSent(t *testing.T) {
	t.Parallel()
	tail, log := fakeLogged(t, "typed=7")
	dry := mcpv(t, "", args([]string{"call", "typed", "n=007", "--dry-run"}, tail)...)
	if dry.code != 0 || strings.Contains(readLog(t, log), `"tools/call"`) {
		t.Fatalf("dry run: exit %d, stderr %q; server got:\n%s", dry.code, dry.stderr, readLog(t, log))
	}
	tail2, log2 := fakeLogged(t, "typed=7")
	if r := mcpv(t, "", args([]string{"call", "typed", "n=007"}, tail2)...); r.code != 0 {
		t.Fatalf("call: exit %d, stderr %q", r.code, r.stderr)
	}
	var sent string
	for l := range strings.SplitSeq(readLog(t, log2), "\n") {
		if strings.Contains(l, `"tools/call"`) {
			sent = l
		}
	}
	if strings.TrimSpace(dry.stdout) != sent {
		t.Errorf("--dry-run printed\n%s\nbut the call sent\n%s", dry.stdout, sent)
	}
	if !strings.Contains(sent, `"arguments":{"n":7}`) {
		t.Errorf("n was not typed as an integer: %s", sent)
	}
}

func TestArgumentViolationSendsNothing(t *testing.T) {
	t.Parallel()
	tail, log := fakeLogged(t, "typed=7")
	r := mcpv(t, "", args([]string{"call", "typed", "n:=\"x\""}, tail)...)
	if r.code != 2 || !strings.Contains(r.stderr, "arguments /n: got string, want integer (type)") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if strings.Contains(readLog(t, log), `"tools/call"`) {
		t.Error("the call was sent")
	}
	if r := mcpv(t, "", args([]string{"call", "typed", "n:=\"x\"", "--no-validate"}, fake("typed=7"))...); r.code != 0 {
		t.Errorf("--no-validate: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestOutputValidation(t *testing.T) {
	t.Parallel()
	bad := fake(`typed="seven"`)
	r := mcpv(t, "", args([]string{"call", "typed"}, bad)...)
	if r.code != 0 || !strings.Contains(r.stderr, "warning: structuredContent /n: got string, want integer (type)") || !strings.Contains(r.stdout, `"n":"seven"`) {
		t.Errorf("warn: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = mcpv(t, "", args([]string{"call", "typed", "--validate-output", "strict"}, bad)...)
	if r.code != 3 || !strings.Contains(r.stdout, `"n":"seven"`) {
		t.Errorf("strict: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = mcpv(t, "", args([]string{"call", "typed", "--validate-output", "off"}, bad)...)
	if r.code != 0 || r.stderr != "" {
		t.Errorf("off: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := mcpv(t, "", args([]string{"call", "typed", "--validate-output", "strict"}, fake("typed=7"))...); r.code != 0 {
		t.Errorf("a valid result: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestTextAndSaveDir(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"call", "typed", "--text"}, fake("typed=7"))...)
	if r.code != 0 || r.stdout != "n is 7\n" {
		t.Errorf("--text: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	dir := filepath.Join(t.TempDir(), "out")
	r = mcpv(t, "", args([]string{"call", "typed", "--save-dir", dir}, fake("typed=7"))...)
	var res struct {
		Content []struct {
			Path string `json:"path"`
			Data string `json:"data"`
		} `json:"content"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || len(res.Content) != 2 || res.Content[1].Path == "" || res.Content[1].Data != "" {
		t.Fatalf("--save-dir: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	png, err := os.ReadFile(res.Content[1].Path)
	if err != nil || !strings.HasPrefix(string(png), "\x89PNG") || filepath.Dir(res.Content[1].Path) != dir {
		t.Errorf("saved %s: %v", res.Content[1].Path, err)
	}
	r = mcpv(t, "", args([]string{"call", "typed", "--save-dir", dir, "--text"}, fake("typed=7"))...)
	if lines := strings.Split(strings.TrimSpace(r.stdout), "\n"); r.code != 0 || len(lines) != 2 || lines[0] != "n is 7" || !strings.HasPrefix(lines[1], dir+string(filepath.Separator)) {
		t.Errorf("--save-dir --text: exit %d, stdout %q", r.code, r.stdout)
	}
}

// A schema too deep to check is said so in a warning, and the call goes on;
// a check that takes long (an enum of 100,000 values for each of 100,000
// items) is bounded by --timeout and by Ctrl-C.
func TestHostileSchemas(t *testing.T) {
	t.Parallel()
	t.Run("too deep", func(t *testing.T) {
		t.Parallel()
		tail, log := fakeLogged(t, "schema=deep:4900")
		r := mcpv(t, "", args([]string{"call", "shaped", `a:={"a":1}`}, tail)...)
		if r.code != 0 || !strings.Contains(r.stderr, `warning: tool "shaped"'s inputSchema is not checked: it nests 9801 levels deep, more than the 128 mcpv checks`) {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
		if !strings.Contains(readLog(t, log), `"arguments":{"a":{"a":1}}`) {
			t.Errorf("the call was not sent:\n%s", readLog(t, log))
		}
	})
	t.Run("timeout", func(t *testing.T) {
		t.Parallel()
		// --timeout runs on a clock of the test's own, which the test
		// runs out once the check has begun: its bound runs beside the
		// typing's, which holds until the arguments are checked (the
		// requests' own bounds before them have stopped).
		const timeout = 59 * time.Minute
		clock := mcptest.NewClock()
		tail, log := fakeLogged(t, "schema=enum:100000")
		done := make(chan result, 1)
		go func() { // ends with the run, which the check holds until its bound
			done <- mcpvIn(t, onClock(testEnv(t), clock), "", args([]string{"--timeout", timeout.String(), "call", "shaped", "p1:=@" + longEnumArgument(t)}, tail)...)
		}()
		clock.WaitUntil(t, "the check's bound running", func(ts mcptest.Timers) bool {
			return ts.Running[timeout] == 2
		})
		clock.Fire(timeout)
		r := <-done
		// The timeout, and no end of the check, is what the exit and the
		// message say.
		if r.code != 124 || !strings.Contains(r.stderr, "checking the inputSchema of tool shaped") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
		if strings.Contains(readLog(t, log), `"tools/call"`) {
			t.Error("the call was sent")
		}
	})
	t.Run("interrupt", func(t *testing.T) {
		t.Parallel()
		_, stderr, cancel, wait := background(t, args([]string{"-v", "call", "shaped", "p1:=@" + longEnumArgument(t)}, fake("schema=enum:100000"))...)
		stderr.waitFor(t, `"shaped"`) // tools/list answered: the check begins
		time.Sleep(100 * time.Millisecond)
		cancel(ErrInterrupted)
		// Exit 130 with no call sent: the check stopped where it was.
		if code := wait(); code != 130 {
			t.Fatalf("exit %d; stderr:\n%.2000s", code, stderr)
		}
		if strings.Contains(stderr.String(), `"method":"tools/call"`) {
			t.Error("the call was sent")
		}
	})
}

// longEnumArgument writes a file of 100,000 times 99999, the last value of
// the enum of schema=enum:100000, and returns its path.
func longEnumArgument(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "p1.json")
	if err := os.WriteFile(path, []byte("["+strings.TrimSuffix(strings.Repeat("99999,", 100000), ",")+"]"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
