package mcptest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
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
//	              each SIGTERM is logged as {"fake":"SIGTERM"}, the end of stdin
//	              as {"fake":"EOF"}
//	batch         wrap every answer in a JSON array, with a notification
//	odd-content   tools/call answers with unknown content, odd spacing and numbers
//	ping-first    before answering tools/call, ping the client and wait for its answer
//	ignore-early  until initialize, answer only ping and initialize, dropping any
//	              other request unanswered (as some servers of the initialize era do)
//	initialize-first  a first message other than initialize ends the server
//	              with status 1, a line on stderr that names it and a
//	              backtrace after (as rmcp's servers do)
//	hang          never answer tools/call (otherwise a call is answered "ok", with
//	              the call's arguments in the result's "arguments"); with ask,
//	              once the question is answered
//	rpc-error     tools/call answers with a JSON-RPC error
//	stray-id      send a response to an unknown id before each answer
//	pages=N       tools/list in N pages of one tool each (the last also
//	              lists tool "x"; tools/call answers any name)
//	list-changed  declare tools.listChanged (a session keeper keeps the list)
//	ask=METHOD    before answering tools/call, send the client a METHOD request
//	tool-error    tools/call answers with isError: true
//	typed=OUT     tools/list adds tool "typed" (outputSchema: integer n, required);
//	              calling it answers structuredContent {"n":OUT} (raw JSON), an
//	              image block and a text block
//	env           tools/call answers structuredContent {"env":{...},"cwd":DIR}: the
//	              server's own environment and working directory
//	env-forms     tools/call answers with the server's environment (NAME=value
//	              lines) written every way an echoing tool may write it: as
//	              is, URL-encoded, base64 (standard and URL alphabets, padded
//	              or not, the whole text and each value alone), and as a JSON
//	              document in a text block; structuredContent {"env":{...}}; with
//	              ask, the question's message holds every one of those too
//	echo=MODE     tools/call echoes each string of its arguments (at any depth,
//	              as KEY=VALUE; an argument env=NAME echoes the server's
//	              variable NAME instead) written every way env-forms writes
//	              the environment: MODE error answers a JSON-RPC error whose
//	              message and data hold them, tool-error a result with
//	              isError: true whose text does, log sends them in a log
//	              message before answering "ok"
//	describe=NAME tool x's description holds the server's variable NAME,
//	              written every way env-forms writes the environment,
//	              after an order that an audit reports, quoting it
//	stderr-env=V  at start, write 32,760 'x' and then $V to stderr in one write,
//	              so that the value straddles the 32 KiB reads of the reader
//	supported=V   refuse any other initialize version with -32602 and data.supported
//	bad-answer=K  tools/call answers with a message that does not decode: nul (a
//	              raw NUL in a string), code (an error code that is no integer),
//	              error (an error that is no object) or deep (nested 10001 deep)
//	ping-flood=N  before answering tools/call, send N pings without waiting
//	log-flood=N   before answering tools/call, send N log messages
//	              (notifications/message, data "log I") and, when the call
//	              asked for progress, N/10 progress notifications among them
//	grandchild    at start, leave a child (sleep 300) in the server's process group
//	slow-start=MS at start, write "fake: starting up" on stderr and then neither
//	              read nor write anything for MS milliseconds (a cold npx)
//	start-gate=PATH at start, write "fake: starting up" on stderr and then neither
//	              read nor write anything until PATH exists (a start that ends
//	              when the test says, not after a time a busy machine may miss)
//	say=VAR       at start (after slow-start's line), write "fake: VAR is $VAR" on stderr
//	slow=MS       wait MS milliseconds before each answer
//	busy=N        at start, spin N goroutines for ever (a server starving the CPU)
//	interleave=N  the answer to the Nth tools/call (counted from 1) is written
//	              with the next answer inside it, as two writers that do not
//	              take turns may write them: its start, the next answer whole
//	              with its newline, then its rest; interleave=N:tail puts its
//	              id at its end, so that only the rest names it
//	deaf          once initialized, never read stdin again (writes to it block
//	              once the pipe is full)
//	schema=K:N    tools/list adds tool "shaped", whose inputSchema is deep:N (N
//	              object schemas nested under property a), wide:N (N object
//	              properties, each of one integer property) or anyof:N
//	              (property p1 is a chain of N anyOf levels, each of two
//	              references to the level below, ending in a string: quick to
//	              compile, and 2^N paths to find that a value is no string),
//	              allof:N (the same with allOf: 2^N paths for a string), loop:N
//	              (the anyOf chain whose bottom refers back to its top) or
//	              enum:N (p1 is an array of integers from an enum of 0..N-1)
//	content-length  frame messages LSP-style, both ways (Content-Length: N, a
//	              blank line, N bytes); a header line that is not one is answered
//	              with a framed parse error. content-length=greet instead sends a
//	              framed log message at start and skips such lines silently;
//	              content-length=strict skips them silently and waits for the
//	              client to speak first, in frames; content-length=exit writes
//	              "bad header" on stderr and exits 1 at the first such line
//	updates=N     resources.subscribe: each resources/subscribe is followed by one
//	              notifications/resources/updated, and each resources/read is
//	              preceded by N of them
//	tasks=S[/S...]  tasks, and a tool "job" whose task-augmented calls make task-N,
//	                each tasks/get moving it one status S along (TaskSpec.Statuses)
//	task-support=X  job's execution.taskSupport: optional (default), required or forbidden
//	task-ttl=MS     grant ttl MS whatever was asked (default: the ttl asked, or 60000)
//	no-task-cancel  declare tasks without tasks.cancel
//	no-task-list    declare tasks without tasks.list
//	poll=MS         the tasks' pollInterval (default 50; 0 leaves it out)
//	delay=D         answer each tools/call after D (a Go duration); calls are
//	                answered concurrently, each on its own clock
//	tail=N/D        each N-th tools/call takes D instead (a known tail: with
//	                delay=20ms,tail=10/400ms, p50 is 20 ms and p95 400 ms)
//	stall=N/D       the N-th tools/call takes D (see Latency)
//	serial          answer one request at a time: a tools/call that takes
//	                its time (delay, tail, stall) holds up every request
//	                after it, as a server does that reads its next request
//	                once it has answered
//	spec=FILE       answer every request from the JSON spec in FILE (see Spec)
//	                instead; of the others only those in withSpec apply, and
//	                any other given with it is an error
//	app=VARIANT     the spec of an app fixture, AppSpec(VARIANT) (apps.go), as
//	                spec= would read it
type config struct {
	supported   string
	typed       string
	version     string
	noTools     bool
	notFound    string
	big         int
	junk        bool
	crash       bool
	ignoreExit  bool
	batch       bool
	oddContent  bool
	pingFirst   bool
	ignoreEarly bool
	initFirst   bool // initialize-first
	hang        bool
	rpcError    bool
	strayID     bool
	pages       int
	listChanged bool
	ask         string
	toolError   bool
	env         bool
	envForms    bool
	stderrEnv   string
	echo        string
	describe    string
	badAnswer   string
	pingFlood   int
	logFlood    int
	grandchild  bool
	slowStart   time.Duration
	startGate   string
	say         string
	slow        time.Duration
	busy        int
	deaf        bool
	serial      bool // one request at a time
	interleave  int  // the tools/call whose answer holds the next (interleave=N)
	idLast      bool // its id written last (interleave=N:tail)
	updates     int
	schema      string
	framed      string // "" (lines), "reply", "greet", "strict" or "exit"
	t           taskConfig
	spec        *Spec
	lat         Latency
	environ     []string // the server's environment, KEY=VALUE
	dir         string   // and its working directory
}

