package mcptest

// The named fake (behaviours.go) is a spec server; here is what it
// answers that no spec says, before the spec does: a call's own answer,
// the floods and the question before it, a million pages, an initialize
// version refused, updates of a resource.

import (
	"bufio"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// named is what the named fake answers that the spec engine does not,
// as its behaviours wrote it (behaviours.go).
type named struct {
	environ        []string // the server's, KEY=VALUE
	supported      string   // the one initialize version taken
	pages, updates int
	hang, crash    bool
	// refuse answers every call at once; answer, after the floods and
	// the question, instead of "ok" and the call's arguments.
	refuse, answer      func(id json.RawMessage) string
	echo                string
	pingFlood, logFlood int
	ask, question       string // the method asked of the client, and its params
	tasks               TaskSpec
}

// namedSpec is the named fake of environ before its behaviours: tools
// tool0 and x (its behaviours add theirs between them), resource
// fake://a, template fake://{x}, prompt p; any version echoed.
func namedSpec(environ []string) *Spec {
	return &Spec{ServerInfo: json.RawMessage(`{"name":"fake","version":"0"}`),
		named:             &named{environ: environ, pages: 1, tasks: TaskSpec{PollMs: 50}},
		Tools:             []json.RawMessage{json.RawMessage(`{"name":"tool0","inputSchema":{"type":"object"}}`), json.RawMessage(`{"name":"x","inputSchema":{"type":"object"}}`)},
		Resources:         []json.RawMessage{json.RawMessage(`{"uri":"fake://a","name":"a"}`)},
		ResourceTemplates: []json.RawMessage{json.RawMessage(`{"uriTemplate":"fake://{x}","name":"x"}`)},
		Prompts:           []json.RawMessage{json.RawMessage(`{"name":"p"}`)},
		Capabilities:      json.RawMessage(`{"prompts":{},"resources":{},"tools":{}}`),
		Answers: map[string]json.RawMessage{
			"resources/read":        json.RawMessage(`{"contents":[{"uri":"fake://a","text":"A"}]}`),
			"prompts/get":           json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"P"}}]}`),
			"resources/subscribe":   json.RawMessage(`{}`),
			"resources/unsubscribe": json.RawMessage(`{}`),
		},
		Faults: []string{"echo-any-version"},
	}
}

// declare sets what the spec declares at path, a capability or one of
// its members, to v (nil: not at all).
func (s *Spec) declare(v any, path ...string) {
	var caps map[string]any
	json.Unmarshal(s.Capabilities, &caps)
	at := caps
	for _, k := range path[:len(path)-1] {
		at, _ = at[k].(map[string]any)
	}
	if k := path[len(path)-1]; v == nil {
		delete(at, k)
	} else if at != nil {
		at[k] = v
	}
	s.Capabilities = mustJSON(caps)
}

// namedRequest answers m as the named fake's behaviours would, before
// the spec does; false leaves m to the spec.
func (s *Spec) namedRequest(st *specState, m msg, id json.RawMessage, out specOut) bool {
	c := s.named
	if slices.Contains(s.MethodNotFound, m.Method) {
		return false
	}
	switch m.Method {
	case "initialize":
		requested, _ := stringMember(m.Params, "protocolVersion")
		if c.supported == "" || requested == c.supported {
			return false
		}
		out.send(s.errorLineData(id, codeInvalidParams, "Unsupported protocol version",
			mustJSON(map[string]any{"supported": []string{c.supported}, "requested": requested})))
	case "resources/read":
		for range c.updates {
			out.send(updated)
		}
		return false
	case "resources/subscribe":
		if c.updates == 0 {
			return false
		}
		out.send(s.resultLine(id, m.Method, json.RawMessage(`{}`)))
		out.send(updated)
	case "tools/list":
		if c.pages < 2 {
			return false
		}
		s.namedPage(m, id, out)
	case "tools/call":
		if s.Tasks != nil && (member(m.Params, "task") != nil || param(m.Params, "name") == "job") {
			return false // the spec's tasks
		}
		s.namedCall(st, m, id, out)
	default:
		return false
	}
	return true
}

// namedPage answers tools/list with pages=N: tool0 and the extras on
// page 0, toolI alone on page I, x too on the last; the cursor of page I
// is "page-I". Pages are made as they are asked for, a million as
// cheaply as three.
func (s *Spec) namedPage(m msg, id json.RawMessage, out specOut) {
	cursor, _ := stringMember(m.Params, "cursor")
	page := 0
	if cursor != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(cursor, "page-"))
		if err != nil || n < 1 || n >= s.named.pages || !strings.HasPrefix(cursor, "page-") {
			out.send(s.errorLine(id, codeInvalidParams, "tools/list: invalid cursor "+strconv.Quote(cursor)))
			return
		}
		page = n
	}
	tools := s.Tools[:len(s.Tools)-1] // all but x
	if page > 0 {
		tools = []json.RawMessage{json.RawMessage(fmt.Sprintf(`{"name":"tool%d","inputSchema":{"type":"object"}}`, page))}
	}
	next := ""
	if page+1 < s.named.pages {
		next = fmt.Sprintf(`,"nextCursor":"page-%d"`, page+1)
	} else {
		tools = append(slices.Clip(tools), s.Tools[len(s.Tools)-1])
	}
	out.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":%s%s}}`, id, mustJSON(tools), next))
}

