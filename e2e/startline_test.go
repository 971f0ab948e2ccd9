//go:build unix && e2e

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/testkit"
)

// onTerminal runs mcpv to its end with its stderr a terminal cols wide
// (0: as opened), and returns the exit code and what the terminal got.
func onTerminal(t *testing.T, cols int, args ...string) (int, string) {
	t.Helper()
	return onTerminalIn(t, os.Environ(), cols, args...)
}

// onTerminalIn is onTerminal in the environment env.
func onTerminalIn(t *testing.T, env []string, cols int, args ...string) (int, string) {
	t.Helper()
	return onTerminalWatched(t, env, cols, nil, args...)
}

// onTerminalWatched is onTerminalIn that shows watch, when not nil, all the
// terminal has got so far after each read: a test waits there for what it
// must see before it lets the server go on.
func onTerminalWatched(t *testing.T, env []string, cols int, watch func(got string), args ...string) (int, string) {
	t.Helper()
	p, err := openPTY()
	if err != nil {
		t.Skip(err)
	}
	defer p.close()
	if cols > 0 {
		if err := p.setColumns(cols); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(mcpvBin, args...)
	cmd.Stderr = p.tty
	cmd.Env = append(env, "TERM=xterm")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.tty.Close() // mcpv holds its own: the terminal reads to its end when mcpv exits
	var got bytes.Buffer
	read := make(chan struct{})
	go func() { // ends at the terminal's end
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := p.master.Read(buf)
			got.Write(buf[:n])
			if n > 0 && watch != nil {
				watch(got.String())
			}
			if err != nil {
				return
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("mcpv still running after 60 s")
	}
	<-read
	return cmd.ProcessState.ExitCode(), got.String()
}

// A server that takes seconds to start gets a line on the terminal after
// a second: what mcpv waits for, for how long, and the server's last line
// on stderr, masked as all of stderr is; redrawn in place, and gone once
// the server answers.
//
// The server starts once the terminal has shown the line redrawn (the
// test's word, not a time a busy machine may miss); how many seconds the
// line counts is the machine's, so it is read, not assumed.
func TestStartLineOnATerminal(t *testing.T) {
	testkit.SkipLong(t, "a server that starts two seconds late at least")
	t.Parallel()
	const secret = "s3cr3t-t0ken-value"
	gate := filepath.Join(t.TempDir(), "started")
	s := newServer(t, "start-gate="+gate+",say=API_TOKEN")
	line := regexp.MustCompile(`mcpv: waiting for e2e\.test to start \(([0-9]+)s\): fake: API_TOKEN is \*\*\*`)
	redrawn := func(got string) bool {
		seen := line.FindAllStringSubmatch(got, -1)
		return len(seen) >= 2 && strings.Contains(got, "\r\x1b[K"+seen[len(seen)-1][0]) && seen[0][1] != seen[len(seen)-1][1]
	}
	code, got := onTerminalWatched(t, os.Environ(), 0, func(got string) {
		if redrawn(got) {
			os.WriteFile(gate, nil, 0o644)
		}
	}, append([]string{"ping", "--env", "API_TOKEN=" + secret}, s.args()...)...)
	if code != 0 {
		t.Fatalf("exit %d; the terminal got %q", code, got)
	}
	if strings.Contains(got, secret) {
		t.Errorf("the secret reached the terminal: %q", got)
	}
	if !redrawn(got) || strings.Contains(got, "(0s)") {
		t.Errorf("no line, or not redrawn in place; the terminal got %q", got)
	}
	last := strings.LastIndex(got, "mcpv: waiting")
	if rest := got[last:]; !strings.HasSuffix(rest, "\r\x1b[K") || strings.Count(rest, "\r\x1b[K") != 1 {
		t.Errorf("the line was not cleared at the end; the terminal ends with %q", rest)
	}
}

// The line is cut to the terminal's width: a line that wrapped could not
// be erased.
func TestStartLineFitsANarrowTerminal(t *testing.T) {
	testkit.SkipLong(t, "a server that starts once the line is shown, a second late")
	t.Parallel()
	// Words, and wide characters that take two columns each: cut at 79
	// characters, the wide line would take about 100 columns of 80.
	for name, tc := range map[string]struct {
		long  string
		width int
	}{"words": {strings.Repeat("word ", 40), 40}, "wide": {strings.Repeat("起動中 ", 30), 80}} {
		long, width := tc.long, tc.width
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			gate, watch := gateOnLine(t, func(got string) bool { return strings.Contains(got, "…") })
			s := newServer(t, gate+",say=LONG")
			code, got := onTerminalWatched(t, os.Environ(), width, watch, append([]string{"ping", "--env", "LONG=" + long}, s.args()...)...)
			if code != 0 {
				t.Fatalf("exit %d; the terminal got %q", code, got)
			}
			// Every drawing of the line fits; the one drawn once the
			// server's words came (not always the first: on a loaded
			// machine they come after the line shows) holds them, cut.
			lines, cut := 0, false
			for _, part := range strings.Split(got, "\r") {
				i := strings.Index(part, "mcpv: waiting")
				if i < 0 {
					continue
				}
				line := part[i:]
				lines++
				cut = cut || strings.HasSuffix(line, "…")
				if n := handColumns(line); n >= width {
					t.Errorf("a line of %d columns on a terminal %d wide: %q", n, width, line)
				}
			}
			if lines == 0 || !cut {
				t.Errorf("no line holds the server's words cut to %d columns; the terminal got %q", width, got)
			}
		})
	}
}

