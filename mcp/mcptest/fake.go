// Package mcptest provides fake MCP servers for tests, on one JSON-RPC
// loop: a stdio server whose misbehaviour is chosen by name, to provoke the
// cases a real server rarely shows (huge lines, junk on stdout, crashes,
// hangs, batches), or whose whole surface comes from a JSON spec (spec.go);
// a scripted Streamable HTTP server (http.go), and one scripted to publish
// skills (skills.go).
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
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
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
	if path := os.Getenv(EnvSuite); path != "" && !slices.ContainsFunc(os.Args[1:], isTestFlag) {
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

// isTestFlag reports whether arg is a flag of the testing package's.
func isTestFlag(arg string) bool {
	return strings.HasPrefix(arg, "-test.") || strings.HasPrefix(arg, "--test.")
}

// RunIfRequested runs the fake server on stdin and stdout when EnvVar is set,
// then exits the process. It returns false when EnvVar is not set.
func RunIfRequested() bool {
	spec, ok := os.LookupEnv(EnvVar)
	if !ok {
		return false
	}
	c, err := parseConfig(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		os.Exit(2)
	}
	c.environ = os.Environ()
	c.dir, _ = os.Getwd()
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
	time.Sleep(c.slowStart)
	for c.startGate != "" {
		if _, err := os.Stat(c.startGate); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	f := &InProcess{c: c}
	if f.log, err = openLog(os.Getenv(EnvLog)); err != nil {
		fmt.Fprintln(os.Stderr, "fake:", err)
		os.Exit(2)
	}
	go func() { // lives as long as the process
		for range terms {
			fmt.Fprintln(f.log, `{"fake":"SIGTERM"}`)
		}
	}()
	f.serve(os.Stdin, os.Stdout)
	if c.ignoreExit {
		fmt.Fprintln(f.log, `{"fake":"EOF"}`)
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

	wmu  sync.Mutex // guards out, seq and werr; taken after tmu, never before
	out  io.Writer
	seq  int
	werr error // the first write that failed

	calls callCounter // the tools/call requests received, for c.lat

	tmu     sync.Mutex // guards tasks and pending
	tasks   []*task
	pending map[string]chan msg // answers awaited by a tasks/result, by id

	st *specState // a spec server's conversation with its client

	callsAnswered int    // tools/call answers sent, for c.interleave; guarded by wmu
	held          string // the answer the next one goes into; guarded by wmu
}

func newServer(c config, in io.Reader, out io.Writer, log io.Writer) *server {
	return &server{c: c, in: bufio.NewReader(in), out: out, log: log,
		msgs: make(chan msg), done: make(chan struct{}), pending: map[string]chan msg{}, st: newSpecState()}
}

// serveSpecMessage hands one message to the spec server's conversation.
func (s *server) serveSpecMessage(m msg, early bool) {
	if s.c.ignoreEarly && early && m.invalid == nil && m.Method != "" && m.Method != "initialize" && m.Method != "ping" {
		return // dropped: not initialized yet
	}
	// What async runs ends when the slow call ends or is cancelled.
	s.c.spec.specMessage(s.st, m.raw, m, specOut{send: s.send, async: s.wg.Go, done: s.done})
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
			m, ok := s.decode(line)
			if ok && !s.deliver(m) {
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

// decode reads one message; a spec server answers one that does not
// decode with a parse error (invalid), the other fakes drop it (false).
func (s *server) decode(body []byte) (msg, bool) {
	var m msg
	if json.Unmarshal(body, &m) != nil {
		if s.c.spec == nil {
			return m, false
		}
		return msg{invalid: invalid(body), raw: bytes.Clone(body)}, true
	}
	if s.c.spec != nil {
		m.raw = bytes.Clone(body)
	}
	return m, true
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
		if s.c.initFirst && !initialized {
			// and a backtrace after it, as a Rust server prints one
			fmt.Fprintf(os.Stderr, "fake: expected initialize first, received %q\n\nStack backtrace:\n", m.Method)
			for i := range 12 {
				fmt.Fprintf(os.Stderr, "  %d: fake::serve\n", i)
			}
			os.Exit(1)
		}
		if s.c.spec != nil {
			if s.serveSpecMessage(m, early); s.st.Stopped() || s.failed() {
				return
			}
			continue
		}
		switch {
		case m.Method == "" && m.ID != nil:
			s.route(m)
		case s.c.ignoreEarly && early && m.Method != "initialize" && m.Method != "ping":
			// dropped: not initialized yet
		case m.Method == "tools/call" && m.ID != nil && s.c.lat.on() && s.c.serial:
			if wait(s.c.lat.Of(s.calls.next()), s.done, nil) {
				s.answer(m)
			}
		case m.Method == "tools/call" && m.ID != nil && s.c.lat.on():
			d := s.c.lat.Of(s.calls.next())
			// It ends after the delay, or when stdin ends (the client has
			// gone: nothing is answered).
			s.wg.Go(func() {
				if wait(d, s.done, nil) {
					s.answer(m)
				}
			})
		case m.Method != "" && m.ID != nil:
			s.answer(m)
		}
		if s.failed() {
			return
		}
	}
}

// write sends one line as is.
func (s *server) write(line string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.put(line + "\n")
}

// put writes text, keeping the first error; wmu must be held.
func (s *server) put(text string) {
	if _, err := io.WriteString(s.out, text); err != nil && s.werr == nil {
		s.werr = err
	}
}

// failed reports whether a write has failed.
func (s *server) failed() bool {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.werr != nil
}

func (s *server) nextID() string {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.seq++
	return fmt.Sprintf(`"srv-%d"`, s.seq)
}

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
		at := strings.Index(s.held, `"result"`) + len(`"res`)
		if s.c.idLast {
			at = strings.Index(s.held, `"content"`) + len(`"cont`)
		}
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
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		rawjson.DecodeLoose([]byte(v), &m)
		s.held = `{"jsonrpc":"2.0","result":` + string(m.Result) + `,"id":` + string(m.ID) + `}`
	}
	return true
}

func (s *server) result(id json.RawMessage, result string) {
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result))
}