const updated = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"fake://a"}}`

// namedCall answers a tools/call of the named fake: any tool, "ok" with
// the call's arguments, or what its behaviours make of the call.
func (s *Spec) namedCall(st *specState, m msg, id json.RawMessage, out specOut) {
	n := s.named
	switch {
	case n.hang && n.ask == "":
		return
	case n.crash:
		fmt.Fprintln(os.Stderr, "fake: about to crash")
		fmt.Fprintln(os.Stderr, "fake: panic: something broke")
		os.Exit(3)
	case n.refuse != nil:
		out.send(n.refuse(id))
		return
	case n.echo != "":
		s.echoCall(m, id, out)
		return
	}
	for i := range n.pingFlood {
		out.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"flood-%d","method":"ping"}`, i))
	}
	if n.logFlood > 0 {
		floodLogs(n.logFlood, member(member(m.Params, "_meta"), "progressToken"), out)
	}
	if n.ask == "" {
		out.send(s.namedAnswer(m, id, `""`))
		return
	}
	// The question's answer comes through the loop that reads the client:
	// the call waits for it aside.
	ask := srvID("srv")
	answer := st.await(ask)
	params := ""
	if n.question != "" {
		params = `,"params":` + n.question
	}
	out.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%q%s}`, ask, n.ask, params))
	out.async(func() {
		select {
		case r := <-answer:
			if !n.hang {
				b, _ := json.Marshal(r)
				out.send(s.namedAnswer(m, id, mustString(string(b))))
			}
		case <-out.done:
		}
	})
}

// namedAnswer is the named fake's answer to the call m: its behaviour's,
// or "ok" with the call's arguments and echo, the client's answer to the
// question it asked first, as a JSON string.
func (s *Spec) namedAnswer(m msg, id json.RawMessage, echo string) string {
	if s.named.answer != nil {
		return s.named.answer(id)
	}
	args := cmp.Or(string(member(m.Params, "arguments")), "null")
	return s.resultLine(id, m.Method, json.RawMessage(fmt.Sprintf(`{"content":[{"type":"text","text":"ok"}],"echo":%s,"arguments":%s,"at":%q}`, echo, args, time.Now().Format(time.RFC3339))))
}

// floodLogs sends the notifications of log-flood and of the flood fault:
// n log messages, "log 0" to "log n-1", and after every tenth a progress
// notification for token, if there is one (progress 1, 2, ...); through
// out's bulk writer, as fast as the client reads, where it has one.
func floodLogs(n int, token json.RawMessage, out specOut) {
	each := func(w io.Writer) {
		for i := range n {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"flood","data":"log %d"}}`+"\n", i)
			if token != nil && i%10 == 9 {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d}}`+"\n", token, i/10+1)
			}
		}
	}
	if out.bulk != nil {
		out.bulk(each)
		return
	}
	each(writerFunc(func(p []byte) { out.send(strings.TrimSuffix(string(p), "\n")) }))
}

// bulk runs each with the server's output, buffered, held as one write;
// a framed server's gets a frame a write.
func (s *server) bulk(each func(io.Writer)) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.c.framed != "" {
		each(writerFunc(func(p []byte) { s.put(string(p)) }))
		return
	}
	buf := bufio.NewWriterSize(writerFunc(func(p []byte) { s.put(string(p)) }), 64<<10)
	each(buf)
	buf.Flush()
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) {
	f(p)
	return len(p), nil
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

// shapedSchema builds the inputSchema that schema=K:N names.
func shapedSchema(spec string) (string, error) {
	kind, count, _ := strings.Cut(spec, ":")
	n, err := strconv.Atoi(count)
	each := func(sep string, f func(i int) string) string { // f(0), ..., f(n-1)
		parts := make([]string, max(n, 0))
		for i := range parts {
			parts[i] = f(i)
		}
		return strings.Join(parts, sep)
	}
	switch {
	case err != nil || n < 0:
	case kind == "deep":
		return strings.Repeat(`{"type":"object","properties":{"a":`, n) + `{"type":"string"}` + strings.Repeat(`}}`, n), nil
	case kind == "wide":
		return `{"type":"object","properties":{` + each(",", func(i int) string {
			return fmt.Sprintf(`"p%d":{"type":"object","properties":{"a":{"type":"integer"}}}`, i)
		}) + `}}`, nil
	case kind == "enum":
		return `{"type":"object","properties":{"p1":{"type":"array","items":{"enum":[` + each(",", strconv.Itoa) + `]}}}}`, nil
	case kind == "anyof" || kind == "allof" || kind == "loop":
		bottom := `{"type":"string"}`
		if kind == "loop" {
			bottom = fmt.Sprintf(`{"anyOf":[{"type":"integer"},{"$ref":"#/$defs/d%d"}]}`, n)
		}
		keyword := cmp.Or(map[string]string{"allof": "allOf"}[kind], "anyOf")
		levels := each("", func(i int) string {
			return fmt.Sprintf(`,"d%d":{%q:[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i+1, keyword, i, i)
		})
		return `{"type":"object","$defs":{"d0":` + bottom + levels + fmt.Sprintf(`},"properties":{"p1":{"$ref":"#/$defs/d%d"}}}`, n), nil
	}
	return "", errors.New("want deep:N, wide:N, anyof:N, allof:N, loop:N or enum:N")
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