// gateOnLine is a start gate for the fake ("start-gate=PATH", its
// behaviour) and the terminal's watch that opens it once what the
// terminal got satisfies seen: the server waits for the test's word, not
// for a time a busy machine may miss.
func gateOnLine(t *testing.T, seen func(got string) bool) (string, func(got string)) {
	gate := filepath.Join(t.TempDir(), "started")
	var once sync.Once
	return "start-gate=" + gate, func(got string) {
		if seen(got) {
			once.Do(func() { os.WriteFile(gate, nil, 0o644) })
		}
	}
}

// handColumns counts the columns of a line of ASCII, "…" and the three
// wide characters of TestStartLineFitsANarrowTerminal, by hand rather
// than with the code under test.
func handColumns(line string) int {
	n := 0
	for _, r := range line {
		switch {
		case r < 0x80 || r == '…':
			n++
		case strings.ContainsRune("起動中", r):
			n += 2
		default:
			return 1 << 30 // a character this count does not know
		}
	}
	return n
}

// An HTTP server that is slow to answer gets the line too.
// It answers once the terminal has shown the line.
func TestStartLineForASlowHTTPServer(t *testing.T) {
	testkit.SkipLong(t, "a server that answers a second late at least")
	t.Parallel()
	answer := make(chan struct{})
	var once sync.Once
	target := gatedFakeHTTP(t, answer)
	want := regexp.MustCompile(`mcpv: waiting for ` + regexp.QuoteMeta(target[1]) + ` to answer \([1-9][0-9]*s\)`)
	code, got := onTerminalWatched(t, os.Environ(), 0, func(got string) {
		if want.MatchString(got) {
			once.Do(func() { close(answer) })
		}
	}, append([]string{"ping"}, target...)...)
	if code != 0 || !want.MatchString(got) {
		t.Errorf("exit %d; the terminal got %q", code, got)
	}
}

// A server that answers at once shows no line. Whether it answers within
// the line's second is up to the machine: a busy one may take longer, and
// the line is then right to show. What holds however busy: no line before
// its second (none says 0s), and none at all in a run shorter than that.
func TestStartLineNotForAQuickServer(t *testing.T) {
	t.Parallel()
	quick := newServer(t, "plain")
	start := time.Now()
	code, got := onTerminal(t, 0, append([]string{"ping"}, quick.args()...)...)
	took := time.Since(start)
	if code != 0 || strings.Contains(got, "(0s)") || took < time.Second && strings.Contains(got, "mcpv: waiting") {
		t.Errorf("a quick server: exit %d after %v; the terminal got %q", code, took, got)
	}
}

