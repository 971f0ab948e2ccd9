// Package mcptest provides fake MCP servers for tests, on one engine: a
// spec server (spec.go), whose whole surface comes from a JSON spec and
// which breaks the specification's requirements one planted fault at a
// time. The fake whose misbehaviour is chosen by name (behaviours.go), to
// provoke the cases a real server rarely shows (huge lines, junk on
// stdout, crashes, hangs, batches), is a spec server too, each behaviour
// a row that writes its spec (and answers what no spec says). It is
// served over stdio, in a process or in the test's (InProcess), or over
// Streamable HTTP (http.go), where a test may script any exchange itself;
// extensions.go holds the fixtures of MCP Apps and a server of skills.
//
// A test binary serves as the fake when the environment names a behaviour:
//
//	func TestMain(m *testing.M) {
//		if mcptest.RunIfRequested() { return }
//		os.Exit(mcptest.GuardSuite(m.Run))
//	}
//
// and the test starts os.Args[0], or Program, with
// MCPV_FAKE=<behaviour>[,<behaviour>...].
package mcptest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
)

// EnvVar selects the fake's behaviours; EnvLog names a file where the fake
// appends every message it receives, one per line.
// EnvPid names a file where the fake writes its process id at start.
const (
	EnvVar = "MCPV_FAKE"
	EnvLog = "MCPV_FAKE_LOG"
	EnvPid = "MCPV_FAKE_PID"
)

// EnvSuite names, in the processes a running test binary starts, the file
// where one started as a server with no behaviour writes its command line
// (GuardSuite).
const EnvSuite = "MCPTEST_SUITE"

// GuardSuite runs a TestMain's tests (run is m.Run) once no behaviour it
// knows was asked for, and returns the code to exit with. A test binary
// started again under a running one (EnvSuite set: mcpv passes its
// environment on to a server), with no behaviour and no -test. flag, was
// started as a server by a test that did not say how to behave: it would
// run the whole suite again, as that server, until the client gave up. It
// runs nothing: it writes its command line to the running suite's file,
// says so on stderr and exits 2, and the suite that started it fails,
// naming it. A binary started again with -test. flags (to run one test of
// its own) runs them.
func GuardSuite(run func() int) int {
	if path := os.Getenv(EnvSuite); path != "" && !slices.ContainsFunc(os.Args[1:], func(arg string) bool { return strings.HasPrefix(arg, "-test.") || strings.HasPrefix(arg, "--test.") }) {
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			fmt.Fprintf(f, "%q\n", os.Args)
			f.Close()
		}
		fmt.Fprintln(os.Stderr, "mcptest: a test binary started as a server with no behaviour asked for ("+EnvVar+" or its package's own): it would run its whole suite again")
		return 2
	}
	f, err := os.CreateTemp("", "mcptest-suite-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
		return 1
	}
	f.Close()
	defer os.Remove(f.Name())
	os.Setenv(EnvSuite, f.Name())
	defer removeProgram()
	code := run()
	if started, _ := os.ReadFile(f.Name()); len(started) > 0 {
		fmt.Fprintf(os.Stderr, "mcptest: a test started this binary as a server with no behaviour asked for, which refused to run (the command lines follow):\n%s", started)
		code = max(code, 1)
	}
	return code
}

