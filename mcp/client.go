package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// LatestVersion is the protocol version mcpv offers by default.
const LatestVersion = "2025-11-25"

// SupportedVersions are the versions mcpv accepts in a server's answer, newest first.
var SupportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Implementation names a client or server.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// appendJSON appends i as encoding/json writes it, without encoding/json:
// a command's first use of it for a type costs more than the command's
// own work (the modern era stamps each request with the client's).
func (i Implementation) appendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = rawjson.AppendString(b, i.Name)
	b = append(b, `,"version":`...)
	b = rawjson.AppendString(b, i.Version)
	return append(b, '}')
}

// ClientOptions configure the MCP lifecycle on top of a Session.
type ClientOptions struct {
	Info Implementation
	// ProtocolVersion, when set, is offered instead of LatestVersion and is the
	// only answer accepted.
	ProtocolVersion string
	// Capabilities is the ClientCapabilities object; nil sends {}.
	// Declare only what the client really handles. The extensions mcpv
	// speaks are added to it, as each era carries them (extensions.go).
	Capabilities json.RawMessage
	// NoExtensions are the identifiers of extensions mcpv speaks that
	// the client does not declare: the user turned them off.
	NoExtensions []string
	// Relayed: Capabilities are another client's (mcpv serve declares
	// its client's), so mcpv adds no extension of its own to them but
	// those the modern era always carries (tasks and skills).
	Relayed bool
	// Timeout bounds each request made through Client.Call; zero means none.
	// Progress notifications for a request start its timeout again
	// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress)...
	Timeout time.Duration
	// ...but never beyond MaxTimeout from the request's start; zero means no cap.
	MaxTimeout time.Duration
	// LogLevel, in the modern era, asks for log messages at this level and
	// above with every request (_meta io.modelcontextprotocol/logLevel).
	LogLevel string
	// Probe, with no ProtocolVersion pinned, tries the modern era first
	// with server/discover, as a client of both eras should, and falls back
	// to initialize when the server does not answer as a modern one.
	Probe bool
	// Lists, when not nil, holds the list results the server allows to be
	// kept, and answers the list requests that look something up (Call).
	Lists KeptLists
	// Recall is what is remembered of the server from an earlier run:
	// with Probe, it stands for the probe (see Initialize).
	Recall *Recall
	// ConnectLimit, when set, bounds the wait for a remembered era's
	// server/discover answer at the first call, as the caller's own
	// bound on start-up and initialize bounds Initialize; it is the
	// error that ends the wait.
	ConnectLimit *TimeoutError
	// StartClock, when set, makes the context ConnectLimit bounds, in
	// place of context.WithTimeoutCause: the caller's clock of the start,
	// which may stop while the user, not the server, is awaited (a browser
	// login).
	StartClock func(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc)
	// DiscoverWait is how long the server/discover probe waits before it
	// pings the server to learn whether it is up; zero means
	// DefaultDiscoverWait. It never ends the probe: see probe.
	DiscoverWait time.Duration
	// silenceWait is how long silence lasts before the probe stops
	// waiting for server/discover's answer: to the ping, before
	// initialize goes out anyway; after a refused initialize, before the
	// refusal is the outcome. Zero means twice DiscoverWait. Tests that
	// are not about that silence set it long.
	silenceWait time.Duration
	// TraceParent, when set, gives each request the W3C traceparent its
	// params._meta carries (unprefixed, as the 2026-07-28 specification
	// reserves it), a new span's context each time: a trace begun in mcpv
	// runs on into the server.
	TraceParent func() string
	// AfterFunc starts a request's timeout timers (Timeout, MaxTimeout):
	// time.AfterFunc when nil, or a test's clock, which fires when the
	// test says, so that what ends a request is shown by events rather
	// than by a machine's speed.
	AfterFunc func(d time.Duration, f func()) Timer
}

// Client is an initialized MCP session: the lifecycle, capabilities,
// timeouts and progress on top of a Session. Its methods are safe for
// concurrent use.
type Client struct {
	s          *Session
	opts       ClientOptions
	e          atomic.Pointer[era] // what was negotiated; replaced whole, never changed
	lastToken  atomic.Int64        // progress tokens are unique in the session
	modernCaps json.RawMessage     // the capabilities each modern request declares
	recall     *recall             // set while a remembered era awaits the server's word (recall.go)
}

