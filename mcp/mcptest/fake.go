// Package mcptest provides a scripted fake MCP server for tests: a stdio
// server whose misbehaviour is chosen by name, to provoke the cases a real
// server rarely shows (huge lines, junk on stdout, crashes, hangs, batches).
//
// A test binary serves as the fake when the environment names a behaviour:
//
//	func TestMain(m *testing.M) {
//		if mcptest.RunIfRequested() { return }
//		os.Exit(m.Run())
//	}
//
// and the test starts os.Args[0] with MCPV_FAKE=<behaviour>[,<behaviour>...].
package mcptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// EnvVar selects the fake's behaviours; EnvLog names a file where the fake
// appends every message it receives, one per line.
// EnvPid names a file where the fake writes its process id at start.
const (
	EnvVar = "MCPV_FAKE"
	EnvLog = "MCPV_FAKE_LOG"
	EnvPid = "MCPV_FAKE_PID"
)

// Behaviours, combined with commas in MCPV_FAKE:
//
//	plain         a well-behaved server with tools, resources and prompts
//	version=V     answer initialize with protocol version V
//	no-tools      declare no capabilities at all
//	not-found=M   answer method M with -32601 (method not found), declared or not
//	big=N         tools/call answers with one text block of N bytes
//	junk          write non-JSON lines on stdout before every answer
//	crash         tools/call writes to stderr and exits with status 3
//	ignore-exit   ignore stdin EOF, SIGINT and SIGTERM (only SIGKILL ends it);
//	              each SIGTERM is logged as {"fake":"SIGTERM"}
//	batch         wrap every answer in a JSON array, with a notification
//	odd-content   tools/call answers with unknown content, odd spacing and numbers
//	ping-first    before answering tools/call, ping the client and wait for its answer
//	hang          never answer tools/call (otherwise a call is answered "ok", with
//	              the call's arguments in the result's "arguments")
//	rpc-error     tools/call answers with a JSON-RPC error
//	stray-id      send a response to an unknown id before each answer
//	pages=N       tools/list in N pages of one tool each (the last also
//	              lists tool "x"; tools/call answers any name)
//	ask=METHOD    before answering tools/call, send the client a METHOD request
//	tool-error    tools/call answers with isError: true
//	typed=OUT     tools/list adds tool "typed" (outputSchema: integer n, required);
//	              calling it answers structuredContent {"n":OUT} (raw JSON), an
//	              image block and a text block
//	env           tools/call answers structuredContent {"env":{...},"cwd":DIR}: the
//	              server's own environment and working directory
//	stderr-env=V  at start, write 32,760 'x' and then $V to stderr in one write,
//	              so that the value straddles the 32 KiB reads of the reader
//	supported=V   refuse any other initialize version with -32602 and data.supported
//	bad-answer=K  tools/call answers with a message that does not decode: nul (a
//	              raw NUL in a string), code (an error code that is no integer),
//	              error (an error that is no object) or deep (nested 10001 deep)
//	ping-flood=N  before answering tools/call, send N pings without waiting
//	grandchild    at start, leave a child (sleep 300) in the server's process group
//	schema=K:N    tools/list adds tool "shaped", whose inputSchema is deep:N (N
//	              object schemas nested under property a), wide:N (N object
//	              properties, each of one integer property) or anyof:N
//	              (property p1 is a chain of N anyOf levels, each of two
//	              references to the level below, ending in a string: quick to
//	              compile, and 2^N steps to find that a value is no string)
//	content-length  frame messages LSP-style, both ways (Content-Length: N, a
//	              blank line, N bytes); a header line that is not one is answered
//	              with a framed parse error. content-length=greet instead sends a
//	              framed log message at start and skips such lines silently
//	updates=N     resources.subscribe: each resources/subscribe is followed by one
//	              notifications/resources/updated, and each resources/read is
//	              preceded by N of them
//	tasks=S[/S...]  tasks, and a tool "job" whose task-augmented calls make task-N,
//	                each tasks/get moving it one status S along (see tasks.go)
//	task-support=X  job's execution.taskSupport: optional (default), required or forbidden
//	task-ttl=MS     grant ttl MS whatever was asked (default: the ttl asked, or null)
//	no-task-cancel  declare tasks without tasks.cancel
//	no-task-list    declare tasks without tasks.list
//	poll=MS         the tasks' pollInterval (default 50; 0 leaves it out)
type config struct {
	supported  string
	typed      string
	version    string
	noTools    bool
	big        int
	junk       bool
	crash      bool
	ignoreExit bool
	batch      bool
	oddContent bool
	pingFirst  bool
	hang       bool
	rpcError   bool
	notFound   string
	strayID    bool
	pages      int
	ask        string
	toolError  bool
	env        bool
	stderrEnv  string
	badAnswer  string
	pingFlood  int
	grandchild bool
	updates    int
	schema     string
	framed     string // "" (lines), "reply" or "greet"
	t          taskConfig
}