// envFormBlocks are the text blocks of env-forms' result, the
// environment written as an echoing tool may write it, one block for
// each way; and the environment.
func envFormBlocks(environ []string) ([]map[string]string, map[string]string) {
	environ = slices.Sorted(slices.Values(environ))
	text := strings.Join(environ, "\n")
	env := map[string]string{}
	var each []string
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
		each = append(each, k+"="+base64.StdEncoding.EncodeToString([]byte(v))+" "+base64.RawURLEncoding.EncodeToString([]byte(v)))
	}
	doc, _ := json.Marshal(env)
	var blocks []map[string]string
	for _, t := range []string{text, url.QueryEscape(text), url.PathEscape(text),
		base64.StdEncoding.EncodeToString([]byte(text)), base64.RawURLEncoding.EncodeToString([]byte(text)),
		base64.StdEncoding.EncodeToString([]byte("x" + text)), base64.StdEncoding.EncodeToString([]byte("xy" + text)),
		strings.Join(each, "\n"), string(doc), asciiJSON(string(doc))} {
		blocks = append(blocks, map[string]string{"type": "text", "text": t})
	}
	return blocks, env
}

// echoCall answers a tools/call of echo=MODE: the strings of its
// arguments, written every way envFormBlocks writes an environment, in
// an error, a tool's error or a log message.
func (s *Spec) echoCall(m msg, id json.RawMessage, out specOut) {
	var lines []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case string:
			if key == "env" {
				key, x = x, ""
				x, _ = EnvValue(s.named.environ, key)
			}
			lines = append(lines, key+"="+x)
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		}
	}
	var args any
	json.Unmarshal(member(m.Params, "arguments"), &args)
	walk("", args)
	text := EchoText(lines)
	switch s.named.echo {
	case "error":
		out.send(s.errorLineData(id, -32000, "refused: "+text, mustJSON(map[string]any{"echo": text})))
	case "tool-error":
		out.send(s.resultLine(id, m.Method, mustJSON(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": true})))
	default:
		out.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":` + mustString(text) + `}}`)
		out.send(s.resultLine(id, m.Method, json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)))
	}
}

// EchoText is lines (KEY=VALUE) written every way an echoing tool may
// write them, as envFormBlocks writes an environment, a block a line: for
// the echo of a fake, or of a test's own.
func EchoText(lines []string) string {
	blocks, _ := envFormBlocks(lines)
	var texts []string
	for _, b := range blocks {
		texts = append(texts, b["text"])
	}
	return strings.Join(texts, "\n")
}