// Timer is what a request does with its timeout timers: a *time.Timer, or
// a test's. An interface literal, not a type of its own, so that a clock
// of mcptest's, which cannot import mcp, has AfterFunc's very type.
type Timer = interface {
	Reset(time.Duration) bool
	Stop() bool
}

// startTimer runs f after d, on the client's clock.
func (c *Client) startTimer(d time.Duration, f func()) Timer {
	if c.opts.AfterFunc != nil {
		return c.opts.AfterFunc(d, f)
	}
	return time.AfterFunc(d, f)
}

// era is what a session speaks, as negotiated. A client's era is set once,
// or, for an era remembered from an earlier run, replaced once the server
// has answered: readers take it whole (Client.era), so none sees half of
// one and half of another.
type era struct {
	stamp      atomic.Pointer[[]metaEntry] // the modern _meta of the client's requests in this era, made once (stampEntries)
	modern     bool                        // the modern era: no session, _meta on every request
	version    string                      // the negotiated protocol version
	init       InitializeResult            // the server's answer to initialize (or discover's, shaped as one)
	discovered json.RawMessage             // server/discover's result as sent; nil in the initialize era
}

// era returns what the client speaks; a client made for a test without
// one speaks the initialize era, of no version.
func (c *Client) era() *era {
	if e := c.e.Load(); e != nil {
		return e
	}
	return &era{}
}

// Initialize runs the lifecycle handshake on s: initialize, check the
// version, then notifications/initialized
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle).
// ctx bounds the whole handshake. On failure the session is left open for
// the caller to close.
//
// A pinned modern version (2026-07-28) sends no initialize: server/discover
// negotiates instead. A server that shows it is modern when it gets
// initialize (-32022 listing only modern versions, -32020 or -32021, or an
// answer naming a modern version) is spoken to in the modern era.
//
// With Probe, a server remembered from an earlier run (Recall) is not
// probed: one of the initialize era gets initialize at once, and one of
// the modern era is spoken to as remembered (see recalled).
func Initialize(ctx context.Context, s *Session, opts ClientOptions) (*Client, error) {
	if IsModern(opts.ProtocolVersion) {
		return discover(ctx, s, opts, opts.ProtocolVersion)
	}
	var pending *request
	if opts.ProtocolVersion == "" && opts.Probe {
		if r := opts.Recall; r != nil && r.State.Modern {
			return recalled(ctx, s, opts)
		} else if r != nil {
			return recalledInitialize(ctx, s, opts)
		}
		c, init, final, err := probe(ctx, s, opts, nil, nil)
		if final {
			return c, err
		}
		pending = init
	}
	return handshake(ctx, s, opts, pending)
}

// offer is the version initialize offers, and the capabilities it declares.
func offer(opts ClientOptions) (version string, caps json.RawMessage) {
	return cmp.Or(opts.ProtocolVersion, LatestVersion), withExtensionsFor(opts.Capabilities, opts, false) // nil: {}
}