func parseConfig(s string) (config, error) {
	c := config{pages: 1, t: taskConfig{support: "optional", poll: 50}}
	for item := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(item, "=")
		switch k {
		case "plain", "":
		case "content-length":
			c.framed = "reply"
			if v == "greet" {
				c.framed = v
			}
		case "schema":
			if _, err := shapedSchema(v); err != nil {
				return c, err
			}
			c.schema = v
		case "updates":
			n, err := strconv.Atoi(v)
			if err != nil {
				return c, err
			}
			c.updates = n
		case "version":
			c.version = v
		case "no-tools":
			c.noTools = true
		case "not-found":
			c.notFound = v
		case "big":
			n, err := strconv.Atoi(v)
			if err != nil {
				return c, err
			}
			c.big = n
		case "junk":
			c.junk = true
		case "crash":
			c.crash = true
		case "ignore-exit":
			c.ignoreExit = true
		case "batch":
			c.batch = true
		case "odd-content":
			c.oddContent = true
		case "ping-first":
			c.pingFirst = true
		case "hang":
			c.hang = true
		case "rpc-error":
			c.rpcError = true
		case "stray-id":
			c.strayID = true
		case "pages":
			n, err := strconv.Atoi(v)
			if err != nil {
				return c, err
			}
			c.pages = n
		case "ask":
			c.ask = v
		case "env":
			c.env = true
		case "stderr-env":
			c.stderrEnv = v
		case "tool-error":
			c.toolError = true
		case "typed":
			c.typed = v
		case "supported":
			c.supported = v
		case "bad-answer":
			c.badAnswer = v
		case "ping-flood":
			n, err := strconv.Atoi(v)
			if err != nil {
				return c, err
			}
			c.pingFlood = n
		case "grandchild":
			c.grandchild = true
		default:
			if err := parseTaskOption(&c.t, k, v); err != nil {
				return c, err
			}
		}
	}
	return c, nil
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
	var log io.Writer = io.Discard
	if path := os.Getenv(EnvLog); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake:", err)
			os.Exit(2)
		}
		log = f
	}
	go func() { // lives as long as the process
		for range terms {
			fmt.Fprintln(log, `{"fake":"SIGTERM"}`)
		}
	}()
	var out io.Writer = os.Stdout
	if c.framed != "" {
		out = framedWriter{os.Stdout}
	}
	newServer(c, os.Stdin, out, log).serve()
	if c.ignoreExit {
		select {} // wait for SIGKILL
	}
	os.Exit(0)
	return true
}

type server struct {
	c    config
	in   *bufio.Reader
	log  io.Writer
	msgs chan msg      // what the client sent, read ahead by readLoop
	done chan struct{} // closed once stdin has ended
	wg   sync.WaitGroup

	wmu sync.Mutex // guards out and seq; taken after tmu, never before
	out io.Writer
	seq int

	tmu     sync.Mutex // guards tasks and pending
	tasks   []*task
	pending map[string]chan msg // answers awaited by a tasks/result, by id
}

func newServer(c config, in io.Reader, out io.Writer, log io.Writer) *server {
	return &server{c: c, in: bufio.NewReader(in), out: out, log: log,
		msgs: make(chan msg), done: make(chan struct{}), pending: map[string]chan msg{}}
}

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
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
			var m msg
			if json.Unmarshal(line, &m) == nil {
				s.msgs <- m
			}
		}
		if err != nil {
			return
		}
	}
}