func (s *server) fail(id json.RawMessage, code int, message string) {
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`,
		id, code, mustString(message)))
}

func (s *server) answer(m msg) {
	if s.c.notFound != "" && m.Method == s.c.notFound {
		s.fail(m.ID, -32601, "Method not found")
		return
	}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		rawjson.DecodeLoose(m.Params, &p)
		if s.c.supported != "" && p.ProtocolVersion != s.c.supported {
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":[%q],"requested":%q}}}`, m.ID, s.c.supported, p.ProtocolVersion))
			return
		}
		version := cmp.Or(s.c.version, p.ProtocolVersion)
		caps := `{"tools":{},"resources":{},"prompts":{}}`
		if s.c.updates > 0 {
			caps = `{"tools":{},"resources":{"subscribe":true},"prompts":{}}`
		}
		if s.c.noTools {
			caps = `{}`
		} else if s.c.t.on() {
			caps = s.c.t.caps()
		}
		if s.c.listChanged {
			caps = strings.Replace(caps, `"tools":{}`, `"tools":{"listChanged":true}`, 1)
		}
		s.result(m.ID, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":%s,"serverInfo":{"name":"fake","version":"0"}}`, version, caps))
	case "ping":
		s.result(m.ID, `{}`)
	case "tools/list":
		s.toolsList(m)
	case "tools/call":
		s.toolsCall(m)
	case "resources/list":
		s.result(m.ID, `{"resources":[{"uri":"fake://a","name":"a"}]}`)
	case "resources/templates/list":
		s.result(m.ID, `{"resourceTemplates":[{"uriTemplate":"fake://{x}","name":"x"}]}`)
	case "resources/read":
		for range s.c.updates {
			s.write(updated)
		}
		s.result(m.ID, `{"contents":[{"uri":"fake://a","text":"A"}]}`)
	case "resources/subscribe", "resources/unsubscribe":
		s.result(m.ID, `{}`)
		if m.Method == "resources/subscribe" && s.c.updates > 0 {
			s.write(updated)
		}
	case "prompts/list":
		s.result(m.ID, `{"prompts":[{"name":"p"}]}`)
	case "prompts/get":
		s.result(m.ID, `{"messages":[{"role":"user","content":{"type":"text","text":"P"}}]}`)
	default:
		if strings.HasPrefix(m.Method, "tasks/") && s.c.t.on() {
			s.taskMethod(m)
			return
		}
		s.fail(m.ID, -32601, "Method not found")
	}
}