// handshake runs the initialize handshake: with the answer to pending,
// an initialize a probe sent, or with one of its own.
func handshake(ctx context.Context, s *Session, opts ClientOptions, pending *request) (*Client, error) {
	offered, caps := offer(opts)
	var raw json.RawMessage
	var err error
	if pending != nil {
		raw, err = pending.wait(ctx)
	} else {
		raw, err = initialize(ctx, s, offered, caps, opts.Info)
	}
	if supported, ok := serverVersions(err, CodeUnsupportedProtocolVersion); ok {
		if v := newestOf(ModernVersions, supported); v != "" && opts.ProtocolVersion == "" {
			return discover(ctx, s, opts, v)
		}
		v := newestOf(SupportedVersions, supported)
		if opts.ProtocolVersion != "" || v == "" || v == offered {
			return nil, &VersionError{Offered: offered, ServerSupports: supported, Accepted: accepted(opts, SupportedVersions)}
		}
		offered = v
		raw, err = initialize(ctx, s, offered, caps, opts.Info)
	}
	var ce *CallError
	if errors.As(err, &ce) && opts.ProtocolVersion == "" &&
		(ce.Err.Code == CodeHeaderMismatch || ce.Err.Code == CodeMissingRequiredClientCapabilities || ce.Err.Code == CodeMethodNotFound) {
		// Perhaps a server of the modern era only: it wants the era's
		// headers or _meta, or has no initialize at all. These codes may
		// also be an older server's own, so its error stands unless
		// server/discover proves it modern.
		if c, derr := discover(ctx, s, opts, ModernVersion); derr == nil {
			return c, nil
		}
		return nil, err
	}
	// A server may refuse our version with -32602 and data.supported
	// (lifecycle, "Version Negotiation"): retry once with the newest
	// version both sides speak, unless the caller pinned the version.
	if supported, ok := serverVersions(err, CodeInvalidParams); ok {
		v := newestOf(SupportedVersions, supported)
		if opts.ProtocolVersion != "" || v == "" || v == offered {
			return nil, &VersionError{Offered: offered, ServerSupports: supported, Accepted: accepted(opts, SupportedVersions)}
		}
		offered = v
		raw, err = initialize(ctx, s, offered, caps, opts.Info)
	}
	if err != nil {
		return nil, err
	}
	res, err := ParseInitializeResult(raw)
	if err != nil {
		return nil, malformed("initialize", raw)
	}
	if opts.ProtocolVersion == "" && IsModern(res.ProtocolVersion) {
		// It answers initialize with a modern version: it speaks the
		// modern era, which has no initialize to complete.
		return discover(ctx, s, opts, res.ProtocolVersion)
	}
	if !slices.Contains(accepted(opts, SupportedVersions), res.ProtocolVersion) {
		return nil, &VersionError{Offered: offered, Answered: res.ProtocolVersion, Accepted: accepted(opts, SupportedVersions)}
	}
	if v, ok := s.t.(VersionSetter); ok {
		v.SetProtocolVersion(res.ProtocolVersion) // HTTP: MCP-Protocol-Version from now on
	}
	if err := s.Notify(ctx, "notifications/initialized", nil); err != nil {
		return nil, err
	}
	c := &Client{s: s, opts: opts}
	c.e.Store(&era{version: res.ProtocolVersion, init: res})
	return c, nil
}

// InitializeResult is the server's answer to initialize (or the modern
// era's discovery, shaped as one).
func (c *Client) InitializeResult() InitializeResult { return c.era().init }

// ProtocolVersion is the negotiated protocol version.
func (c *Client) ProtocolVersion() string { return c.era().version }

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params json.RawMessage) error {
	return c.s.Notify(ctx, method, params)
}

// Done is closed when the session has ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.s.Done() }

// Err returns why the session ended, or nil while it runs.
func (c *Client) Err() error { return c.s.Err() }

// Close ends the session; see Session.Close.
func (c *Client) Close(ctx context.Context) error { return c.s.Close(ctx) }

// accepted lists the versions mcpv takes in an answer: the one pinned,
// else those of the era, ours (SupportedVersions or ModernVersions).
func accepted(opts ClientOptions, ours []string) []string {
	if opts.ProtocolVersion != "" {
		return []string{opts.ProtocolVersion}
	}
	return ours
}

func initialize(ctx context.Context, s *Session, version string, caps json.RawMessage, info Implementation) (json.RawMessage, error) {
	params, err := initializeParams(version, caps, info)
	if err != nil {
		return nil, err
	}
	return s.Call(ctx, "initialize", params)
}

func initializeParams(version string, caps json.RawMessage, info Implementation) (json.RawMessage, error) {
	return json.Marshal(struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      Implementation  `json:"clientInfo"`
	}{version, caps, info})
}