// readFramed is readLoop for content-length: header blocks, then bodies.
func (s *server) readFramed() {
	if s.c.framed == "greet" {
		s.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"framed fake ready"}}`)
	}
	for {
		length := -1
		for {
			line, err := s.in.ReadBytes('\n')
			if err != nil {
				return
			}
			line = bytes.TrimRight(line, "\r\n")
			if len(line) == 0 {
				if length >= 0 {
					break
				}
				continue
			}
			name, value, ok := strings.Cut(string(line), ":")
			if !ok || strings.ContainsAny(name, `{}" `) {
				if s.c.framed == "reply" {
					s.write(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not a header line"}}`)
				}
				continue
			}
			if strings.EqualFold(name, "Content-Length") {
				length, _ = strconv.Atoi(strings.TrimSpace(value))
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(s.in, body); err != nil {
			return
		}
		s.log.Write(append(body, '\n'))
		var m msg
		if json.Unmarshal(body, &m) == nil {
			s.msgs <- m
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

// serve answers requests until stdin ends, then waits for the requests
// still being answered (which give up on what the client can no longer say).
func (s *server) serve() {
	go s.readLoop()
	defer s.wg.Wait()
	defer close(s.done)
	for m := range s.msgs {
		switch {
		case m.Method == "" && m.ID != nil:
			s.route(m)
		case m.Method != "" && m.ID != nil:
			s.answer(m)
		}
	}
}

// write sends one line as is.
func (s *server) write(line string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	io.WriteString(s.out, line+"\n")
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
	if s.c.junk {
		io.WriteString(s.out, "this is not JSON\n")
	}
	if s.c.strayID {
		io.WriteString(s.out, `{"jsonrpc":"2.0","id":987654,"result":{"stray":true}}`+"\n")
	}
	if s.c.batch {
		v = `[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"batched"}},` + v + `]`
	}
	io.WriteString(s.out, v+"\n")
}

func (s *server) result(id json.RawMessage, result string) {
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result))
}

func (s *server) fail(id json.RawMessage, code int, message string) {
	text, _ := marshalString(message)
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, text))
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
		json.Unmarshal(m.Params, &p)
		if s.c.supported != "" && p.ProtocolVersion != s.c.supported {
			s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":[%q],"requested":%q}}}`, m.ID, s.c.supported, p.ProtocolVersion))
			return
		}
		version := s.c.version
		if version == "" {
			version = p.ProtocolVersion
		}
		caps := `{"tools":{},"resources":{},"prompts":{}}`
		if s.c.updates > 0 {
			caps = `{"tools":{},"resources":{"subscribe":true},"prompts":{}}`
		}
		if s.c.noTools {
			caps = `{}`
		} else if s.c.t.on() {
			caps = s.c.t.caps()
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
		return "", fmt.Errorf("schema=%s: want deep:N, wide:N or anyof:N", spec)
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
	case "anyof":
		b.WriteString(`{"type":"object","$defs":{"d0":{"type":"string"}`)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, `,"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i-1, i-1)
		}
		fmt.Fprintf(&b, `},"properties":{"p1":{"$ref":"#/$defs/d%d"}}}`, n)
	default:
		return "", fmt.Errorf("schema=%s: want deep:N, wide:N or anyof:N", spec)
	}
	return b.String(), nil
}

const updated = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"fake://a"}}`

func (s *server) toolsList(m msg) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	json.Unmarshal(m.Params, &p)
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
	case s.c.hang:
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
	echo := `""`
	if s.c.pingFirst || s.c.ask != "" {
		method := s.c.ask
		if method == "" {
			method = "ping"
		}
		id := s.nextID()
		s.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method))
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
				echo, _ = marshalString(string(b))
				break
			}
		}
	}
	switch {
	case s.c.env:
		env := map[string]string{}
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		cwd, _ := os.Getwd()
		b, _ := json.Marshal(map[string]any{"env": env, "cwd": cwd})
		s.result(m.ID, `{"content":[{"type":"text","text":"env"}],"structuredContent":`+string(b)+`}`)
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
		text, _ := json.Marshal("n is " + s.c.typed)
		s.result(m.ID, fmt.Sprintf(`{"content":[{"type":"text","text":%s},{"type":"image","mimeType":"image/png","data":%q}],"structuredContent":{"n":%s}}`, text, TinyPNG, s.c.typed))
	default:
		var p struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		json.Unmarshal(m.Params, &p)
		args := "null"
		if len(p.Arguments) > 0 {
			args = string(p.Arguments)
		}
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

func marshalString(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}
