package mcp

// The modern era of the protocol (2026-07-28,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle):
// no initialize handshake and no session. The client learns what the server
// offers from server/discover, and every request carries the protocol
// version, the client's capabilities and its identity in params._meta.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// ModernVersion is the first protocol version of the modern era.
const ModernVersion = "2026-07-28"

// ModernVersions are the modern-era versions mcpv speaks, newest first.
var ModernVersions = []string{ModernVersion}

// IsModern reports whether version is a modern-era version mcpv speaks.
func IsModern(version string) bool { return slices.Contains(ModernVersions, version) }

// The _meta keys of a modern request and of server/discover's result.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// Error codes of the modern era.
const (
	CodeHeaderMismatch                    = -32020
	CodeMissingRequiredClientCapabilities = -32021
	CodeUnsupportedProtocolVersion        = -32022
)

// DefaultDiscoverWait is how long the server/discover probe waits for an
// answer before it asks whether the server is up at all (a ping). It is no
// deadline: a server that is still starting (a cold npx, uvx or go run)
// answers neither, and mcpv waits for it up to the connect timeout.
const DefaultDiscoverWait = 5 * time.Second

// probe tries the modern era first, as a client of both eras should
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio#backward-compatibility):
// it sends server/discover and takes the answer of a modern server. A
// modern server's error (-32020, -32021, -32022 again) is final, and so is
// no version in common in either era, the caller's context ending, or the
// server wanting authorization. Any other answer (another error, a result
// without a modern version) means a server of the initialize era.
//
// Silence is not an answer. A JSON-RPC server must answer every request
// (over HTTP every POST gets a status, and the probe waits for it),
// if only with "method not found", so a server that says nothing may still
// be starting (a cold npx, uvx or go run). After opts.DiscoverWait, probe
// sends a ping (allowed before initialize in every version): a server that
// answers the ping but not the server/discover sent before it is up and
// ignoring the probe, as some servers of the initialize era do with
// requests before initialize, and initialize goes out. So it does after
// twice that wait again with no answer at all, for a server that answers
// nothing before initialize, not even ping. The probe stays pending: a
// modern answer that arrives before initialize's is still taken, and a
// server that reads its input in order answers the probe first. A
// successful answer to initialize settles the initialize era; a refusal
// does not (a server of both eras may refuse initialize while it answers
// server/discover): it stands only if server/discover is then answered as
// a server of the initialize era would, or not within twice DiscoverWait.
// The reader delivers responses in the order they arrive, so each
// decision first looks whether server/discover's response came before the
// one that prompted it. The outcome depends on what the server
// answers and in what order, never on how long it takes to start; ctx
// (the connect timeout) is the only deadline.
//
// When the server is of the initialize era, probe returns final false and,
// when initialize has already gone out, that request.
//
// known, when not nil, is the client of a remembered era being confirmed:
// a modern answer settles its era; disc, when not nil, is its
// server/discover sent already, whose answer the probe takes as its own.
func probe(ctx context.Context, s *Session, opts ClientOptions, known *Client, disc *request) (c *Client, init *request, final bool, err error) {
	offered, caps := offer(opts)
	initParams, err := initializeParams(offered, caps, opts.Info)
	if err != nil {
		return nil, nil, true, err
	}
	wait := opts.DiscoverWait
	if wait <= 0 {
		wait = DefaultDiscoverWait
	}
	// The probe's requests end silently: a server of the initialize era
	// must get nothing about them before initialize.
	pctx := withSilentCancel(ctx)
	var ping *request
	defer func() {
		for _, r := range []*request{disc, ping} {
			if r != nil {
				r.abandon()
			}
		}
	}()
	// decide settles the probe on server/discover's response.
	decide := func(m message) (*Client, *request, bool, error) {
		raw, derr := disc.take(pctx, m)
		disc = nil
		c, derr := c.discovered(pctx, raw, derr)
		if derr == nil || !legacyAnswer(ctx, derr) {
			derr = unprobed(ctx, derr)
			if init != nil {
				// Forgotten: the modern era is settled. initialize only
				// goes out before this on a transport that writes in
				// order, never HTTP, the one that sends a version header.
				init.abandon()
			}
			return c, nil, true, derr
		}
		if init == nil {
			if init, err = fallBack(pctx, s, initParams); err != nil {
				return nil, nil, true, err
			}
		}
		return nil, init, false, nil
	}
	c = known
	if c == nil {
		c = newModernClient(s, opts, ModernVersion)
	}
	if disc == nil {
		disc, err = s.begin(pctx, "server/discover", c.stamp(nil))
	}
	if err != nil {
		if legacyAnswer(ctx, err) {
			init, err = fallBack(pctx, s, initParams)
			return nil, init, err != nil, err
		}
		return nil, nil, true, unprobed(ctx, err)
	}
	silence := opts.silenceWait
	if silence <= 0 {
		silence = 2 * wait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var pinged, initialized <-chan message
	var refused <-chan time.Time // set while initialize's error waits for the probe's answer
	pingSent := false
	for {
		select {
		case m := <-disc.ch:
			return decide(m)
		case <-timer.C:
			if cw, ok := s.t.(ConcurrentWriter); ok && cw.ConcurrentWrites() {
				// Each message is its own exchange (HTTP: a POST, which
				// gets an answer of its own, an HTTP status at least), so
				// the probe's is awaited; and concurrent exchanges may be
				// answered in any order, which would make a ping's answer
				// say nothing about the probe's.
				continue
			}
			if !pingSent {
				pingSent = true
				if ping, err = s.begin(pctx, "ping", nil); err == nil {
					pinged = ping.ch
				}
				timer.Reset(silence)
				continue
			}
			// Silence still, even to the ping: perhaps a server of the
			// initialize era that answers nothing before initialize, or
			// one still starting. initialize goes out; a server that
			// reads its input in order answers the probe first if it can,
			// and that answer is still taken.
			if init == nil {
				if init, err = fallBack(pctx, s, initParams); err != nil {
					return nil, nil, true, err
				}
				initialized = init.ch
			}
		case m := <-pinged:
			// Any answer to the ping, even one that cannot be read, shows
			// the server up.
			pinged = nil
			ping.take(pctx, m)
			ping = nil
			select {
			case m := <-disc.ch:
				return decide(m) // it came first
			default:
			}
			if init == nil {
				if init, err = fallBack(pctx, s, initParams); err != nil {
					return nil, nil, true, err
				}
				initialized = init.ch
			}
		case m := <-initialized:
			init.ch <- m // put back (the channel has room again) for whoever takes init
			select {
			case dm := <-disc.ch:
				return decide(dm)
			default:
			}
			if m.Error == nil && m.local == nil {
				// initialize succeeded while server/discover is
				// unanswered: a server of the initialize era that
				// ignores the probe.
				return nil, init, false, nil
			}
			// initialize refused decides nothing: a server of both eras
			// that reads requests concurrently may refuse it ("duplicate
			// initialize") while it is still answering server/discover.
			// The refusal is kept for a server of the initialize era,
			// which answers the probe as one or not at all: the probe's
			// answer is awaited as long as silence to the ping is, then
			// the refusal is the outcome.
			initialized = nil
			giveUp := time.NewTimer(silence)
			defer giveUp.Stop()
			refused = giveUp.C
		case <-refused:
			return nil, init, false, nil
		case <-s.done:
			if init != nil {
				return nil, init, false, nil // its wait reports the end
			}
			return nil, nil, true, s.Err()
		case <-ctx.Done():
			if init != nil {
				init.abandon()
			}
			return nil, nil, true, context.Cause(ctx)
		}
	}
}

// fallBack sends initialize with params, leaving its answer to be taken.
func fallBack(ctx context.Context, s *Session, params json.RawMessage) (*request, error) {
	if v, ok := s.t.(VersionSetter); ok {
		v.SetProtocolVersion("") // initialize goes out without a version header
	}
	return s.begin(ctx, "initialize", params)
}

// legacyAnswer reports whether the probe's failure err says "a server of
// the initialize era": a JSON-RPC error that is not a modern one, a
// discover result with no modern version but an older one in common, or an
// HTTP 4xx without a JSON-RPC body. Anything else (the caller giving up,
// authorization failing, the server gone) is an answer in itself.
func legacyAnswer(ctx context.Context, err error) bool {
	var ce *CallError
	var ve *VersionError
	var se *StatusError
	switch {
	case ctx.Err() != nil:
		return false
	case errors.As(err, &ce):
		code := ce.Err.Code
		return code != CodeHeaderMismatch && code != CodeMissingRequiredClientCapabilities && code != CodeUnsupportedProtocolVersion
	case errors.As(err, &ve):
		return ve.ServerSupports == nil || mutualVersion(ve.ServerSupports) != ""
	case errors.As(err, &se):
		return se.Status >= 400 && se.Status < 500 && se.Status != 401 && se.Status != 403
	case errors.As(err, new(oddAnswer)):
		return true // an HTTP answer with no JSON-RPC response in it
	}
	return false
}

// probeFailure is a failure of the probe that no modern server's answer
// explains (the server unreachable, gone, or refusing at the HTTP level):
// its message leaves out server/discover, which the user did not ask for
// and the server may never have heard of. --verbose shows the request.
type probeFailure struct{ err error }

func (p *probeFailure) Error() string {
	if me := (*methodError)(nil); errors.As(p.err, &me) && me.Method == "server/discover" {
		return me.Err.Error()
	}
	return p.err.Error()
}
func (p *probeFailure) Unwrap() error { return p.err }

// unprobed wraps err as a *probeFailure unless it is a server's JSON-RPC
// answer, a version mismatch or the caller's own end.
func unprobed(ctx context.Context, err error) error {
	var ce *CallError
	var ve *VersionError
	if err == nil || ctx.Err() != nil || errors.As(err, &ce) || errors.As(err, &ve) {
		return err
	}
	return &probeFailure{err}
}

// discover negotiates the modern era with server/discover: the newest
// version both sides speak, offered first as version. It returns the
// client, or an error saying why the server is not (or not in a version
// mcpv speaks) a modern one.
func discover(ctx context.Context, s *Session, opts ClientOptions, version string) (*Client, error) {
	c := newModernClient(s, opts, version)
	raw, err := c.s.Call(ctx, "server/discover", c.stamp(nil))
	return c.discovered(ctx, raw, err)
}

// newModernClient is a client of the modern era offering version, before
// server/discover has been answered.
func newModernClient(s *Session, opts ClientOptions, version string) *Client {
	c := &Client{s: s, opts: opts, modernCaps: withExtensions(opts.Capabilities)}
	c.e.Store(&era{modern: true, version: version})
	if v, ok := s.t.(VersionSetter); ok {
		v.SetProtocolVersion(version) // HTTP: MCP-Protocol-Version from the first request on
	}
	return c
}

// discovered completes discover with the answer to server/discover: raw,
// or err.
func (c *Client) discovered(ctx context.Context, raw json.RawMessage, err error) (*Client, error) {
	s, opts, version := c.s, c.opts, c.era().version
	offer := func(v string) {
		version = v
		c.e.Store(&era{modern: true, version: v})
		if vs, ok := s.t.(VersionSetter); ok {
			vs.SetProtocolVersion(v)
		}
	}
	if supported, ok := unsupportedVersion(err); ok {
		// One retry with the newest version both speak, even the same
		// one: a server may refuse a first request for reasons of its own.
		v := newestModern(supported)
		if v == "" || (opts.ProtocolVersion != "" && v != opts.ProtocolVersion) {
			return nil, &VersionError{Offered: version, ServerSupports: supported, Accepted: acceptedModern(opts)}
		}
		offer(v)
		raw, err = c.s.Call(ctx, "server/discover", c.stamp(nil))
	}
	if err != nil {
		return nil, err
	}
	var res struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
		Instructions      *string                    `json:"instructions"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || !rawjson.IsObject(raw) {
		return nil, &TransportError{Op: "server/discover", Err: fmt.Errorf("malformed result: %.200s", raw)}
	}
	if !slices.Contains(res.SupportedVersions, version) {
		v := newestModern(res.SupportedVersions)
		if v == "" || opts.ProtocolVersion != "" {
			return nil, &VersionError{Offered: version, ServerSupports: res.SupportedVersions, Accepted: acceptedModern(opts)}
		}
		offer(v)
	}
	c.e.Store(&era{modern: true, version: version, capabilities: res.Capabilities,
		initResult: discoveredInfo(version, raw, res.Meta[MetaServerInfo], res.Instructions), discovered: raw})
	return c, nil
}

// discoveredInfo is what info shows of a modern server: the shape of an
// initialize result (protocolVersion, capabilities, serverInfo,
// instructions) plus supportedVersions, each as the server sent it.
func discoveredInfo(version string, discovered json.RawMessage, serverInfo json.RawMessage, instructions *string) json.RawMessage {
	var b []byte
	b = append(b, `{"protocolVersion":`...)
	b = append(b, mustJSON(version)...)
	rawjson.ForEachValidMember(discovered, func(k string, v []byte) error {
		if k == "capabilities" {
			b = append(append(b, `,"capabilities":`...), v...)
		}
		return nil
	})
	if len(serverInfo) > 0 {
		b = append(append(b, `,"serverInfo":`...), serverInfo...)
	}
	if instructions != nil {
		b = append(append(b, `,"instructions":`...), mustJSON(*instructions)...)
	}
	rawjson.ForEachValidMember(discovered, func(k string, v []byte) error {
		if k == "supportedVersions" {
			b = append(append(b, `,"supportedVersions":`...), v...)
		}
		return nil
	})
	return append(b, '}')
}

// stamp adds the modern era's _meta to a request's params: the protocol
// version, the client's capabilities and identity, and the log level when
// one was asked for. Keys the params already carry are kept.
func (c *Client) stamp(params json.RawMessage) json.RawMessage {
	if p, err := withMeta(params, c.stampEntries()); err == nil {
		params = p
	}
	return params
}

// stampEntries are the _meta members every modern request carries.
func (c *Client) stampEntries() []metaEntry {
	entries := []metaEntry{
		{MetaProtocolVersion, mustJSON(c.era().version)},
		{MetaClientCapabilities, c.modernCaps},
		{MetaClientInfo, mustJSON(c.opts.Info)},
	}
	if c.opts.LogLevel != "" {
		entries = append(entries, metaEntry{MetaLogLevel, mustJSON(c.opts.LogLevel)})
	}
	return entries
}

// unsupportedVersion reads the versions a server lists when it refuses the
// requested one with -32022 (data.supported).
func unsupportedVersion(err error) ([]string, bool) {
	var ce *CallError
	if !errors.As(err, &ce) {
		return nil, false
	}
	return serverVersions(ce.Err, CodeUnsupportedProtocolVersion)
}

// newestModern returns the newest modern version mcpv speaks among
// supported, or "".
func newestModern(supported []string) string {
	for _, v := range ModernVersions {
		if slices.Contains(supported, v) {
			return v
		}
	}
	return ""
}

func acceptedModern(opts ClientOptions) []string {
	if opts.ProtocolVersion != "" {
		return []string{opts.ProtocolVersion}
	}
	return ModernVersions
}

// Modern reports whether the session speaks the modern era.
func (c *Client) Modern() bool { return c.era().modern }

// ResultTypeError is a modern result whose resultType mcpv does not
// handle: never to be taken for a success.
type ResultTypeError struct {
	Method, Type string
	Rounds       int // set when the server still asked for input after this many rounds
}

func (e *ResultTypeError) Error() string {
	if e.Rounds > 0 {
		return fmt.Sprintf("%s: the server still asks for input after %d rounds; giving up", e.Method, e.Rounds)
	}
	if e.Type == "input_required" {
		return fmt.Sprintf("%s: the server asks for input (resultType input_required), which this method cannot take", e.Method)
	}
	return fmt.Sprintf("%s: the result is of an unknown resultType %q", e.Method, e.Type)
}

// MaxInputRounds bounds the rounds of a multi-round-trip request: a server
// that keeps asking for input is not followed for ever.
const MaxInputRounds = 16

// inputMethods may answer input_required: the client fulfils the server's
// input requests and sends the request again with the responses
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns).
var inputMethods = map[string]bool{"tools/call": true, "resources/read": true, "prompts/get": true}

// rounds sends a modern request, fulfilling input_required results with the
// session's Handler (the same answers as the initialize era's server
// requests: elicitation, sampling, roots) and retrying with a new id, the
// inputResponses and the exact requestState, up to MaxInputRounds.
// first, when not nil, is the first round's request, sent already.
func (c *Client) rounds(ctx context.Context, method string, params json.RawMessage, first *request) (json.RawMessage, error) {
	for round := 1; ; round++ {
		var res json.RawMessage
		var err error
		if first != nil {
			res, err = first.wait(ctx)
			first = nil
		} else {
			res, err = c.s.Call(ctx, method, params)
		}
		if err != nil {
			return nil, err
		}
		typ, requests, state := resultKind(res)
		switch {
		case typ == "" || typ == "complete":
			return res, nil
		case typ == "task" && method == "tools/call":
			return res, nil // a CreateTaskResult: WaitTask follows it
		case typ != "input_required" || !inputMethods[method]:
			return nil, &ResultTypeError{Method: method, Type: typ}
		case round >= MaxInputRounds:
			return nil, &ResultTypeError{Method: method, Type: typ, Rounds: round}
		}
		responses, err := c.fulfil(ctx, requests)
		if err != nil {
			return nil, err
		}
		if params, err = retryParams(params, responses, state); err != nil {
			return nil, err
		}
	}
}

// resultKind reads a result's resultType, inputRequests and requestState.
func resultKind(res json.RawMessage) (typ string, requests map[string]json.RawMessage, state json.RawMessage) {
	rawjson.ForEachValidMember(res, func(k string, v []byte) error {
		switch k {
		case "resultType":
			if json.Unmarshal(v, &typ) != nil {
				typ = string(v)
			}
		case "inputRequests":
			json.Unmarshal(v, &requests)
		case "requestState":
			state = v
		}
		return nil
	})
	return typ, requests, state
}

// fulfil answers each input request as the server request it stands for.
func (c *Client) fulfil(ctx context.Context, requests map[string]json.RawMessage) (json.RawMessage, error) {
	responses := map[string]json.RawMessage{}
	for _, id := range slices.Sorted(maps.Keys(requests)) {
		var r struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(requests[id], &r); err != nil || r.Method == "" {
			return nil, &TransportError{Op: "input_required", Err: fmt.Errorf("input request %q is not a request", id)}
		}
		res, err := c.s.handle(context.WithValue(ctx, inputKey{}, true), r.Method, r.Params)
		if err != nil {
			var rpc *RPCError
			if errors.As(err, &rpc) {
				return nil, &CallError{Method: r.Method + " (input request " + id + ")", Err: rpc}
			}
			return nil, err
		}
		responses[id] = res
	}
	return json.Marshal(responses)
}

type inputKey struct{}

// IsInputRequest reports whether a RequestHandler is answering a modern
// server's input request (multi-round-trip requests) rather than a server
// request of the initialize era.
func IsInputRequest(ctx context.Context) bool { return ctx.Value(inputKey{}) != nil }

// retryParams is params with inputResponses and requestState set, and the
// rest kept as it was.
func retryParams(params, responses, state json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	err := rawjson.ForEachRawMember(params, func(k string, rawKey, v []byte) error {
		if k == "inputResponses" || k == "requestState" {
			return nil
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(rawKey)
		b.WriteByte(':')
		b.Write(v)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	if b.Len() > 1 {
		b.WriteByte(',')
	}
	b.WriteString(`"inputResponses":`)
	b.Write(responses)
	if state != nil {
		b.WriteString(`,"requestState":`)
		b.Write(state)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Stream sends a request that lasts as long as ctx, such as
// subscriptions/listen: modern _meta and all, but no timeout. It returns
// the result the server ends it with, or why it ended.
func (c *Client) Stream(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if err := c.Settle(ctx); err != nil { // a stream waits for a remembered era to be settled
		return nil, err
	}
	if c.era().modern {
		params = c.stamp(params)
	}
	return c.s.Call(ctx, method, params)
}

// TasksExtension is the extension that carries tasks in the modern era
// (https://modelcontextprotocol.io/extensions/tasks/overview): the server
// may answer a tools/call with a task (resultType "task"), followed with
// tasks/get and answered with tasks/update; there is no tasks/list and no
// blocking tasks/result.
const TasksExtension = "io.modelcontextprotocol/tasks"

// withExtensions adds the extensions mcpv implements to the client's
// capabilities: tasks (mcpv follows any task a server makes of a call) and
// skills (mcpv skills lists, loads and verifies them).
func withExtensions(caps json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(caps, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	var ext map[string]json.RawMessage
	json.Unmarshal(m["extensions"], &ext)
	if ext == nil {
		ext = map[string]json.RawMessage{}
	}
	ext[TasksExtension] = json.RawMessage(`{}`)
	ext[SkillsExtension] = json.RawMessage(`{}`)
	m["extensions"] = mustJSON(ext)
	return mustJSON(m)
}

// hasTasksExtension reports whether the server declared the tasks extension.
func (c *Client) hasTasksExtension() bool { return c.HasExtension(TasksExtension) }

// modernCapability answers HasCapability for the task capabilities of the
// initialize era, which the tasks extension replaces: tasks, tasks.cancel
// and tasks.requests.tools.call come with it; tasks.list does not exist.
func (c *Client) modernCapability(path string) (has, known bool) {
	switch path {
	case "tasks", "tasks.cancel", "tasks.requests", "tasks.requests.tools", "tasks.requests.tools.call":
		return c.hasTasksExtension(), true
	case "tasks.list":
		return false, true
	}
	return false, false
}

// IsTaskResult reports whether a tools/call result is a modern
// CreateTaskResult (resultType "task").
func IsTaskResult(res json.RawMessage) bool {
	typ, _, _ := resultKind(res)
	return typ == "task"
}

// waitModern follows a task of the modern era: tasks/get at the server's
// interval until it ends, answering its input requests with tasks/update
// (each once, however many polls show it). A completed task returns its
// result; a failed or cancelled one is a *TaskEndedError.
func (c *Client) waitModern(ctx context.Context, t Task, onStatus func(Task)) (json.RawMessage, Task, error) {
	answered := map[string]bool{}
	var last json.RawMessage
	for {
		if t.Status == TaskInputRequired && last != nil {
			_, requests, _ := resultKind(last)
			for id := range requests {
				if answered[id] {
					delete(requests, id)
				}
			}
			if len(requests) > 0 {
				responses, err := c.fulfil(ctx, requests)
				if err != nil {
					return nil, t, err
				}
				params, _ := retryParams(TaskParams(t.TaskID), responses, nil)
				if _, err := c.Call(ctx, "tasks/update", params); err != nil {
					return nil, t, err
				}
				for id := range requests {
					answered[id] = true
				}
			}
		}
		if t.Terminal() {
			break
		}
		next, raw, err := c.nextStatus(ctx, t, onStatus)
		if err != nil {
			return nil, t, err
		}
		t, last = next, raw
	}
	var ended struct {
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	json.Unmarshal(last, &ended)
	switch {
	case t.Status == TaskCompleted && ended.Result != nil:
		return ended.Result, t, nil
	case t.Status == TaskCompleted:
		return nil, t, &TransportError{Op: "tasks/get", Err: fmt.Errorf("task %s completed without a result", t.TaskID)}
	case t.Status == TaskFailed && ended.Error != nil && t.StatusMessage == "":
		t.StatusMessage = ended.Error.Error()
	}
	return nil, t, &TaskEndedError{Task: t}
}