// serverVersions reads the versions listed when err is the server's
// "unsupported protocol version" error: code (-32602 for initialize,
// -32022 in the modern era) with data.supported.
func serverVersions(err error, code int) (supported []string, ok bool) {
	var ce *CallError
	if !errors.As(err, &ce) || ce.Err.Code != code {
		return nil, false
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	if json.Unmarshal(ce.Err.Data, &data) != nil || len(data.Supported) == 0 {
		return nil, false
	}
	return data.Supported, true
}

// newestOf returns the newest of ours (SupportedVersions or
// ModernVersions, newest first) among supported, or "".
func newestOf(ours, supported []string) string {
	for _, v := range ours {
		if slices.Contains(supported, v) {
			return v
		}
	}
	return ""
}

// HasCapability reports whether the server declared the capability at the
// dotted path (InitializeResult.HasCapability), the modern era's tasks
// extension standing for the task capabilities of the initialize era it
// replaces: tasks, tasks.cancel and tasks.requests.tools.call come with
// it; tasks.list does not exist.
func (c *Client) HasCapability(path string) bool {
	e := c.era()
	if e.modern {
		switch path {
		case "tasks", "tasks.cancel", "tasks.requests", "tasks.requests.tools", "tasks.requests.tools.call":
			return c.hasTasksExtension()
		case "tasks.list":
			return false
		}
	}
	return e.init.HasCapability(path)
}

// Require returns a *CapabilityError unless the server declared capability.
func (c *Client) Require(capability, method string) error {
	if c.HasCapability(capability) {
		return nil
	}
	return &CapabilityError{Capability: capability, Method: method}
}

// progressMethods may run long: their requests ask for progress notifications.
var progressMethods = map[string]bool{
	"tools/call":     true,
	"resources/read": true,
	"prompts/get":    true,
}

// Call sends a request bounded by the client's timeouts. A request that may
// run long carries a progress token of its own in params._meta; each progress
// notification for it restarts the timeout, up to MaxTimeout.
//
// While an era remembered from an earlier run awaits the server's word,
// the call waits for it first, or rides right behind the server/discover
// that asks for it (see callRecalled).
//
// A list request the server answers is given to the lists kept
// (ClientOptions.Lists); it is answered from them only when a walk looks
// something up (Seek).
func (c *Client) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.callKept(ctx, method, params, false, nil)
}

// CallStreamed is Call with st's string in place of its marker in params
// (Streamed).
func (c *Client) CallStreamed(ctx context.Context, method string, params json.RawMessage, st *Streamed) (json.RawMessage, error) {
	return c.callKept(ctx, method, params, false, st)
}

// call is Call without the kept lists, st streamed.
func (c *Client) call(ctx context.Context, method string, params json.RawMessage, st *Streamed) (json.RawMessage, error) {
	if r := c.recall; r != nil && !r.settled.Load() {
		return c.callRecalled(ctx, method, params, st)
	}
	return c.callWithin(ctx, c.opts.Timeout, method, params, st)
}

// callWithin sends a request of a settled era, with left of its timeout
// (sendWithin).
func (c *Client) callWithin(ctx context.Context, left time.Duration, method string, params json.RawMessage, st *Streamed) (json.RawMessage, error) {
	meta, token, err := c.prepare(method, params)
	if err != nil {
		return nil, err
	}
	return c.sendWithin(ctx, left, method, params, st, meta, token, nil)
}

// sendWithin sends params with meta, bounded by the client's timeouts,
// with left of the timeout to wait for a first word (a request that shares
// its timeout with a probe before it: budget); progress restarts the whole
// timeout, as ever. Nothing is sent when nothing is left. first, when not
// nil, is the request sent already, whose answer is awaited.
func (c *Client) sendWithin(ctx context.Context, left time.Duration, method string, params json.RawMessage, st *Streamed, meta []metaEntry, token json.RawMessage, first *request) (json.RawMessage, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	dl, caller := ctx.Deadline()
	end := func(err error) { // past the caller's deadline, the caller's end is told: its clock started first
		if !caller || time.Now().Before(dl) {
			cancel(err)
		}
	}
	if d := c.opts.Timeout; d > 0 {
		if left <= 0 {
			if first != nil {
				first.abandon()
			}
			return nil, &TimeoutError{Method: method, Timeout: d}
		}
		idle := c.startTimer(left, func() { end(&TimeoutError{Method: method, Timeout: d}) })
		defer idle.Stop()
		if token != nil {
			defer c.s.WatchProgress(token, func() { idle.Reset(d) })()
		}
	}
	if d := c.opts.MaxTimeout; d > 0 && token != nil {
		hard := c.startTimer(d, func() { end(&TimeoutError{Method: method, Timeout: d, Cap: true}) })
		defer hard.Stop()
	}
	if c.era().modern {
		return c.rounds(ctx, method, params, st, meta, first)
	}
	if first != nil {
		return first.wait(ctx)
	}
	return c.s.call(ctx, method, params, st, meta...)
}

