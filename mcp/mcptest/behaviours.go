package mcptest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is the named fake: what its behaviours set, each the row of
// vocabulary that names it, applied by the spec engine (named.go).
type config struct {
	supported, typed, version, notFound, ask, echo, describe string
	stderrEnv, badAnswer, startGate, say, schema             string

	noTools, junk, crash, ignoreExit, batch, oddContent, pingFirst, ignoreEarly bool
	initFirst, hang, rpcError, strayID, listChanged, toolError, env, envForms   bool
	grandchild, deaf, serial                                                    bool

	big, pages, pingFlood, logFlood, busy, updates int
	interleave                                     int  // the tools/call whose answer holds the next (interleave=N)
	idLast                                         bool // its id written last (interleave=N:tail)
	slowStart, slow                                time.Duration
	framed                                         string   // "" (lines), "reply", "greet", "strict" or "exit"
	process                                        bool     // a behaviour only a process of its own shows
	tasks                                          TaskSpec // Statuses nil: no tasks
	taskSupport                                    string   // job's execution.taskSupport
	noTaskCancel, noTaskList                       bool
	spec                                           *Spec
	lat                                            Latency
	environ                                        []string // the server's environment, KEY=VALUE
	dir                                            string   // and its working directory
}

// behaviour is a row of the vocabulary: what a name sets, given its value.
type behaviour struct {
	set func(v string) error
	// withSpec: it applies to a spec server too, shaping what goes out
	// and how the process lives, not what it answers.
	withSpec bool
	// process: only a process of its own shows it (its exit, signals,
	// children, start-up, stderr), never a fake in the test's.
	process bool
}

