//go:build unix && e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/internal/trace"
)

// readTrace reads a trace the binary wrote: every line whole.
func readTrace(t *testing.T, path string) ([]trace.Line, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("the trace ends in half a line: %q", data[max(0, len(data)-100):])
	}
	lines, err := trace.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	return lines, data
}

// ownLine is the line mcpv printed of its own ("mcpv: ..."), the last.
func ownLine(stderr string) string {
	last := ""
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "mcpv: ") {
			last = line
		}
	}
	return last
}

// serverNamed is the server's name in a result's _meta, which a result of
// the 2026-07-28 era carries: of the server a mock replays.
var serverNamed = regexp.MustCompile(`"_meta":\{"io\.modelcontextprotocol/serverInfo":\{[^{}]*\}\},`)

// A trace of a failing call, replayed by mcpv mock, fails the same call
// the same way: the same exit code and the same line from mcpv, and
// the same result (the mock speaks the modern era, which stamps it and
// names the server in it); an error that is no error object is replayed
// as it came.
func TestTraceReplayReproducesTheRun(t *testing.T) {
	t.Parallel()
	for _, behaviour := range []string{"rpc-error", "tool-error", "log-flood=3", "plain", "bad-answer=code", "bad-answer=error"} {
		t.Run(behaviour, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "ci.trace.jsonl")
			s := newServer(t, behaviour)
			red := start(t, append([]string{"--trace", path, "call", "x", "a:=1"}, s.args()...)...)
			code, _ := red.wait(t, time.Minute)
			home := start(t, "call", "x", "a:=1", "--", mcpvBin, "mock", path)
			again, _ := home.wait(t, time.Minute)
			stamped := strings.Replace(home.stdout.String(), `{"resultType":"complete",`, "{", 1)
			named := serverNamed.MatchString(stamped) || again != 0 && home.stdout.Len() == 0
			stamped = serverNamed.ReplaceAllString(stamped, "")
			if again != code || ownLine(home.stderr.String()) != ownLine(red.stderr.String()) || stamped != red.stdout.String() || !named {
				t.Errorf("the run: exit %d, stdout %q, stderr %q\nits replay: exit %d, stdout %q, stderr %q",
					code, red.stdout.String(), red.stderr.String(), again, home.stdout.String(), home.stderr.String())
			}
		})
	}
}

// Ctrl-C mid-call: the trace holds the signal, the cancellation sent,
// the server's exit and the end line with 130, every line whole; a
// second Ctrl-C, which ends mcpv at once, still leaves whole lines.
func TestTraceCtrlC(t *testing.T) {
	t.Parallel()
	for _, twice := range []bool{false, true} {
		t.Run(fmt.Sprint("twice=", twice), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "t.jsonl")
			behaviour := "hang"
			if twice {
				behaviour = "hang,ignore-exit,grandchild"
			}
			s := newServer(t, behaviour)
			r := start(t, append([]string{"--trace", path, "call", "slow", "--no-validate"}, s.args()...)...)
			s.waitFor(t, `"tools/call"`)
			r.cmd.Process.Signal(os.Interrupt)
			if twice {
				s.waitFor(t, `notifications/cancelled`)
				r.cmd.Process.Signal(os.Interrupt)
			}
			if code, _ := r.wait(t, time.Minute); code != 130 {
				t.Fatalf("exit %d, want 130: %s", code, r.stderr.String())
			}
			lines, data := readTrace(t, path)
			if !bytes.Contains(data, []byte(`"event":"signal"`)) || !bytes.Contains(data, []byte(`"method":"notifications/cancelled"`)) {
				t.Errorf("the trace lacks the signal or the cancellation:\n%s", data)
			}
			end := lines[len(lines)-1]
			if !twice && (end.Type != "end" || *end.Code != 130) {
				t.Errorf("the last line %+v, want the end with 130", end)
			}
		})
	}
}

// A hostile server's trace is bounded and masked: a 100 MiB result is
// kept as its head, a flood of half a million log messages stops at the
// file's bound with a line saying so, and a secret of the environment
// shows in no form, whether the server writes it on stderr or echoes it
// in a result, URL-encoded, in base64 or JSON-escaped.
func TestTraceOfAHostileServer(t *testing.T) {
	testkit.SkipLong(t, "a 100 MiB result and half a million messages through mcpv")
	t.Parallel()
	const secret = "s3cr3t-Tok/en+with=chars\"q"
	for _, c := range []struct {
		behaviour string
		max       int
		cut       string
	}{
		{"big=104857600,stderr-env=DEPLOY_TOKEN", 1 << 20, `"cut":true`},
		{"env-forms,stderr-env=DEPLOY_TOKEN", 1 << 20, ""},
		{"log-flood=500000", trace.MaxFile, `{"type":"cut"`},
	} {
		t.Run(c.behaviour, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "t.jsonl")
			s := newServer(t, c.behaviour)
			cmd := exec.Command(mcpvBin, append([]string{"--trace", path, "call", "x", "--no-validate", "--env", "DEPLOY_TOKEN=" + secret}, s.args()...)...)
			cmd.Stdout = &countingWriter{}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v: %s", err, stderr.Bytes()[max(0, stderr.Len()-500):])
			}
			lines, data := readTrace(t, path)
			if len(data) > c.max {
				t.Errorf("the trace holds %d bytes, more than %d", len(data), c.max)
			}
			if !bytes.Contains(data, []byte(c.cut)) || lines[len(lines)-1].Type != "end" {
				t.Errorf("the trace does not say what it cut, or has no end line")
			}
			for _, leak := range []string{secret, "s3cr3t-Tok", "czNjcjN0LVRvay9lbit3aXRoPWNoYXJzInE", "s3cr3t-Tok%2Fen"} {
				if i := bytes.Index(data, []byte(leak)); i >= 0 {
					t.Errorf("the trace shows %q: %q", leak, data[max(0, i-100):min(len(data), i+60)])
				}
			}
		})
	}
}