// withSpec are the behaviours that apply to a spec server: they shape
// what goes out and how the process lives, not what it answers.
var withSpec = []string{"", "spec", "app", "junk", "stray-id", "batch", "content-length", "ignore-exit", "grandchild", "stderr-env", "ignore-early", "initialize-first", "slow-start", "start-gate", "say", "slow", "busy", "deaf"}

func parseConfig(s string) (config, error) {
	c := config{pages: 1, t: taskConfig{support: "optional", poll: 50}}
	flags := map[string]*bool{
		"no-tools":         &c.noTools,
		"junk":             &c.junk,
		"crash":            &c.crash,
		"ignore-exit":      &c.ignoreExit,
		"batch":            &c.batch,
		"odd-content":      &c.oddContent,
		"ping-first":       &c.pingFirst,
		"initialize-first": &c.initFirst,
		"ignore-early":     &c.ignoreEarly,
		"hang":             &c.hang,
		"rpc-error":        &c.rpcError,
		"stray-id":         &c.strayID,
		"list-changed":     &c.listChanged,
		"env":              &c.env,
		"env-forms":        &c.envForms,
		"tool-error":       &c.toolError,
		"grandchild":       &c.grandchild,
		"deaf":             &c.deaf,
		"serial":           &c.serial,
	}
	texts := map[string]*string{
		"version":    &c.version,
		"not-found":  &c.notFound,
		"ask":        &c.ask,
		"stderr-env": &c.stderrEnv,
		"echo":       &c.echo,
		"describe":   &c.describe,
		"typed":      &c.typed,
		"supported":  &c.supported,
		"bad-answer": &c.badAnswer,
		"start-gate": &c.startGate,
		"say":        &c.say,
	}
	counts := map[string]*int{
		"updates":    &c.updates,
		"big":        &c.big,
		"log-flood":  &c.logFlood,
		"pages":      &c.pages,
		"ping-flood": &c.pingFlood,
	}
	var given []string
	for item := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(item, "=")
		given = append(given, k)
		if p, ok := flags[k]; ok {
			*p = true
			continue
		}
		if p, ok := texts[k]; ok {
			*p = v
			continue
		}
		if p, ok := counts[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return c, err
			}
			*p = n
			continue
		}
		switch k {
		case "plain", "":
		case "content-length":
			c.framed = "reply"
			if v == "greet" || v == "strict" || v == "exit" {
				c.framed = v
			}
		case "schema":
			if _, err := shapedSchema(v); err != nil {
				return c, err
			}
			c.schema = v
		case "slow-start", "slow":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return c, fmt.Errorf("%s=%q: want milliseconds", k, v)
			}
			*map[string]*time.Duration{"slow": &c.slow, "slow-start": &c.slowStart}[k] = time.Duration(n) * time.Millisecond
		case "busy":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return c, fmt.Errorf("busy=%q: want a number of goroutines", v)
			}
			c.busy = n
		case "interleave":
			n, tail, _ := strings.Cut(v, ":")
			i, err := strconv.Atoi(n)
			if err != nil || i < 1 || tail != "" && tail != "tail" {
				return c, fmt.Errorf("interleave=%q: want N or N:tail", v)
			}
			c.interleave, c.idLast = i, tail == "tail"
		case "delay", "tail", "stall":
			if err := c.lat.parse(k, v); err != nil {
				return c, err
			}
		case "spec":
			spec, err := LoadSpec(v)
			if err != nil {
				return c, err
			}
			c.spec = spec
		case "app":
			if !slices.Contains(AppVariants, v) {
				return c, fmt.Errorf("app=%s: want one of %v", v, AppVariants)
			}
			spec, err := ParseSpec([]byte(AppSpec(v)))
			if err != nil {
				return c, err
			}
			c.spec = spec
		default:
			if err := parseTaskOption(&c.t, k, v); err != nil {
				return c, err
			}
		}
	}
	if c.spec == nil {
		return c, nil
	}
	for _, k := range given {
		if !slices.Contains(withSpec, k) {
			return c, fmt.Errorf("%s does not apply to a spec server", k)
		}
	}
	if c.ignoreEarly && c.spec.Era == "modern" {
		return c, fmt.Errorf("ignore-early does not apply to a spec server of the modern era, which has no initialize")
	}
	return c, nil
}

type taskConfig struct {
	statuses []string // nil: no task support
	support  string   // optional, required or forbidden
	ttl      *int64   // overrides the ttl the client asked for
	noCancel bool
	noList   bool
	poll     int // 0: no pollInterval
}

// parseTaskOption reads task behaviour k; any other k is an error.
func parseTaskOption(c *taskConfig, k, v string) error {
	switch k {
	case "tasks":
		c.statuses = strings.Split(v, "/")
		for _, st := range c.statuses {
			if !slices.Contains(taskStatuses, st) {
				return fmt.Errorf("unknown task status %q", st)
			}
		}
	case "task-support":
		switch v {
		case "optional", "required", "forbidden":
			c.support = v
		default:
			return fmt.Errorf("task-support=%q: want optional, required or forbidden", v)
		}
	case "task-ttl":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return err
		}
		c.ttl = &n
	case "no-task-cancel":
		c.noCancel = true
	case "no-task-list":
		c.noList = true
	case "poll":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("poll=%q: want milliseconds", v)
		}
		c.poll = n
	default:
		return fmt.Errorf("unknown fake behaviour %q", k)
	}
	return nil
}