// RunIfRequested runs the fake server on stdin and stdout when EnvVar is set,
// then exits the process. It returns false when EnvVar is not set.
func RunIfRequested() bool {
	spec, ok := os.LookupEnv(EnvVar)
	if !ok {
		return false
	}
	dir, _ := os.Getwd()
	c, err := parseConfig(spec, os.Environ(), dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		os.Exit(2)
	}
	if path := os.Getenv(EnvPid); path != "" {
		os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())), 0o644)
	}
	terms := make(chan os.Signal, 1)
	if c.ignoreExit {
		signal.Ignore(syscall.SIGINT)
		signal.Notify(terms, syscall.SIGTERM)
	}
	if c.grandchild {
		// It stays in this process's group: only a signal to the group ends it.
		exec.Command("sleep", "300").Start()
	}
	if c.stderrEnv != "" {
		os.Stderr.Write([]byte(strings.Repeat("x", 32760) + os.Getenv(c.stderrEnv) + "\n"))
	}
	for range c.busy {
		go func() { // spins as long as the process lives
			for n := 0; ; n++ {
				_ = n
			}
		}()
	}
	if c.slowStart > 0 || c.startGate != "" {
		fmt.Fprintln(os.Stderr, "fake: starting up")
	}
	if c.say != "" {
		fmt.Fprintf(os.Stderr, "fake: %s is %s\n", c.say, os.Getenv(c.say))
	}
	for _, port := range []string{c.oneCopy, c.startLock} {
		if _, err := os.OpenFile(port, os.O_CREATE|os.O_EXCL, 0o600); port != "" && err != nil { // held open, as a port is
			fmt.Fprintln(os.Stderr, "fake: listen EADDRINUSE: address already in use")
			os.Exit(1)
		}
	}
	time.Sleep(c.slowStart)
	for _, err := os.Stat(c.startGate); c.startGate != "" && err != nil; _, err = os.Stat(c.startGate) {
		time.Sleep(10 * time.Millisecond) // until the gate's path exists
	}
	log, err := openLog(os.Getenv(EnvLog))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		os.Exit(2)
	}
	go func() { // lives as long as the process
		for range terms {
			fmt.Fprintln(log, `{"fake":"SIGTERM"}`)
		}
	}()
	newServer(c, os.Stdin, os.Stdout, log).serve() // the log left open: the process logs its end after
	if c.ignoreExit {
		fmt.Fprintln(log, `{"fake":"EOF"}`)
		hang() // wait for SIGKILL
	}
	os.Exit(0)
	return true
}

// hang blocks for good. Not select{}: in a program without cgo (Program's)
// a process whose every goroutine blocks on channels is ended by the
// runtime as deadlocked, where a hostile server would wait for its signal.
func hang() {
	for {
		time.Sleep(time.Hour)
	}
}

type server struct {
	c    config
	in   *bufio.Reader
	log  io.Writer
	msgs chan msg      // what the client sent, read ahead by readLoop
	done chan struct{} // closed once stdin has ended
	wg   sync.WaitGroup

	wmu  sync.Mutex // guards out and werr
	out  io.Writer
	werr error // the first write that failed

	st *specState // a spec server's conversation with its client

	callsAnswered int    // tools/call answers sent, for c.interleave; guarded by wmu
	held          string // the answer the next one goes into; guarded by wmu
}

func newServer(c config, in io.Reader, out io.Writer, log io.Writer) *server {
	if c.framed != "" {
		out = framedWriter{out}
	}
	return &server{c: c, in: bufio.NewReader(in), out: out, log: log,
		msgs: make(chan msg), done: make(chan struct{}), st: newSpecState()}
}

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
	// invalid is a spec server's answer to a line that is no request,
	// answered in turn with the others.
	invalid *specError
	// raw is the line as it came, for a spec server (a batch).
	raw []byte
	// batch: raw is a batch, over HTTP.
	batch bool
}

// readLoop logs and forwards every message on stdin, so that a tasks/result
// waiting for the client's answer does not stop the others being served.
func (s *server) readLoop() {
	defer close(s.msgs)
	if s.c.framed != "" {
		s.readFramed()
		return
	}
	for {
		line, err := s.in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			s.log.Write(line)
			m := s.decode(line)
			if !s.deliver(m) {
				return
			}
			if s.c.deaf && m.Method == "notifications/initialized" {
				hang() // never reads again; the process ends by a signal
			}
		}
		if err != nil {
			return
		}
	}
}

// decode reads one message; a line that is no JSON is answered with a
// parse error (invalid), JSON that is no message as no request (a batch
// as one, before).
func (s *server) decode(body []byte) msg {
	var m msg
	if json.Unmarshal(body, &m) != nil {
		m = msg{}
		if err := json.Unmarshal(body, new(any)); err != nil {
			m.invalid = &specError{Code: codeParseError, Message: "parse error: " + err.Error()}
		}
	}
	m.raw = bytes.Clone(body)
	return m
}

// deliver hands m to serve; false once serve has stopped answering (a
// write failed).
func (s *server) deliver(m msg) bool {
	select {
	case s.msgs <- m:
		return true
	case <-s.done:
		return false
	}
}

