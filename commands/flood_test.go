package commands

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/output"
)

// slowStderr is a stderr that does not take a line until the events file
// holds want lines: the log messages cannot be shown while the server's
// flood is read. (A bound on a wait that sees the file grow no more keeps
// a broken build from hanging, however slow the machine; short of want
// when it ends, held says how many lines the file had.)
type slowStderr struct {
	events string
	want   int
	held   int
	once   sync.Once
	mu     sync.Mutex
	buf    bytes.Buffer
}

func (w *slowStderr) Write(p []byte) (int, error) {
	w.once.Do(func() {
		for deadline := time.Now().Add(testWait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			b, _ := os.ReadFile(w.events)
			held := bytes.Count(b, []byte("\n"))
			if held > w.held {
				deadline = time.Now().Add(testWait) // the flood is read: slowly, perhaps
			}
			if w.held = held; w.held >= w.want {
				return
			}
		}
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// A server that sends 30,000 log messages and 3,000 progress notifications
// before its result, while the log messages cannot be shown: the result
// comes through; --events holds every notification, in order; of the log
// messages, the first ones are shown, in order, and one warning counts the
// rest, dropped, so that shown and dropped add up; mcpv's memory holds a
// bounded queue of them, not the flood.
func TestNotificationFloodIsBounded(t *testing.T) {
	t.Parallel()
	const n = 30000
	events := filepath.Join(t.TempDir(), "events.ndjson")
	stderr := &slowStderr{events: events, want: n + n/10}
	var out bytes.Buffer
	ios := output.NewStreams(strings.NewReader(""), &out, stderr)
	code := run(context.Background(), args([]string{"--events", events, "call", "x", "--no-validate", "-r", "-q", ".content[0].text"}, fake(fmt.Sprintf("log-flood=%d", n))), ios, testEnv(t))
	errs := stderr.buf.String()
	if stderr.held < stderr.want {
		t.Fatalf("--events held %d of %d notifications, and no more for %v, while stderr was blocked: the flood was not read while its log messages could not be shown", stderr.held, stderr.want, testWait)
	}
	if code != 0 || out.String() != "ok\n" {
		t.Fatalf("exit %d, stdout %q, stderr ends %q", code, out.String(), errs[max(0, len(errs)-300):])
	}

	f, _ := os.Open(events)
	defer f.Close()
	logs, progress := 0, 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var e struct {
			Method string
			Params struct {
				Data     string
				Progress int
			}
		}
		json.Unmarshal(sc.Bytes(), &e)
		switch e.Method {
		case "notifications/message":
			if want := "log " + strconv.Itoa(logs); e.Params.Data != want {
				t.Fatalf("event %d: %q, want %q", logs+progress, e.Params.Data, want)
			}
			logs++
		case "notifications/progress":
			if progress++; e.Params.Progress != progress || logs != 10*progress {
				t.Fatalf("progress %d after %d log messages: %s", e.Params.Progress, logs, sc.Bytes())
			}
		}
	}
	if logs != n || progress != n/10 {
		t.Errorf("--events holds %d log messages and %d progress notifications, want %d and %d", logs, progress, n, n/10)
	}

	shown := 0
	notices := regexp.MustCompile(`(?m)^mcpv: warning: dropped (\d+) log messages from the server: they came faster than they could be shown$`).FindAllStringSubmatch(errs, -1)
	for line := range strings.Lines(errs) {
		if rest, ok := strings.CutPrefix(line, "server[info] flood: log "); ok {
			if i, _ := strconv.Atoi(strings.TrimSpace(rest)); i != shown {
				t.Fatalf("log message %d shown where %d was due", i, shown)
			}
			shown++
		}
	}
	if len(notices) != 1 {
		t.Fatalf("%d notices of dropped log messages, want 1; %d shown; stderr ends %q", len(notices), shown, errs[max(0, len(errs)-300):])
	}
	dropped, _ := strconv.Atoi(notices[0][1])
	if shown+dropped != n || shown > 2*n/3 { // at most twice the session's queue: its batch in hand, and the queue
		t.Errorf("%d log messages shown and %d dropped, want %d in all, most of them dropped", shown, dropped, n)
	}
}
