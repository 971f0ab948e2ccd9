package mcp

// The modern era of the protocol (2026-07-28,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle):
// no initialize handshake and no session. The client learns what the server
// offers from server/discover, and every request carries the protocol
// version, the client's capabilities and its identity in params._meta.

import (
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

// discover negotiates the modern era with server/discover: the newest
// version both sides speak, offered first as version. It returns the
// client, or an error saying why the server is not (or not in a version
// mcpv speaks) a modern one.
func discover(ctx context.Context, s *Session, opts ClientOptions, version string) (*Client, error) {
	c := newModernClient(s, opts, version)
	raw, err := c.s.call(ctx, "server/discover", nil, nil, c.stampEntries()...)
	return c.discovered(ctx, raw, err)
}

// newModernClient is a client of the modern era offering version, before
// server/discover has been answered.
func newModernClient(s *Session, opts ClientOptions, version string) *Client {
	c := &Client{s: s, opts: opts, modernCaps: withExtensionsFor(opts.Capabilities, opts, true)}
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
	if supported, ok := serverVersions(err, CodeUnsupportedProtocolVersion); ok {
		// One retry with the newest version both speak, even the same
		// one: a server may refuse a first request for reasons of its own.
		v := newestOf(ModernVersions, supported)
		if v == "" || (opts.ProtocolVersion != "" && v != opts.ProtocolVersion) {
			return nil, &VersionError{Offered: version, ServerSupports: supported, Accepted: accepted(opts, ModernVersions)}
		}
		offer(v)
		raw, err = c.s.call(ctx, "server/discover", nil, nil, c.stampEntries()...)
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
		return nil, malformed("server/discover", raw)
	}
	if !slices.Contains(res.SupportedVersions, version) {
		v := newestOf(ModernVersions, res.SupportedVersions)
		if v == "" || opts.ProtocolVersion != "" {
			return nil, &VersionError{Offered: version, ServerSupports: res.SupportedVersions, Accepted: accepted(opts, ModernVersions)}
		}
		offer(v)
	}
	info := res.Meta[MetaServerInfo]
	c.e.Store(&era{modern: true, version: version, discovered: raw, init: InitializeResult{ProtocolVersion: version,
		Capabilities: res.Capabilities, ServerInfo: info, Instructions: res.Instructions, SupportedVersions: res.SupportedVersions,
		raw: discoveredInfo(version, raw, info, res.Instructions)}})
	return c, nil
}

// discoveredInfo is what info shows of a modern server: the shape of an
// initialize result (protocolVersion, capabilities, serverInfo,
// instructions) plus supportedVersions, each as the server sent it.
func discoveredInfo(version string, discovered json.RawMessage, serverInfo json.RawMessage, instructions *string) json.RawMessage {
	b := append([]byte(`{"protocolVersion":`), mustJSON(version)...)
	copyMember := func(key string) {
		rawjson.ForEachValidMember(discovered, func(k string, v []byte) error {
			if k == key {
				b = append(append(append(append(b, `,"`...), key...), `":`...), v...)
			}
			return nil
		})
	}
	copyMember("capabilities")
	if len(serverInfo) > 0 {
		b = append(append(b, `,"serverInfo":`...), serverInfo...)
	}
	if instructions != nil {
		b = append(append(b, `,"instructions":`...), mustJSON(*instructions)...)
	}
	copyMember("supportedVersions")
	return append(b, '}')
}

// stampEntries are the _meta members every modern request carries (keys
// the params already carry kept): the protocol version, the client's
// capabilities and identity, and the log level when one was asked for;
// made once an era (and a client: an era is the client's own). The slice
// is full: a caller that appends to it appends to a copy.
func (c *Client) stampEntries() []metaEntry {
	e := c.era()
	if p := e.stamp.Load(); p != nil {
		return *p
	}
	entries := []metaEntry{
		{MetaProtocolVersion, rawjson.AppendString(nil, e.version)},
		{MetaClientCapabilities, c.modernCaps},
		{MetaClientInfo, c.opts.Info.appendJSON(nil)},
	}
	if c.opts.LogLevel != "" {
		entries = append(entries, metaEntry{MetaLogLevel, mustJSON(c.opts.LogLevel)})
	}
	entries = entries[:len(entries):len(entries)]
	e.stamp.Store(&entries)
	return entries
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
func (c *Client) rounds(ctx context.Context, method string, params json.RawMessage, st *Streamed, meta []metaEntry, first *request) (json.RawMessage, error) {
	for round := 1; ; round++ {
		var res json.RawMessage
		var err error
		if first != nil {
			res, err = first.wait(ctx)
			first = nil
		} else {
			res, err = c.s.call(ctx, method, params, st, meta...)
		}
		if err != nil {
			return nil, err
		}
		typ, requests, state, err := resultKind(method, res)
		switch {
		case err != nil:
			return nil, err
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

// resultKind reads a result of method's resultType, inputRequests and
// requestState; inputRequests that are no object break the protocol.
func resultKind(method string, res json.RawMessage) (typ string, requests map[string]json.RawMessage, state json.RawMessage, err error) {
	rawjson.ForEachValidMember(res, func(k string, v []byte) error { // a result that is no object has none of them
		switch k {
		case "resultType":
			if json.Unmarshal(v, &typ) != nil {
				typ = string(v)
			}
		case "inputRequests":
			if json.Unmarshal(v, &requests) != nil {
				err = malformed(method, res)
			}
		case "requestState":
			state = v
		}
		return nil
	})
	return typ, requests, state, err
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
			if rpc, ok := errors.AsType[*RPCError](err); ok {
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
	b, err := appendMembers([]byte{'{'}, params, func(k string, v []byte) ([]byte, bool) {
		return v, k != "inputResponses" && k != "requestState"
	})
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	if len(b) > 1 {
		b = append(b, ',')
	}
	b = append(append(b, `"inputResponses":`...), responses...)
	if state != nil {
		b = append(append(b, `,"requestState":`...), state...)
	}
	return append(b, '}'), nil
}

// Stream sends a request that lasts as long as ctx, such as
// subscriptions/listen: modern _meta and all, but no timeout. It returns
// the result the server ends it with, or why it ended.
func (c *Client) Stream(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if err := c.Settle(ctx); err != nil { // a stream waits for a remembered era to be settled
		return nil, err
	}
	var meta []metaEntry
	if c.era().modern {
		meta = c.stampEntries()
	}
	return c.s.call(ctx, method, params, nil, meta...)
}

// TasksExtension is the extension that carries tasks in the modern era
// (https://modelcontextprotocol.io/extensions/tasks/overview): the server
// may answer a tools/call with a task (resultType "task"), followed with
// tasks/get and answered with tasks/update; there is no tasks/list and no
// blocking tasks/result.
const TasksExtension = "io.modelcontextprotocol/tasks"

// hasTasksExtension reports whether the tasks extension is negotiated:
// declared by the server, and not turned off.
func (c *Client) hasTasksExtension() bool { return c.Negotiated(TasksExtension) }

// IsTaskResult reports whether a tools/call result is a modern
// CreateTaskResult (resultType "task").
func IsTaskResult(res json.RawMessage) bool {
	typ, _, _, _ := resultKind("tools/call", res)
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
			_, requests, _, err := resultKind("tasks/get", last)
			if err != nil {
				return nil, t, err
			}
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
	if err := DecodeResult("tasks/get", last, &ended); err != nil {
		return nil, t, err
	}
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
