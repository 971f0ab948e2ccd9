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
	"os/signal"
	"strconv"
	"strings"
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
//	big=N         tools/call answers with one text block of N bytes
//	junk          write non-JSON lines on stdout before every answer
//	crash         tools/call writes to stderr and exits with status 3
//	ignore-exit   ignore stdin EOF and SIGTERM (only SIGKILL ends it)
//	batch         wrap every answer in a JSON array, with a notification
//	odd-content   tools/call answers with unknown content, odd spacing and numbers
//	ping-first    before answering tools/call, ping the client and wait for its answer
//	hang          never answer tools/call
//	rpc-error     tools/call answers with a JSON-RPC error
//	stray-id      send a response to an unknown id before each answer
//	pages=N       tools/list in N pages of one tool each
//	ask=METHOD    before answering tools/call, send the client a METHOD request
//	tool-error    tools/call answers with isError: true
//	supported=V   refuse any other initialize version with -32602 and data.supported
type config struct {
	supported  string
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
	strayID    bool
	pages      int
	ask        string
	toolError  bool
}

func parseConfig(s string) (config, error) {
	c := config{pages: 1}
	for _, item := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(item, "=")
		switch k {
		case "plain", "":
		case "version":
			c.version = v
		case "no-tools":
			c.noTools = true
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
		case "tool-error":
			c.toolError = true
		case "supported":
			c.supported = v
		default:
			return c, fmt.Errorf("unknown fake behaviour %q", k)
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
	if c.ignoreExit {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
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
	s := &server{c: c, in: bufio.NewReader(os.Stdin), out: os.Stdout, log: log}
	s.serve()
	if c.ignoreExit {
		select {} // wait for SIGKILL
	}
	os.Exit(0)
	return true
}

type server struct {
	c   config
	in  *bufio.Reader
	out io.Writer
	log io.Writer
	seq int
}

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

func (s *server) read() (msg, bool) {
	for {
		line, err := s.in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			s.log.Write(line)
			var m msg
			if json.Unmarshal(line, &m) == nil {
				return m, true
			}
		}
		if err != nil {
			return msg{}, false
		}
	}
}

func (s *server) serve() {
	for {
		m, ok := s.read()
		if !ok {
			return
		}
		if m.Method == "" || m.ID == nil {
			continue // a response or a notification
		}
		s.answer(m)
	}
}

func (s *server) send(v string) {
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

func (s *server) answer(m msg) {
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
		if s.c.noTools {
			caps = `{}`
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
		s.result(m.ID, `{"contents":[{"uri":"fake://a","text":"A"}]}`)
	case "prompts/list":
		s.result(m.ID, `{"prompts":[{"name":"p"}]}`)
	case "prompts/get":
		s.result(m.ID, `{"messages":[{"role":"user","content":{"type":"text","text":"P"}}]}`)
	default:
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID))
	}
}

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
	s.result(m.ID, fmt.Sprintf(`{"tools":[{"name":"tool%d","inputSchema":{"type":"object"}}]%s}`, page, next))
}

func (s *server) toolsCall(m msg) {
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
	}
	echo := `""`
	if s.c.pingFirst || s.c.ask != "" {
		method := s.c.ask
		if method == "" {
			method = "ping"
		}
		s.seq++
		id := fmt.Sprintf(`"srv-%d"`, s.seq)
		io.WriteString(s.out, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`+"\n", id, method))
		for {
			r, ok := s.read()
			if !ok {
				return
			}
			if string(r.ID) == id && r.Method == "" {
				b, _ := json.Marshal(r)
				echo, _ = marshalString(string(b))
				break
			}
		}
	}
	switch {
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
	default:
		s.result(m.ID, fmt.Sprintf(`{"content":[{"type":"text","text":"ok"}],"echo":%s,"at":%q}`, echo, time.Now().Format(time.RFC3339)))
	}
}

// OddResult is what odd-content answers: an unknown content type, unknown
// fields, keys out of order, numbers in unusual notations and spacing that a
// client must not normalise (beyond dropping insignificant whitespace).
const OddResult = `{ "zeta": 1.50, "content" : [ {"type":"hologram","frames":[1e2, -0.0, 12345678901234567890],"x-note":"caf\u00e9 \"q\""} ], "_meta": {"b":2,"a":1}, "alpha": null }`

func marshalString(s string) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}