// shapedSchema builds the inputSchema that schema=K:N names.
func shapedSchema(spec string) (string, error) {
	kind, count, _ := strings.Cut(spec, ":")
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		return "", fmt.Errorf("schema=%s: want deep:N, wide:N, anyof:N, allof:N, loop:N or enum:N", spec)
	}
	var b strings.Builder
	switch kind {
	case "deep":
		b.WriteString(strings.Repeat(`{"type":"object","properties":{"a":`, n))
		b.WriteString(`{"type":"string"}`)
		b.WriteString(strings.Repeat(`}}`, n))
	case "wide":
		b.WriteString(`{"type":"object","properties":{`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"p%d":{"type":"object","properties":{"a":{"type":"integer"}}}`, i)
		}
		b.WriteString(`}}`)
	case "anyof", "allof", "loop":
		bottom := `{"type":"string"}`
		if kind == "loop" {
			bottom = fmt.Sprintf(`{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/d%d"}]}`, n)
		}
		keyword := cmp.Or(map[string]string{"allof": "allOf"}[kind], "anyOf")
		b.WriteString(`{"type":"object","$defs":{"d0":` + bottom)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, `,"d%d":{%q:[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, keyword, i-1, i-1)
		}
		fmt.Fprintf(&b, `},"properties":{"p1":{"$ref":"#/$defs/d%d"}}}`, n)
	case "enum":
		b.WriteString(`{"type":"object","properties":{"p1":{"type":"array","items":{"enum":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteString(`]}}}}`)
	default:
		return "", fmt.Errorf("schema=%s: want deep:N, wide:N, anyof:N, allof:N, loop:N or enum:N", spec)
	}
	return b.String(), nil
}

const updated = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"fake://a"}}`

func (s *server) toolsList(m msg) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	rawjson.DecodeLoose(m.Params, &p)
	page := 0
	if p.Cursor != "" {
		page, _ = strconv.Atoi(strings.TrimPrefix(p.Cursor, "page-"))
	}
	next := ""
	if page+1 < s.c.pages {
		next = fmt.Sprintf(`,"nextCursor":"page-%d"`, page+1)
	}
	job := ""
	if page == 0 && s.c.typed != "" {
		job += `,{"name":"typed","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`
	}
	if page == 0 && s.c.schema != "" {
		schema, _ := shapedSchema(s.c.schema)
		job += `,{"name":"shaped","inputSchema":` + schema + `}`
	}
	if page == 0 && s.c.t.on() {
		job = fmt.Sprintf(`,{"name":"job","description":"A slow job","inputSchema":{"type":"object"},"execution":{"taskSupport":%q}}`, s.c.t.support)
	}
	if next == "" {
		job += `,{"name":"x","inputSchema":{"type":"object"}}` // the tool tests call
	}
	s.result(m.ID, fmt.Sprintf(`{"tools":[{"name":"tool%d","inputSchema":{"type":"object"}}%s]%s}`, page, job, next))
}