// A wait that is not seen on a terminal (scripts, CI) shows no line.
func TestStartLineOnlyForAWaitOnATerminal(t *testing.T) {
	testkit.SkipLong(t, "a server that starts 1.5 s late")
	t.Parallel()
	slow := newServer(t, "slow-start=1500")
	r := start(t, append([]string{"ping"}, slow.args()...)...)
	if code, _ := r.wait(t, 60*time.Second); code != 0 || strings.Contains(r.stderr.String(), "waiting") {
		t.Errorf("stderr not a terminal: exit %d, stderr %q", code, r.stderr.String())
	}
}

// The server's words in the line are made safe: a terminal never gets an
// escape sequence (C0, C1, bidirectional controls) or broken UTF-8 of the
// server's through it.
func TestStartLineEscapesTheServersWords(t *testing.T) {
	testkit.SkipLong(t, "a server that starts once the line is shown, a second late")
	t.Parallel()
	// The server starts once a line shows its words: its stderr shown
	// above the line comes first, and on a slow machine it may answer
	// before the line is drawn again with them.
	gate, watch := gateOnLine(t, func(got string) bool {
		for _, seg := range strings.Split(got, "mcpv: waiting")[1:] {
			if line, _, _ := strings.Cut(seg, "\r"); strings.Contains(line, "fake: EVIL is") {
				return true
			}
		}
		return false
	})
	s := newServer(t, gate+",say=EVIL")
	code, got := onTerminalWatched(t, os.Environ(), 0, watch, append([]string{"ping", "--env", "EVIL=\x1b]0;owned\x07\x1b[2J\u202egnp.exe\xff\xfe\x9b31m"}, s.args()...)...)
	if code != 0 {
		t.Fatalf("exit %d; the terminal got %q", code, got)
	}
	worded := false // a line that shows the server's words
	for _, seg := range strings.Split(got, "mcpv: waiting")[1:] {
		line, _, _ := strings.Cut(seg, "\r")
		worded = worded || strings.Contains(line, "fake: EVIL is")
		if strings.ContainsAny(line, "\x1b\x07\u202e\u009b") || !utf8.ValidString(line) {
			t.Errorf("the line holds the server's escapes: %q", line)
		}
	}
	if !worded {
		t.Errorf("no line shows the server's words; the terminal got %q", got)
	}
}

// With --verbose, the trace goes on above the line: each traced message
// starts a line of its own, the line erased before it and drawn again
// after.
func TestStartLineUnderTheTrace(t *testing.T) {
	testkit.SkipLong(t, "a server that starts once the line is shown, a second late")
	t.Parallel()
	gate, watch := gateOnLine(t, func(got string) bool { return strings.Contains(got, "mcpv: waiting for") })
	s := newServer(t, gate)
	code, got := onTerminalWatched(t, os.Environ(), 0, watch, append([]string{"--verbose", "ping"}, s.args()...)...)
	if code != 0 || !strings.Contains(got, "mcpv: waiting for") {
		t.Fatalf("exit %d; the terminal got %q", code, got)
	}
	for _, dir := range []string{"mcpv: -> ", "mcpv: <- "} {
		for rest := got; ; {
			i := strings.Index(rest, dir)
			if i < 0 {
				break
			}
			if before := rest[:i]; !strings.HasSuffix(before, "\n") && !strings.HasSuffix(before, "\r\x1b[K") && i > 0 {
				t.Errorf("a traced message does not start its line: %q", rest[max(0, i-60):i+20])
			}
			rest = rest[i+len(dir):]
		}
	}
}

// session start waits for its keeper to start the server: the same line,
// without the server's words, which go to the session's log.
func TestStartLineOfASessionStart(t *testing.T) {
	testkit.SkipLong(t, "a server that starts once the line is shown, a second late")
	t.Parallel()
	w := newSessions(t)
	// The seconds the line counts are the machine's (its first draw may be late).
	line := regexp.MustCompile(`mcpv: waiting for e2e\.test to start \([1-9][0-9]*s\)`)
	gate, watch := gateOnLine(t, line.MatchString)
	s := newServer(t, gate)
	code, got := onTerminalWatched(t, w.env, 0, watch, append([]string{"session", "start", "slow"}, s.args()...)...)
	if code != 0 || !line.MatchString(got) || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("exit %d; the terminal got %q", code, got)
	}
}