// serve answers requests until stdin ends, then waits for the requests
// still being answered (which give up on what the client can no longer say).
func (s *server) serve() {
	go s.readLoop()
	defer s.wg.Wait()
	defer close(s.done)
	initialized := false // an initialize request has come (ignore-early)
	for m := range s.msgs {
		if m.Method != "" && m.ID != nil {
			time.Sleep(s.c.slow)
		}
		early := !initialized
		initialized = initialized || (m.Method == "initialize" && m.ID != nil)
		if m.Method == "initialize" && s.c.startLock != "" {
			os.Remove(s.c.startLock) // started: the port is let go before the answer
		}
		if s.c.initFirst && !initialized {
			// and a backtrace after it, as a Rust server prints one
			fmt.Fprintf(os.Stderr, "fake: expected initialize first, received %q\n\nStack backtrace:\n", m.Method)
			for i := range 12 {
				fmt.Fprintf(os.Stderr, "  %d: fake::serve\n", i)
			}
			os.Exit(1)
		}
		if s.c.ignoreEarly && early && m.invalid == nil && m.Method != "" && m.Method != "initialize" && m.Method != "ping" {
			continue // dropped: not initialized yet
		}
		if s.c.spec.specMessage(s.st, m.raw, m, specOut{send: s.send, async: s.wg.Go, bulk: s.bulk, done: s.done}); s.st.Stopped() || s.failed() {
			return
		}
	}
}

// write sends one line as is.
func (s *server) write(line string) { withLock(&s.wmu, func() { s.put(line + "\n") }) }

// put writes text, keeping the first error; wmu must be held.
func (s *server) put(text string) {
	if _, err := io.WriteString(s.out, text); err != nil && s.werr == nil {
		s.werr = err
	}
}

// failed reports whether a write has failed.
func (s *server) failed() bool { return locked(&s.wmu, func() bool { return s.werr != nil }) }

func (s *server) send(v string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.c.interleave > 0 && s.interleaved(v) {
		return
	}
	if s.c.junk {
		s.put("this is not JSON\n")
	}
	if s.c.strayID {
		s.put(`{"jsonrpc":"2.0","id":987654,"result":{"stray":true}}` + "\n")
	}
	if s.c.batch {
		v = `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"batched"}},` + v + `]`
	}
	s.put(v + "\n")
}

// interleaved writes v into the held answer, or holds v to write the
// next into: true when v is written (or held) so. wmu is held.
func (s *server) interleaved(v string) bool {
	if s.held != "" {
		at := pick(s.c.idLast, strings.Index(s.held, `"content"`)+len(`"cont`), strings.Index(s.held, `"result"`)+len(`"res`))
		s.put(s.held[:at] + v + "\n" + s.held[at:] + "\n")
		s.held = ""
		return true
	}
	if !strings.Contains(v, `"content"`) || !strings.Contains(v, `"result"`) {
		return false // not a call's answer
	}
	if s.callsAnswered++; s.callsAnswered != s.c.interleave {
		return false
	}
	s.held = v
	if s.c.idLast {
		var m msg
		if json.Unmarshal([]byte(v), &m) == nil { // the server's own line; were it not, held as it is
			s.held = `{"jsonrpc":"2.0","result":` + string(m.Result) + `,"id":` + string(m.ID) + `}`
		}
	}
	return true
}

// readFramed is readLoop for content-length: header blocks, then bodies.
func (s *server) readFramed() {
	if s.c.framed == "greet" {
		s.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"framed fake ready"}}`)
	}
	for {
		length := -1
	header:
		for {
			line, err := s.in.ReadBytes('\n')
			if err != nil {
				return
			}
			line = bytes.TrimRight(line, "\r\n")
			name, value, ok := strings.Cut(string(line), ":")
			switch {
			case len(line) == 0 && length >= 0:
				break header
			case len(line) == 0: // blank lines before a header
			case !ok || strings.ContainsAny(name, `{}" `):
				if s.c.framed == "exit" {
					fmt.Fprintf(os.Stderr, "fake: Error: bad header %.40q\n", line)
					os.Exit(1)
				}
				if s.c.framed == "reply" {
					s.write(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not a header line"}}`)
				}
			case strings.EqualFold(name, "Content-Length"):
				length, _ = strconv.Atoi(strings.TrimSpace(value))
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(s.in, body); err != nil {
			return
		}
		s.log.Write(append(body, '\n'))
		if !s.deliver(s.decode(body)) {
			return
		}
	}
}

// framedWriter sends each write, one message and its newline, as a
// Content-Length frame.
type framedWriter struct{ w io.Writer }

func (f framedWriter) Write(p []byte) (int, error) {
	body := bytes.TrimSuffix(p, []byte("\n"))
	if _, err := fmt.Fprintf(f.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		return 0, err
	}
	return len(p), nil
}

// InProcess is a fake server served in the test process, on the streams
// a test gives it, as Program would serve it started with the same
// environment: no process to start, link or reap. A test keeps Program
// where the process is its subject; NewInProcess says which fakes those
// are.
type InProcess struct {
	c   config
	log *os.File // EnvLog's file, or nil: one that discards
}