// prepare is what the client adds to params' _meta as the message is
// written: the modern era's stamp, and a progress token of its own for a
// request that may run long, unless params carry one (token: the one).
func (c *Client) prepare(method string, params json.RawMessage) (meta []metaEntry, token json.RawMessage, err error) {
	if c.era().modern {
		meta = c.stampEntries()
	}
	if c.opts.TraceParent != nil {
		meta = append(meta, metaEntry{"traceparent", mustJSON(c.opts.TraceParent())})
	}
	if !progressMethods[method] {
		return meta, nil, nil
	}
	var buf [8]rawjson.Field
	var fields []rawjson.Field
	if !noParams(params) {
		if fields, err = rawjson.Fields(buf[:0], params); err != nil {
			return nil, nil, fmt.Errorf("params: %w", err)
		}
		if i := slices.IndexFunc(fields, func(f rawjson.Field) bool { return f.KeyIs("_meta") }); i >= 0 && !rawjson.IsObject(fields[i].Value) {
			return nil, nil, errors.New("params: params._meta is not an object")
		}
	}
	if token = progressToken(fields); token == nil {
		token = progressTokenFor(c.lastToken.Add(1))
		meta = append(meta, metaEntry{"progressToken", token})
	}
	return meta, token, nil
}

// progressTokenFor is the progress token mcpv gives the client's request
// n: "mcpv-N".
func progressTokenFor(n int64) json.RawMessage {
	b := make([]byte, 0, len(`"mcpv-"`)+20)
	b = append(b, `"mcpv-`...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, '"')
}

// Request returns the exact JSON-RPC request Call would send next for
// method and params, without sending it (mcpv call --dry-run).
func (c *Client) Request(method string, params json.RawMessage) (json.RawMessage, error) {
	meta, _, err := c.prepare(method, params)
	if err != nil {
		return nil, err
	}
	return encodeRequest(intID(c.s.lastID.Load()+1), method, params, meta...)
}

func mustJSON(v any) []byte { return rawjson.Marshal(v) }

// State is what a negotiated session carries, for a Client attached to a
// session another process opened (a session keeper): the version, the era,
// the server's initialize (or server/discover) result and capabilities.
type State struct {
	Version          string           `json:"protocolVersion"`
	Modern           bool             `json:"modern"`
	InitializeResult InitializeResult `json:"initializeResult"`
}

// State returns what Attach needs to speak on this session.
func (c *Client) State() State { return c.era().state() }

func (e *era) state() State {
	return State{Version: e.version, Modern: e.modern, InitializeResult: e.init}
}

// Attach makes a Client on s for a session negotiated elsewhere, as State
// describes it: nothing is sent. The capabilities the client declares in
// the modern era are opts.Capabilities (with the extensions mcpv speaks).
func Attach(s *Session, opts ClientOptions, st State) *Client {
	c := &Client{s: s, opts: opts}
	c.e.Store(&era{modern: st.Modern, version: st.Version, init: st.InitializeResult})
	if st.Modern {
		c.modernCaps = withExtensionsFor(opts.Capabilities, opts, true)
	}
	return c
}

// Forward sends a request as it is, with no _meta, progress token or
// timeout of the client's own: a keeper relays its clients' requests,
// which carry theirs.
func (c *Client) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.s.Call(ctx, method, params)
}

// Relay sends the request of a client that speaks the initialize era
// through this session: as it is to a server of that era; to a modern
// server stamped with the modern _meta (the keys params carry are kept)
// and with the server's input requests answered by the session's Handler,
// which a relay hands to that client as server requests. There is no
// timeout or progress token of the client's own.
func (c *Client) Relay(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if !c.era().modern {
		return c.s.Call(ctx, method, params)
	}
	return c.rounds(ctx, method, params, nil, c.stampEntries(), nil)
}

// ForwardNotification sends a client's notification as it is.
func (c *Client) ForwardNotification(ctx context.Context, method string, params json.RawMessage) error {
	return c.s.Notify(ctx, method, params)
}