func (s *server) toolsCall(m msg) {
	if s.c.t.on() && s.taskCall(m) {
		return
	}
	switch {
	case s.c.hang && s.c.ask == "":
		return
	case s.c.crash:
		fmt.Fprintln(os.Stderr, "fake: about to crash")
		fmt.Fprintln(os.Stderr, "fake: panic: something broke")
		os.Exit(3)
	case s.c.rpcError:
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Unknown tool: nope"}}`, m.ID))
		return
	case s.c.badAnswer != "":
		s.write(badAnswer(s.c.badAnswer, m.ID))
		return
	}
	for i := range s.c.pingFlood {
		s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":"flood-%d","method":"ping"}`, i))
	}
	if s.c.logFlood > 0 {
		s.floodLogs(m)
	}
	echo := `""`
	if s.c.pingFirst || s.c.ask != "" {
		method := cmp.Or(s.c.ask, "ping")
		id := s.nextID()
		params := ""
		if s.c.envForms {
			params = `,"params":` + envFormsQuestion(s.c.environ)
		}
		s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q%s}`, id, method, params))
		for {
			r, ok := <-s.msgs
			if !ok {
				return
			}
			if r.Method == "" && r.ID != nil && string(r.ID) != id {
				s.route(r)
			}
			if string(r.ID) == id && r.Method == "" {
				b, _ := json.Marshal(r)
				echo = mustString(string(b))
				break
			}
		}
		if s.c.hang {
			return
		}
	}
	switch {
	case s.c.env:
		env := map[string]string{}
		for _, kv := range s.c.environ {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		b, _ := json.Marshal(map[string]any{"env": env, "cwd": s.c.dir})
		s.result(m.ID, `{"content":[{"type":"text","text":"env"}],"structuredContent":`+string(b)+`}`)
	case s.c.envForms:
		s.result(m.ID, envForms(s.c.environ))
	case s.c.big > 0:
		var b bytes.Buffer
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"`, m.ID)
		b.Write(bytes.Repeat([]byte{'x'}, s.c.big))
		b.WriteString(`"}]}}`)
		s.send(b.String())
	case s.c.oddContent:
		s.result(m.ID, OddResult)
	case s.c.toolError:
		s.result(m.ID, `{"content":[{"type":"text","text":"it went wrong"}],"isError":true}`)
	case s.c.typed != "":
		s.result(m.ID, fmt.Sprintf(`{"content":[{"type":"text","text":%s},{"type":"image","mimeType":"image/png","data":%q}],"structuredContent":{"n":%s}}`,
			mustString("n is "+s.c.typed), TinyPNG, s.c.typed))
	default:
		var p struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		rawjson.DecodeLoose(m.Params, &p)
		args := cmp.Or(string(p.Arguments), "null")
		s.result(m.ID, fmt.Sprintf(`{"content":[{"type":"text","text":"ok"}],"echo":%s,"arguments":%s,"at":%q}`, echo, args, time.Now().Format(time.RFC3339)))
	}
}

// badAnswer is a response to id that does not decode, of the kind named.
func badAnswer(kind string, id json.RawMessage) string {
	switch kind {
	case "nul":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"a%sb"}]}}`, id, "\x00")
	case "code":
		return fmt.Sprintf(`{"jsonrpc":"2.0","error":{"code":"E42","message":"broken"},"id":%s}`, id)
	case "error":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":"broken"}`, id)
	case "deep":
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"x":%s%s}}`, id, strings.Repeat("[", 10001), strings.Repeat("]", 10001))
	}
	return "not json at all"
}

// TinyPNG is a 1x1 PNG, base64-encoded.
const TinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

// OddResult is what odd-content answers: an unknown content type, unknown
// fields, keys out of order, numbers in unusual notations and spacing that a
// client must not normalise (beyond dropping insignificant whitespace).
const OddResult = `{ "zeta": 1.50, "content" : [ {"type":"hologram","frames":[1e2, -0.0, 12345678901234567890],"x-note":"caf\u00e9 \"q\""} ], "_meta": {"b":2,"a":1}, "alpha": null }`

// mustString is s as a JSON string.
func mustString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