// NewInProcess returns the fake that a program started with environ (in
// dir; "" is this process's) would serve: EnvVar's behaviours, logging to
// EnvLog's file. It returns nil, and no error, where environ names no
// fake, or one whose behaviour only a process of its own shows: its exit,
// signals, children, start-up timing, stderr or its id.
func NewInProcess(environ []string, dir string) (*InProcess, error) {
	if environ == nil {
		environ = os.Environ()
	}
	behaviours, ok := EnvValue(environ, EnvVar)
	if pid, _ := EnvValue(environ, EnvPid); !ok || pid != "" {
		return nil, nil
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	c, err := parseConfig(behaviours, environ, dir)
	if err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	// What only a process of its own shows: a behaviour's, or a fault's
	// (its end, die-* and killed-*, or what it reads of its environment).
	if c.process || slices.ContainsFunc(c.spec.Faults, func(f string) bool {
		return strings.HasPrefix(f, "die-") || strings.HasPrefix(f, "killed-") || f == "log-secret"
	}) {
		return nil, nil
	}
	f := &InProcess{c: c}
	path, _ := EnvValue(environ, EnvLog)
	if f.log, err = openLog(path); err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	return f, nil
}

// openLog opens EnvLog's file to append to; with no path, nil: a log
// whose writes and close fail, unseen (os.ErrInvalid).
func openLog(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// Serve answers what comes on in until it ends, writing to out, and
// then closes the log; a write to out that fails ends it too.
func (f *InProcess) Serve(in io.Reader, out io.Writer) {
	defer f.log.Close()
	newServer(f.c, in, out, f.log).serve()
}

// EnvValue is the value of key in environ (KEY=VALUE entries), where a
// later entry wins, as it does for a process started with it.
func EnvValue(environ []string, key string) (string, bool) {
	for _, kv := range slices.Backward(environ) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// Program is the path of a program that serves as the fake, as the test
// binary does (RunIfRequested): the fake as a program of its own
// (mcp/mcptest/fakeserver), built once per test binary by the go command
// into a directory GuardSuite removes when its run ends. A suite that
// starts hundreds of fakes is the one to use it: a test binary is several
// times the program's size and starts as a server in twice its CPU (7 ms
// against 3; 20 when built with -race, which the program never is). Where
// the program cannot be built (no go command, as when a cross-built test
// binary runs under wine), Program is the test binary itself.
func Program() string { return program.Get() }

// IsProgram reports whether path is the fake a test started: Program as
// built (never building it: a path compared before it is built is not
// it), or the test binary, which serves the fake too.
func IsProgram(path string) bool {
	if path == os.Args[0] {
		return true
	}
	return locked(&programMu, func() bool { return programDir != "" && filepath.Dir(path) == programDir })
}

var (
	programMu  sync.Mutex // guards programDir
	programDir string     // where Program built the program; GuardSuite removes it

	program = &lazy.Value[string]{New: func() string {
		path, err := buildProgram()
		if err != nil {
			if !errors.Is(err, exec.ErrNotFound) {
				fmt.Fprintf(os.Stderr, "mcptest: the fake server as a program of its own: %v; the test binary serves as the fake\n", err)
			}
			return os.Args[0]
		}
		return path
	}}
)

// buildProgram builds mcp/mcptest/fakeserver into a new directory.
func buildProgram() (string, error) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "mcptest-program-")
	if err != nil {
		return "", err
	}
	withLock(&programMu, func() { programDir = dir })
	name := "fakeserver"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	bin := filepath.Join(dir, name)
	// A bound that only a machine far past its wits reaches: the go
	// command compiles the package the first time, and links it each.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gocmd, "build", "-buildvcs=false", "-ldflags=-s -w", "-o", bin, "github.com/mcpv/mcpv/mcp/mcptest/fakeserver")
	// Without cgo the program is linked statically: no dynamic loader and
	// C library to start, a third less CPU at each of its hundreds of starts.
	cmd.Env = append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH, "CGO_ENABLED=0")
	if _, file, _, ok := runtime.Caller(0); ok {
		cmd.Dir = filepath.Dir(file) // in the module, wherever a test has moved the process
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return bin, nil
}

// removeProgram removes what Program built, if it built anything.
func removeProgram() {
	programMu.Lock()
	defer programMu.Unlock()
	os.RemoveAll(programDir) // "": nothing built, nothing removed
	programDir = ""
}