// vocabulary is the named fake's behaviours, combined with commas in
// MCPV_FAKE (NAME or NAME=VALUE), each setting what it names of c.
func (c *config) vocabulary() map[string]behaviour {
	flag := func(p *bool) func(string) error { return func(string) error { *p = true; return nil } }
	text := func(p *string) func(string) error { return func(v string) error { *p = v; return nil } }
	count := func(p *int) func(string) error {
		return func(v string) (err error) { *p, err = strconv.Atoi(v); return err }
	}
	natural := func(p *int, want string) func(string) error {
		return func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("%q: want %s", v, want)
			}
			*p = n
			return nil
		}
	}
	millis := func(p *time.Duration) func(string) error {
		var n int
		set := natural(&n, "milliseconds")
		return func(v string) error { err := set(v); *p = time.Duration(n) * time.Millisecond; return err }
	}
	lat := func(k string) func(string) error { return func(v string) error { return c.lat.parse(k, v) } }
	spec := func(load func(string) (*Spec, error)) func(string) error {
		return func(v string) (err error) { c.spec, err = load(v); return err }
	}
	return map[string]behaviour{
		"":      {set: flag(new(bool)), withSpec: true},
		"plain": {set: flag(new(bool))}, // a well-behaved server with tools, resources and prompts
		// answer initialize with protocol version V
		"version": {set: text(&c.version)},
		// refuse any other initialize version with -32602 and data.supported
		"supported": {set: text(&c.supported)},
		// declare no capabilities at all
		"no-tools": {set: flag(&c.noTools)},
		// answer method M with -32601 (method not found), declared or not
		"not-found": {set: text(&c.notFound)},
		// tools/call answers with one text block of N bytes
		"big": {set: count(&c.big)},
		// write non-JSON lines on stdout before every answer
		"junk": {set: flag(&c.junk), withSpec: true},
		// tools/call writes to stderr and exits with status 3
		"crash": {set: flag(&c.crash), process: true},
		// ignore stdin EOF, SIGINT and SIGTERM (only SIGKILL ends it); each
		// SIGTERM is logged as {"fake":"SIGTERM"}, the end of stdin as
		// {"fake":"EOF"}
		"ignore-exit": {set: flag(&c.ignoreExit), withSpec: true, process: true},
		// wrap every answer in a JSON array, with a notification
		"batch": {set: flag(&c.batch), withSpec: true},
		// tools/call answers with unknown content, odd spacing and numbers
		"odd-content": {set: flag(&c.oddContent)},
		// before answering tools/call, ping the client and wait for its answer
		"ping-first": {set: flag(&c.pingFirst)},
		// until initialize, answer only ping and initialize, dropping any other
		// request unanswered (as some servers of the initialize era do)
		"ignore-early": {set: flag(&c.ignoreEarly), withSpec: true},
		// a first message other than initialize ends the server with status
		// 1, a line on stderr that names it and a backtrace after (as rmcp's
		// servers do)
		"initialize-first": {set: flag(&c.initFirst), withSpec: true, process: true},
		// never answer tools/call (otherwise a call is answered "ok", with the
		// call's arguments in the result's "arguments"); with ask, once the
		// question is answered
		"hang": {set: flag(&c.hang)},
		// tools/call answers with a JSON-RPC error
		"rpc-error": {set: flag(&c.rpcError)},
		// send a response to an unknown id before each answer
		"stray-id": {set: flag(&c.strayID), withSpec: true},
		// tools/list in N pages of one tool each (the last also lists tool
		// "x"; tools/call answers any name)
		"pages": {set: count(&c.pages)},
		// declare tools.listChanged (a session keeper keeps the list)
		"list-changed": {set: flag(&c.listChanged)},
		// before answering tools/call, send the client a METHOD request
		"ask": {set: text(&c.ask)},
		// tools/call answers with isError: true
		"tool-error": {set: flag(&c.toolError)},
		// tools/list adds tool "typed" (outputSchema: integer n, required);
		// calling it answers structuredContent {"n":OUT} (raw JSON), an image
		// block and a text block
		"typed": {set: text(&c.typed)},
		// tools/call answers structuredContent {"env":{...},"cwd":DIR}: the
		// server's own environment and working directory
		"env": {set: flag(&c.env)},
		// tools/call answers with the server's environment (NAME=value lines)
		// written every way an echoing tool may write it: as is, URL-encoded,
		// base64 (standard and URL alphabets, padded or not, the whole text
		// and each value alone), and as a JSON document in a text block;
		// structuredContent {"env":{...}}; with ask, the question's message
		// holds every one of those too
		"env-forms": {set: flag(&c.envForms)},
		// tools/call echoes each string of its arguments (at any depth, as
		// KEY=VALUE; an argument env=NAME echoes the server's variable NAME
		// instead) written every way env-forms writes the environment: MODE
		// error answers a JSON-RPC error whose message and data hold them,
		// tool-error a result with isError: true whose text does, log sends
		// them in a log message before answering "ok"
		"echo": {set: text(&c.echo)},
		// tool x's description holds the server's variable NAME, written
		// every way env-forms writes the environment, after an order that an
		// audit reports, quoting it
		"describe": {set: text(&c.describe)},
		// at start, write 32,760 'x' and then $V to stderr in one write, so
		// that the value straddles the 32 KiB reads of the reader
		"stderr-env": {set: text(&c.stderrEnv), withSpec: true, process: true},
		// tools/call answers with a message that does not decode: nul (a raw
		// NUL in a string), code (an error code that is no integer), error
		// (an error that is no object) or deep (nested 10001 deep)
		"bad-answer": {set: text(&c.badAnswer)},
		// before answering tools/call, send N pings without waiting
		"ping-flood": {set: count(&c.pingFlood)},
		// before answering tools/call, send N log messages
		// (notifications/message, data "log I") and, when the call asked for
		// progress, N/10 progress notifications among them
		"log-flood": {set: count(&c.logFlood)},
		// at start, leave a child (sleep 300) in the server's process group
		"grandchild": {set: flag(&c.grandchild), withSpec: true, process: true},
		// at start, write "fake: starting up" on stderr and then neither read
		// nor write anything for MS milliseconds (a cold npx)
		"slow-start": {set: millis(&c.slowStart), withSpec: true, process: true},
		// at start, write "fake: starting up" on stderr and then neither read
		// nor write anything until PATH exists (a start that ends when the
		// test says, not after a time a busy machine may miss)
		"start-gate": {set: text(&c.startGate), withSpec: true, process: true},
		// at start (after slow-start's line), write "fake: VAR is $VAR" on stderr
		"say": {set: text(&c.say), withSpec: true, process: true},
		// wait MS milliseconds before each answer
		"slow": {set: millis(&c.slow), withSpec: true},
		// at start, spin N goroutines for ever (a server starving the CPU)
		"busy": {set: natural(&c.busy, "a number of goroutines"), withSpec: true, process: true},
		// the answer to the Nth tools/call (counted from 1) is written with
		// the next answer inside it, as two writers that do not take turns
		// may write them: its start, the next answer whole with its newline,
		// then its rest; interleave=N:tail puts its id at its end, so that
		// only the rest names it
		"interleave": {set: func(v string) error {
			n, tail, _ := strings.Cut(v, ":")
			i, err := strconv.Atoi(n)
			if err != nil || i < 1 || tail != "" && tail != "tail" {
				return fmt.Errorf("%q: want N or N:tail", v)
			}
			c.interleave, c.idLast = i, tail == "tail"
			return nil
		}},
		// once initialized, never read stdin again (writes to it block once
		// the pipe is full)
		"deaf": {set: flag(&c.deaf), withSpec: true, process: true},
		// tools/list adds tool "shaped", whose inputSchema is deep:N (N
		// object schemas nested under property a), wide:N (N object
		// properties, each of one integer property) or anyof:N (property p1
		// is a chain of N anyOf levels, each of two references to the level
		// below, ending in a string: quick to compile, and 2^N paths to find
		// that a value is no string), allof:N (the same with allOf: 2^N paths
		// for a string), loop:N (the anyOf chain whose bottom refers back to
		// its top) or enum:N (p1 is an array of integers from an enum of
		// 0..N-1)
		"schema": {set: func(v string) (err error) { c.schema, err = shapedSchema(v); return err }},
		// frame messages LSP-style, both ways (Content-Length: N, a blank
		// line, N bytes); a header line that is not one is answered with a
		// framed parse error. content-length=greet instead sends a framed log
		// message at start and skips such lines silently;
		// content-length=strict skips them silently and waits for the client
		// to speak first, in frames; content-length=exit writes "bad header"
		// on stderr and exits 1 at the first such line
		"content-length": {set: func(v string) error {
			c.framed = "reply"
			if v == "greet" || v == "strict" || v == "exit" {
				c.framed = v
			}
			c.process = c.process || v == "exit"
			return nil
		}, withSpec: true},
		// resources.subscribe: each resources/subscribe is followed by one
		// notifications/resources/updated, and each resources/read is
		// preceded by N of them
		"updates": {set: count(&c.updates)},
		// tasks, and a tool "job" whose task-augmented calls make task-N, each
		// tasks/get moving it one status S along (TaskSpec.Statuses)
		"tasks": {set: func(v string) error {
			c.tasks.Statuses = strings.Split(v, "/")
			for _, st := range c.tasks.Statuses {
				if !slices.Contains(taskStatuses, st) {
					return fmt.Errorf("unknown task status %q", st)
				}
			}
			return nil
		}},
		// job's execution.taskSupport: optional (default), required or forbidden
		"task-support": {set: func(v string) error {
			if !slices.Contains([]string{"optional", "required", "forbidden"}, v) {
				return fmt.Errorf("%q: want optional, required or forbidden", v)
			}
			c.taskSupport = v
			return nil
		}},
		// grant ttl MS whatever was asked (default: the ttl asked, or 60000)
		"task-ttl": {set: func(v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			c.tasks.TTL = &n
			return err
		}},
		"no-task-cancel": {set: flag(&c.noTaskCancel)},                    // declare tasks without tasks.cancel
		"no-task-list":   {set: flag(&c.noTaskList)},                      // declare tasks without tasks.list
		"poll":           {set: natural(&c.tasks.PollMs, "milliseconds")}, // the tasks' pollInterval (default 50; 0 leaves it out)
		// answer each tools/call after D (a Go duration); calls are answered
		// concurrently, each on its own clock
		"delay": {set: lat("delay")},
		// each N-th tools/call takes D instead (a known tail: with
		// delay=20ms,tail=10/400ms, p50 is 20 ms and p95 400 ms)
		"tail": {set: lat("tail")},
		// the N-th tools/call takes D (see Latency)
		"stall": {set: lat("stall")},
		// answer one request at a time: a tools/call that takes its time
		// (delay, tail, stall) holds up every request after it, as a server
		// does that reads its next request once it has answered
		"serial": {set: flag(&c.serial)},
		// answer every request from the JSON spec in FILE (see Spec) instead;
		// of the others only those withSpec apply, and any other given with
		// it is an error
		"spec": {set: spec(LoadSpec), withSpec: true},
		// the spec of an app fixture, AppSpec(VARIANT) (apps.go), as spec=
		// would read it
		"app": {set: spec(func(v string) (*Spec, error) {
			if !slices.Contains(AppVariants, v) {
				return nil, fmt.Errorf("want one of %v", AppVariants)
			}
			return ParseSpec([]byte(AppSpec(v)))
		}), withSpec: true},
	}
}

// parseConfig reads the behaviours s names, each once, by vocabulary.
func parseConfig(s string) (config, error) {
	c := config{pages: 1, taskSupport: "optional", tasks: TaskSpec{PollMs: 50}}
	vocabulary := c.vocabulary()
	var given []string
	for item := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(item, "=")
		b, ok := vocabulary[k]
		if !ok {
			return c, fmt.Errorf("unknown fake behaviour %q", k)
		}
		if err := b.set(v); err != nil {
			return c, fmt.Errorf("%s=%s: %w", k, v, err)
		}
		c.process = c.process || b.process
		given = append(given, k)
	}
	if c.spec == nil {
		return c, nil
	}
	for _, k := range given {
		if !vocabulary[k].withSpec {
			return c, fmt.Errorf("%s does not apply to a spec server", k)
		}
	}
	if c.ignoreEarly && c.spec.Era == "modern" {
		return c, fmt.Errorf("ignore-early does not apply to a spec server of the modern era, which has no initialize")
	}
	return c, nil
}