// A server whose era is remembered from an earlier run is not waited for
// at the start: the command's first request goes at once, behind
// server/discover. The line still shows while the server is silent, goes
// at its first answer (not at the command's end: a list walked on after
// it does not bring it back), and never outlives the command.
func TestStartLineForARememberedEra(t *testing.T) {
	testkit.SkipLong(t, "a server that starts 2 s late, four runs")
	t.Parallel()
	dir := t.TempDir()
	spec := filepath.Join(dir, "modern.json")
	tools := `[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]`
	if err := os.WriteFile(spec, []byte(`{"era":"modern","pageSize":1,"tools":`+tools+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := newServer(t, "spec="+spec+",slow-start=2000,slow=1000")
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	run := func(flags ...string) (int, string) {
		return onTerminalIn(t, env, 0, append(append(flags, "list-tools"), s.args()...)...)
	}
	const (
		discovered = `mcpv: <- {"jsonrpc":"2.0","id":1,"result"`
		listed     = `"method":"tools/list"`                        // its id is 2, or 3 when a slow server's silence was pinged first
		nextPage   = `"method":"tools/list","params":{"cursor":"1"` // its id is 3, or 4
	)
	// The seconds the line counts are the machine's (its first draw may be late).
	line := regexp.MustCompile(`mcpv: waiting for e2e\.test to start \([1-9][0-9]*s\): fake: starting up`)
	bare := regexp.MustCompile(`mcpv: waiting for e2e\.test to start \([1-9][0-9]*s\)`)
	code, got := run("--verbose")
	if code != 0 || !strings.Contains(got, listed) || strings.Index(got, listed) < strings.Index(got, discovered) {
		t.Fatalf("first run: exit %d, or the list went before the era was known; the terminal got %q", code, got)
	}

	code, got = run()
	last := strings.LastIndex(got, "mcpv: waiting")
	if code != 0 || !line.MatchString(got) || last < 0 {
		t.Fatalf("second run: exit %d; the terminal got %q", code, got)
	}
	if rest := got[last:]; !strings.HasSuffix(rest, "\r\x1b[K") || strings.Count(rest, "\r\x1b[K") != 1 {
		t.Errorf("second run: the line was not cleared at the end; the terminal ends with %q", rest)
	}

	code, got = run("--verbose")
	if code != 0 || !line.MatchString(got) || !strings.Contains(got, nextPage) {
		t.Fatalf("third run: exit %d; the terminal got %q", code, got)
	}
	if !strings.Contains(got, discovered) || strings.Index(got, listed) > strings.Index(got, discovered) {
		t.Errorf("third run: the list waited for server/discover's answer, as if the era were not remembered; the terminal got %q", got)
	}
	if strings.LastIndex(got, "mcpv: waiting") > strings.Index(got, nextPage) {
		t.Errorf("third run: the line was still up after the server's first answers; the terminal got %q", got)
	}

	// A server that says nothing before the command gives up: the line
	// is cleared before the command's last word. Its stderr line joins it
	// a tenth of a second after it comes, but a busy machine can start the
	// server itself so late that it comes after the command gave up, so
	// only the line is asked for.
	code, got = run("--connect-timeout", "2s")
	last = strings.LastIndex(got, "mcpv: waiting")
	if code != 124 || !bare.MatchString(got) || last < 0 {
		t.Fatalf("a run that times out: exit %d; the terminal got %q", code, got)
	}
	if _, after, _ := strings.Cut(got[last:], "\r\x1b[K"); !strings.HasPrefix(after, "mcpv: ") || strings.Contains(after, "waiting") || !strings.HasSuffix(after, "\n") {
		t.Errorf("a run that times out: the line was not cleared before the error; the terminal ends with %q", got[last:])
	}
}
