package check

// A connection of a check's own, below any session: the check chooses
// every id and every byte sent, and sees every message that comes back,
// as it came. Over stdio it is a server process of its own (mcp's
// CommandTransport, read by one goroutine that hands each response to
// whoever waits for its id); over HTTP it is the requests the check
// makes, each answer read at once (http.go). Either speaks one era: the
// initialize era after a handshake of the check's choosing, or the modern
// era, which stamps every request's _meta.
//
// The reader keeps the last maxLog messages for the checks that look at
// what else came (a response to a notification, a request before
// initialized), each clipped to maxKept bytes; every message passes the
// run's watches as it is read.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

const (
	maxLog  = 2000    // messages a connection keeps
	maxKept = 4 << 10 // bytes kept of each, for what a failure shows
	// MaxMessage is the largest message a run reads from the server.
	MaxMessage = 16 << 20
)

// seen is one message a connection received.
type seen struct {
	msg                     mcp.Message
	raw                     string // the message as sent, clipped to maxKept
	bad                     string // why the unit is no JSON-RPC message (msg is then empty)
	jsonLog                 bool   // bad is junkLine, for JSON that is no attempt at a message (a log line)
	via                     string // where it came: "stdout", "POST answer", "GET stream", "session"
	era                     string // the era of the connection it came on
	n                       int    // its place among the connection's messages, from 1
	version                 string // the protocol version of its connection
	batched                 bool   // it came in a JSON array (a batch)
	nullRequest             bool   // a request whose id is null (decoded as a notification)
	method                  string // for a response, the method of the request it answers (when known)
	shape                   string // how a message that decodes still breaks JSON-RPC 2.0 as MCP uses it (no "jsonrpc": "2.0", a result that is no object)
	dup                     bool   // a response to an id its connection had an answer to already
	nullFor                 string // an error with a null id, taken as the answer to the request that waited for one (of this method)
	unpaired                bool   // it came while input that is no request awaited what answers it (conn.expectNull): a null id then answers that input
	unpending, meant        string // a response under an id no request waiting had: why, and what waited; the method of what it most likely answers
	twin                    string // a response whose id is a request's id written as another JSON type (1 for "1"): that request's id, as sent
	framing                 bool   // a message written over several lines of stdout
	early                   bool   // a message of the initialize era that came before its connection's initialized notification (lifecycle.early-requests')
	undeclared              string // a request of the server for a capability its connection did not declare ("roots", "sampling", "elicitation")
	eventDup                string // an SSE event id its connection has had already
	replayed                bool   // sent again on a resumed stream, after Last-Event-ID had passed it
	poll, foreign, unprimed string // how a stream the server closed broke the retry rule; a response to another request on a resumed stream, as sent; the request whose stream (of 2025-11-25) began with no priming event
	reused                  string // a request of the server's under an id it used before on the same connection or session (reuse: "answered", "unanswered")
	sharedToken             string // a server's request's progressToken, which another of its requests not yet answered holds
	nullCursor              bool   // a result with "nextCursor": null
	oddID                   bool   // a request whose id is neither a string nor an integer
	buffered                string // a 2026-07-28 event stream without X-Accel-Buffering: no: the request it answered
	strayCancel             bool   // a notifications/cancelled of the server's naming a request it did not send
	taskCancel              bool   // a notifications/cancelled of the server's naming a request of its own run as a task
	scoped                  string // how an HTTP answer that says insufficient_scope falls short of what the authorization spec asks of it, and the request
	caps, logs              string // the client capabilities its connection declared (JSON); the log level its requests asked for
	completeBad             string // a notifications/elicitation/complete whose elicitationId no URL elicitation of its connection established
	pingStorm               bool   // of a connection that answers, a ping of the server's that ends maxPings in a row within pingWindow
	spent                   string // a progress notification for the token of a request whose response came before it on its stream: that request (given.late)
}

// conn is a connection of a check's own.
type conn struct {
	r       *runner
	era     string                                       // "legacy" or "modern": written under mu (setEra) once the reader runs
	version string                                       // the protocol version it speaks: written under mu (setEra), which the reader holds as it reads it
	init    json.RawMessage                              // the answer to the connection's initialize (legacy), as sent
	elicit  func(params json.RawMessage) json.RawMessage // connOptions'

	stdio   *mcp.CommandTransport // over stdio
	http    *httpSide             // over HTTP
	caps    string                // the client capabilities its modern requests declare, JSON; "" none
	logs    string                // the log level its modern requests ask for (_meta); "" none
	answers chan seen             // the server's requests the answerer is to answer (a connection that declares capabilities), maxAnswers at most: the reader drops one that finds it full
	handed  atomic.Int32          // the server's requests handed to the answerer
	ctx     context.Context       // the connection's: ended by close, or the run's end
	cancel  context.CancelFunc    // ends ctx

	mu          sync.Mutex         // guards the fields below
	waiting     map[string]*waiter // responses awaited, by canonical id
	answered    idSet              // ids answered (with answerDigest), for a response that comes twice
	sent        idSet              // ids of the requests sent, for an answer that comes late
	asked       idSet              // ids of the server's requests, for one used twice
	replied     idSet              // ids of the server's requests the connection answered
	listens     idSet              // ids of the subscriptions/listen sent, which alone a 2026-07-28 server may cancel
	tasked      idSet              // ids of the server's requests the connection runs as tasks, which tasks/cancel alone cancels
	tasks       clientTasks        // the tasks it runs for the server (answer.go)
	seq         int                // waiters registered so far: their order
	tokens      map[string]string  // the progressTokens of the server's requests not yet answered (active), by their ids
	given       given              // the progress tokens of the connection's requests, for progress after their completion
	expectNull  bool               // what is no request was sent (unpaired), which a server may answer with an error of null id: until the next barrier such an error answers no request that waits
	notified    []string           // the methods of the notifications sent (answersNote)
	frags       *fragments         // stdio's lines of no JSON, until it is known whether they make a message; the reader holds them, the first contact gives them up once the server has said what it will
	events      idSet              // SSE event ids seen on this connection
	elicited    idSet              // the elicitationIds of the server's URL elicitations
	initialized bool               // the initialized notification was sent (the initialize era); what came before is early
	log         []seen             // the last maxLog messages
	count       int                // messages received so far
	pings       []time.Time        // when the server's pings in a row so far came
	ended       error              // why the reader stopped; set once
	ids         int                // ids used so far
	closed      bool               // close was called
	gone        chan struct{}      // closed when the reader stops
	signs       chan struct{}      // told (1-buffered, never blocking) when what came is no message: a line of no JSON, one that does not decode or is written over lines; the first contact judges it at once
}

// setEra sets the era and the version the connection speaks; the reader
// reads them as it records each message (take), under mu.
func (c *conn) setEra(era, version string) {
	withLock(&c.mu, func() { c.era, c.version = era, version })
}

// eraNow is the connection's era, which the check's goroutine may set
// (setEra) while the reader records what came.
func (c *conn) eraNow() string {
	return locked(&c.mu, func() string { return c.era })
}

// setVersion sets the version negotiated, which an HTTP connection of
// the initialize era sends from now on too (setHeaderVersion).
func (c *conn) setVersion(v string) {
	c.setEra(c.eraNow(), v)
	c.setHeaderVersion(v)
}

// connOptions shape how a connection opens.
type connOptions struct {
	era          string                                       // "legacy" or "modern"; "" is the main session's
	version      string                                       // the protocol version offered (legacy) or stamped (modern); "" is the main session's, or the latest of the era
	bare         bool                                         // sends nothing at all once connected (no initialize): the check speaks first
	capabilities string                                       // the client capabilities (JSON) its modern requests or its initialize declare; "" none. A connection that declares any answers the server's requests (answer.go)
	logLevel     string                                       // the log level its modern requests ask for; "" none
	elicit       func(params json.RawMessage) json.RawMessage // the answer to the server's elicitations, if not answer.go's
}

// dial opens a connection: over stdio a new server process, over HTTP
// nothing yet. Then, unless bare, the legacy era's handshake. A copy that
// exited while it started starts again, alone; a bare one's start is its
// caller's (startCopy).
func (r *runner) dial(ctx context.Context, o connOptions) (c *conn, err error) {
	if o.bare || r.target.URL != "" {
		return r.dialOnce(ctx, o)
	}
	err = r.startCopy(ctx, func() error {
		c, err = r.dialOnce(ctx, o)
		return err
	})
	return c, err
}

// startCopy runs start, a copy's start (its process and its opening
// exchange), beside the other copies' starts; once more, alone, when the
// copy exited in it: a server whose copies conflict only while they
// start (a port held for the start, a lock) is judged on a copy that
// started, as a client that starts one copy would meet it.
func (r *runner) startCopy(ctx context.Context, start func() error) error {
	r.starts.RLock()
	err := start()
	r.starts.RUnlock()
	if !exited(err) || ctx.Err() != nil {
		return err
	}
	r.starts.Lock()
	defer r.starts.Unlock()
	if ctx.Err() != nil { // ran out while the others started: the exit stands
		return err
	}
	return start()
}

// dialOnce is dial, without starting again a copy that exited.
func (r *runner) dialOnce(ctx context.Context, o connOptions) (*conn, error) {
	f := r.known.Load()
	if f == nil { // the main session is not open yet (the first contact)
		f = &facts{era: "legacy"}
	}
	o.era = cmp.Or(o.era, f.era)
	if o.version == "" {
		switch {
		case o.era == f.era && f.version != "":
			o.version = f.version
		case o.era == "modern":
			o.version = mcp.ModernVersion
		default:
			o.version = mcp.LatestVersion
		}
	}
	c := &conn{r: r, era: o.era, version: o.version, waiting: map[string]*waiter{}, tokens: map[string]string{}, gone: make(chan struct{}), signs: make(chan struct{}, 1), caps: o.capabilities, logs: o.logLevel, elicit: o.elicit}
	c.frags = &fragments{whole: func(b []byte) { c.take(unitsOf(b, "stdout", c.eraNow(), true, false), nil, "", 0) },
		give: func(l seenLine) { c.take(l.seenOf("stdout", c.eraNow()), nil, "", 0) }}
	if r.target.URL != "" {
		c.http = &httpSide{}
		close(c.gone) // no reader
	} else {
		opts := *r.target.Stdio
		opts.MaxMessage = MaxMessage
		opts.Groups = r.target.Groups
		opts.Log = nil           // what is skipped comes to Junk whole
		opts.Junk = c.frags.junk // on the reader goroutine, before Read returns
		opts.Stderr = nil        // the tail is kept for failures
		opts.Grace = 500 * time.Millisecond
		if r.headers.Load() {
			opts.Framing = mcp.FramingContentLength // as the main session learnt: the checks are about what it says, not its framing again
		}
		tr, err := r.target.Start.Start(opts)
		if err != nil {
			return nil, err
		}
		c.stdio = tr
	}
	c.ctx, c.cancel = context.WithCancel(r.ctx)
	if c.caps != "" { // after the start, which leaves no answerer when it fails, and before the reader, which hands it what the server asks
		c.answers = make(chan seen, maxAnswers)
		go c.answerer() // a check's connection answerer: stops when the connection closes or the run ends
	}
	if c.stdio != nil {
		go c.read() // a check's connection reader: stops when the transport's Read fails, which close brings about
	}
	r.track(c)
	if o.bare || o.era == "modern" {
		return c, nil
	}
	if err := c.handshake(ctx, o.version); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// handshake is the initialize era's: initialize offering version, then
// notifications/initialized.
func (c *conn) handshake(ctx context.Context, version string) error {
	m, _, err := c.request(ctx, "initialize", c.initializeParams(version))
	if err != nil {
		return err
	}
	if m.Error != nil {
		return fmt.Errorf("initialize: the server answered with error %d: %s", m.Error.Code, clip(m.Error.Message, 200))
	}
	c.init = m.Result
	v, ok := str(member(m.Result, "protocolVersion"))
	if !ok {
		v = c.version // the one offered: written by this goroutine alone
	}
	c.setVersion(v)
	return c.notify(ctx, "notifications/initialized", nil)
}

// initializeParams are initialize's params: version, the client
// capabilities the connection declares ({} for none), and client info.
func (c *conn) initializeParams(version string) json.RawMessage {
	return rawjson.Marshal(map[string]any{"protocolVersion": version, "capabilities": c.capabilities(), "clientInfo": c.r.target.ClientInfo})
}

// newID is an id the connection has not used: a number, from 1.
func (c *conn) newID() json.RawMessage {
	return json.RawMessage(strconv.Itoa(locked(&c.mu, func() int { c.ids++; return c.ids })))
}

// stamp is params with the modern era's _meta, on a modern connection.
func (c *conn) stamp(params json.RawMessage) json.RawMessage {
	if c.era != "modern" {
		return params
	}
	return c.stampVersion(params, c.version)
}

// stampVersion is stamp, with version as the request's protocol version.
func (c *conn) stampVersion(params json.RawMessage, version string) json.RawMessage {
	for _, e := range []struct {
		key   string
		value any
	}{
		{mcp.MetaProtocolVersion, version},
		{mcp.MetaClientCapabilities, c.capabilities()},
		{mcp.MetaClientInfo, c.r.target.ClientInfo},
		{mcp.MetaLogLevel, c.logs},
	} {
		v, _ := json.Marshal(e.value)
		if p, err := mcp.WithMeta(params, e.key, v); err == nil && e.value != "" {
			params = p
		}
	}
	return params
}

// capabilities are what the connection declares of the client's.
func (c *conn) capabilities() json.RawMessage {
	return json.RawMessage(cmp.Or(c.caps, `{}`))
}

// request sends a request under a new id, stamped for the era, and
// waits for its response.
func (c *conn) request(ctx context.Context, method string, params json.RawMessage) (mcp.Message, *exchange, error) {
	return c.requestID(ctx, c.newID(), method, c.stamp(params))
}

// requestID sends a request under id, params as given, and waits for
// its response.
func (c *conn) requestID(ctx context.Context, id json.RawMessage, method string, params json.RawMessage) (mcp.Message, *exchange, error) {
	msg, err := mcp.EncodeRequest(id, method, params)
	if err != nil {
		return mcp.Message{}, nil, err
	}
	return c.roundTrip(ctx, id, msg, httpReq{})
}

// roundTrip sends msg, a request with id, and waits for its response.
func (c *conn) roundTrip(ctx context.Context, id json.RawMessage, msg []byte, hr httpReq) (mcp.Message, *exchange, error) {
	if c.http != nil {
		hr.body = msg
		x, err := c.post(ctx, hr, id)
		if err != nil {
			return mcp.Message{}, x, err
		}
		if x.response == nil {
			return mcp.Message{}, x, &noAnswer{x}
		}
		return *x.response, x, nil
	}
	ch := c.expect(id, methodOf(msg))
	defer c.unexpect(id)
	if err := c.write(ctx, msg); err != nil {
		return mcp.Message{}, nil, err
	}
	m, err := c.await(ctx, ch)
	return m, nil, err
}

// twinError is a response that answers a request with its id written as
// another JSON type: the request waits no longer, and the check that
// names the defect (jsonrpc.number-id, jsonrpc.string-id) reports it.
type twinError struct{ sent, got string }

func (e *twinError) Error() string {
	return fmt.Sprintf("the request's id %s was answered as %s", e.sent, e.got)
}

// by is the check that names the defect.
func (e *twinError) by() string {
	if strings.HasPrefix(e.sent, `"`) {
		return "jsonrpc.string-id"
	}
	return "jsonrpc.number-id"
}

// noAnswer is an HTTP answer that held no response to the request.
type noAnswer struct{ x *exchange }

func (e *noAnswer) Error() string {
	return fmt.Sprintf("the answer (HTTP %d, %s) holds no response to the request", e.x.status, e.x.contentType())
}

// notify sends a notification (stamped for the era).
func (c *conn) notify(ctx context.Context, method string, params json.RawMessage) error {
	c.mu.Lock()
	c.initialized = c.initialized || method == "notifications/initialized"
	c.notified = append(c.notified, method) // the checker's own: a few a connection
	c.mu.Unlock()
	msg, err := mcp.EncodeRequest(nil, method, c.stamp(params))
	if err != nil {
		return err
	}
	_, err = c.send(ctx, msg)
	return err
}

// unpaired is said before sending what is no request awaiting its
// answer (input that is no request, a notification, a batch), which the
// server may answer with an error whose id is null: until the next
// barrier, such an error is not taken as the answer to a request.
func (c *conn) unpaired() {
	withLock(&c.mu, func() { c.expectNull = true })
}

// noteSent notes the ids of the requests data holds as sent: an answer
// under one that comes after its request was given up is late, not
// unasked for (unpending); so is the id of a request broken on purpose,
// and of a response that answers no request of the server's (input that
// is no request, which a server may answer with an error under its id).
func (c *conn) noteSent(data []byte) {
	msgs, err := mcp.DecodeMessages(data)
	c.mu.Lock()
	defer c.mu.Unlock()
	if id := member(data, "id"); err != nil && id != nil {
		c.sent.add(idKey(id))
	}
	for _, m := range msgs {
		if m.IsRequest() || m.IsResponse() && m.ID != nil && !c.asked.has(idKey(m.ID)) {
			c.sent.add(idKey(m.ID))
		}
		if m.IsResponse() && m.ID != nil && c.asked.has(idKey(m.ID)) {
			c.replied.add(idKey(m.ID))
		}
		c.given.sent(m)
		if m.Method == "subscriptions/listen" {
			c.listens.add(idKey(m.ID))
		}
	}
}

// write writes data on a stdio server's stdin, its requests noted.
func (c *conn) write(ctx context.Context, data []byte) error {
	c.noteSent(data)
	return c.stdio.Write(ctx, data)
}

// send writes data as it is: a line on stdin, or the body of a POST.
// Over HTTP it returns the answer.
func (c *conn) send(ctx context.Context, data []byte) (*exchange, error) {
	if c.http != nil {
		return c.post(ctx, httpReq{body: data}, nil)
	}
	return nil, c.write(ctx, data)
}

// waiter is a response awaited.
type waiter struct {
	ch     chan reply // 1-buffered, sent to once
	method string     // the request's
	id     json.RawMessage
	seq    int // its place among the connection's waiters
}

// reply is what ends a wait: the response, or why none will come.
type reply struct {
	m   mcp.Message
	err error
}

// expect registers a wait for the response to id, before it is sent.
func (c *conn) expect(id json.RawMessage, method string) chan reply {
	w := &waiter{ch: make(chan reply, 1), method: method, id: id}
	withLock(&c.mu, func() { c.seq++; w.seq = c.seq; c.waiting[idKey(id)] = w })
	return w.ch
}

// methodOf is the method of an encoded request.
func methodOf(msg []byte) string {
	m, _ := str(member(msg, "method"))
	return m
}

func (c *conn) unexpect(id json.RawMessage) {
	withLock(&c.mu, func() { delete(c.waiting, idKey(id)) })
}

// await waits for a response registered with expect.
func (c *conn) await(ctx context.Context, ch chan reply) (m mcp.Message, err error) {
	err = c.r.answered(ctx, func(ctx context.Context) error {
		var r reply
		select {
		case r = <-ch:
		case <-ctx.Done():
			r.err = context.Cause(ctx)
		case <-c.gone:
			select {
			case r = <-ch:
			default:
				r.err = c.err()
			}
		}
		m = r.m
		return r.err
	})
	return m, err
}

// err is why the connection ended.
func (c *conn) err() error {
	return cmp.Or(locked(&c.mu, func() error { return c.ended }), errors.New("the connection is closed"))
}

// alive reports whether the connection may still be used: it is not
// closed, and a stdio server's stdout has not ended.
func (c *conn) alive() bool {
	closed := locked(&c.mu, func() bool { return c.closed })
	select {
	case <-c.gone:
		return !closed && c.stdio == nil // over HTTP, gone is closed from the start
	default:
		return !closed
	}
}

// read reads the server's stdout until it ends, handing out responses.
func (c *conn) read() {
	defer close(c.gone)
	for {
		data, err := c.stdio.Read()
		if err != nil {
			c.frags.flush()
			withLock(&c.mu, func() { c.ended = err })
			return
		}
		c.receive(data, "stdout", nil, "", 0)
	}
}

// receive takes one wire unit: it is recorded, watched, and its
// responses handed to whoever waits for them. For an HTTP answer (of
// status) to the request id of method, its response is said to answer
// method; a unit of stdout answers no request of its own (nil, "", 0).
func (c *conn) receive(data []byte, via string, id json.RawMessage, method string, status int) []seen {
	if via == "stdout" {
		if closed := locked(&c.mu, func() bool { return c.closed }); !json.Valid(data) && closed {
			// Written once mcpv check has begun to stop the server (its
			// stdin closed, then signals): a wrapper's "Received SIGTERM"
			// answers the check's own signal, and is no message of the
			// session to judge.
			return nil
		}
		if !json.Valid(data) && len(data) <= maxFragmentBytes {
			c.frags.piece(seenLine{data, true}) // what may begin or go on with a message written over lines
			return nil
		}
		c.frags.flush()
	}
	return c.take(unitsOf(data, via, c.eraNow(), false, false), id, method, status)
}

// take records the messages of one unit, shows them to the watches, and
// hands each response to whoever waits for it. id, method and status
// are, for an HTTP answer, the request it answers and its status.
func (c *conn) take(out []seen, id json.RawMessage, method string, status int) []seen {
	// Each response is handed to whoever waits for it once the watches
	// have seen it: a check that ends at its answer ends with its run's
	// watches knowing of it.
	var hand []func()
	c.mu.Lock()
	for i := range out {
		c.count++
		out[i].n = c.count
		out[i].version = c.version
		out[i].caps, out[i].logs = c.caps, c.logs
		out[i].unpaired = c.expectNull
		m := out[i].msg
		if out[i].bad == "" { // stdout's order is the server's; over HTTP, one request's stream's alone
			stream := map[bool]string{true: "stdout"}[c.stdio != nil]
			if c.stdio == nil && id != nil {
				stream = idKey(id)
			}
			c.given.answered(m, stream)
			out[i].spent = c.given.late(m, stream)
		}
		if m.IsRequest() {
			out[i].reused = reuse(&c.asked, &c.replied, m.ID)
			if tok := member(member(m.Params, "_meta"), "progressToken"); tok != nil && c.answers != nil {
				if _, again := c.tokens[idKey(m.ID)]; !again && slices.Contains(slices.Collect(maps.Values(c.tokens)), idKey(tok)) { // one request delivered again is no second
					out[i].sharedToken = string(tok)
				}
				c.tokens[idKey(m.ID)] = idKey(tok)
			}
		}
		if m.Method != "ping" || !m.IsRequest() || c.answers == nil { // the clock read for a server's ping alone
			c.pings = c.pings[:0]
		} else if c.pings = append(c.pings, time.Now()); len(c.pings) > maxPings { // the last maxPings kept, however many come
			c.pings = c.pings[1:]
		}
		out[i].pingStorm = len(c.pings) == maxPings && time.Since(c.pings[0]) <= pingWindow
		k := idKey(member(m.Params, "requestId")) // 2026-07-28 basic/patterns/cancellation: a server cancels a subscriptions/listen of the client's, and nothing else
		out[i].strayCancel = m.Method == "notifications/cancelled" && (c.era == "modern" && !c.listens.has(k) || c.era != "modern" && !c.asked.has(k))
		if c.runsAsTask(m) {
			c.tasked.add(idKey(m.ID))
		}
		out[i].taskCancel = m.Method == "notifications/cancelled" && c.tasked.has(k)
		if m.Method == "notifications/cancelled" {
			delete(c.tokens, k) // a request the server gave up on is no longer active, answered or not
		}
		if c.era == "legacy" {
			out[i].completeBad = c.elicitation(m)
			out[i].early = !c.initialized
			if cc := clientCapabilities[m.Method]; m.IsRequest() && member(c.capabilities(), cc) == nil {
				out[i].undeclared = cc
			}
		}
		if w, r := c.match(&out[i], id, method, status); w != nil {
			delete(c.waiting, idKey(w.id))
			hand = append(hand, func() { w.ch <- r })
		}
		if len(c.log) == maxLog {
			c.log = append(c.log[:0], c.log[maxLog/2:]...)
		}
		c.log = append(c.log, out[i])
	}
	c.mu.Unlock()
	for _, s := range out {
		if s.bad != "" || s.framing {
			lazy.Wake(c.signs) // tell the first contact that something came that is no message
		}
		c.r.watches.see(s)
		for _, a := range asksOf(s) {
			switch {
			case a.Method == "sampling/createMessage":
				c.r.sampled.Store(true)
			case a.Method == "elicitation/create" && elicitMode(a.Params) == "form":
				c.r.formed.Store(true)
			}
		}
		switch {
		case c.answers != nil && s.bad == "" && s.msg.IsRequest():
			c.hand(s)
		case c.answers != nil && s.msg.IsRequest(): // no answer goes to a request that breaks its rules
			withLock(&c.mu, func() { delete(c.tokens, idKey(s.msg.ID)) })
		}
	}
	for _, h := range hand {
		h()
	}
	return out
}

// answersNote: an error with a null id that names a notification sent answers it (jsonrpc.notification's).
func answersNote(e *mcp.RPCError, notified []string) bool {
	return slices.ContainsFunc(notified, func(n string) bool { return strings.Contains(e.Message, n) })
}

// match says what response s is (whose request it answers, a twin, a
// duplicate) and which waiter, if any, it goes to, with what; mu is held.
// id, method and status are, for an HTTP answer, the request it answers
// and its status.
func (c *conn) match(s *seen, id json.RawMessage, method string, status int) (*waiter, reply) {
	m := s.msg
	switch {
	case !m.IsResponse() || s.bad != "":
	case m.ID == nil && m.Error != nil:
		// An error with a null id answers the request that waits,
		// unless input that is no request was sent (to which it is
		// the answer JSON-RPC 2.0 has), or, over HTTP, the request
		// was refused before its body was read (an error status).
		if id != nil && method != "" {
			if status/100 == 2 {
				s.method, s.nullFor = method, method
			}
		} else if waits := c.waiters(); len(waits) > 0 && !c.expectNull && c.stdio != nil && !answersNote(m.Error, c.notified) {
			// Several waiting (checks sharing the connection): most
			// likely the oldest's, as a server answers in order, but
			// not known: that one is blocked by jsonrpc.error-id.
			w := waits[0]
			s.method, s.nullFor = w.method, w.method
			if len(waits) == 1 {
				return w, reply{m: m}
			}
			return w, reply{err: &nullAnswer{err: m.Error, raw: s.raw, ambiguous: true}}
		}
	case m.ID != nil:
		if k := idKey(m.ID); id != nil && k == idKey(id) {
			s.method = method
			c.answered.put(k, answerDigest(m))
		} else if id != nil && twinKey(m.ID) == twinKey(id) {
			s.twin = string(id)
		} else if w, ok := c.waiting[k]; ok {
			s.method = w.method
			c.answered.put(k, answerDigest(m))
			return w, reply{m: m}
		} else if w := c.twinWaiter(m.ID); w != nil && !c.answered.has(k) {
			s.twin = string(w.id)
			return w, reply{err: &twinError{sent: string(w.id), got: string(m.ID)}}
		} else if c.answered.has(k) && c.answered.ids[k] == answerDigest(m) {
			s.dup = true
		} else if id != nil || c.stdio != nil { // over HTTP, a stream of no request's is http.get-no-response's
			// The HTTP answer's request, or those waiting on stdio, the oldest first.
			waits := c.waiters()
			if id != nil {
				waits = []*waiter{{method: method, id: id}}
			}
			said := make([]string, 0, 3)
			for _, w := range waits[:min(len(waits), 3)] {
				said = append(said, fmt.Sprintf("%s (id %s)", w.method, clip(string(w.id), 60)))
			}
			if s.unpending = unpending(&c.sent, &c.answered, k, m, said); s.unpending != "" && len(waits) > 0 {
				s.meant = waits[0].method
				if id == nil && len(waits) == 1 {
					return waits[0], reply{err: &strayAnswer{raw: s.raw, said: s.unpending}}
				}
			}
		}
	}
	return nil, reply{}
}

// waiters are the requests waiting, the oldest first; mu must be held.
func (c *conn) waiters() []*waiter {
	return slices.SortedFunc(maps.Values(c.waiting), func(a, b *waiter) int { return a.seq - b.seq })
}

// twinWaiter is the request waiting whose id is id written as another
// JSON type, or nil; mu must be held.
func (c *conn) twinWaiter(id json.RawMessage) *waiter {
	k := twinKey(id)
	for _, w := range c.waiting {
		if twinKey(w.id) == k {
			return w
		}
	}
	return nil
}

// shapeOf says how one message breaks JSON-RPC 2.0 as MCP uses it, or "".
func shapeOf(data []byte, m mcp.Message) string {
	if v, ok := str(member(data, "jsonrpc")); !ok || v != "2.0" {
		return `it has no "jsonrpc": "2.0"`
	}
	if m.IsResponse() && member(data, "error") != nil && member(data, "result") != nil { // "error": null is a member there
		return bothShape
	}
	if m.IsResponse() && m.Error == nil && !rawjson.IsObject(m.Result) {
		return objectShape
	}
	if m.Error != nil && member(member(data, "error"), "message") == nil {
		return "its error has no message"
	}
	if p := bytes.TrimSpace(m.Params); len(p) > 0 && p[0] != '{' && p[0] != '[' {
		// JSON-RPC 2.0 has params by name or by position; that MCP's
		// are by name is its schema's (jsonrpc.schema).
		return "its params are neither an object nor an array"
	}
	return ""
}

// describe is a message in a few words, for one taken out of a batch.
func describe(m mcp.Message) string {
	switch {
	case m.IsRequest():
		return fmt.Sprintf("request %s id %s", m.Method, m.ID)
	case m.IsNotification():
		return "notification " + m.Method
	case m.Error != nil:
		return fmt.Sprintf("error response id %s code %d", m.ID, m.Error.Code)
	}
	return fmt.Sprintf("response id %s", m.ID)
}

// mark is where the connection's messages stand now, for since.
func (c *conn) mark() int {
	return locked(&c.mu, func() int { return c.count })
}

// since are the messages received after mark (those still kept).
func (c *conn) since(mark int) []seen {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.IndexFunc(c.log, func(s seen) bool { return s.n > mark }); i >= 0 {
		return slices.Clone(c.log[i:]) // the log is in the order the messages came
	}
	return nil
}

// close ends the connection: the stdio server stopped (stdin closed,
// then signals, each wait bounded), the HTTP session deleted.
func (c *conn) close() {
	c.mu.Lock()
	again, session := c.closed, ""
	c.closed = true
	if c.http != nil {
		session = c.http.session
	}
	c.mu.Unlock()
	c.cancel() // an answer being written gives up first: it may hold stdin
	if again {
		<-c.gone // closed from the start over HTTP, which has no reader
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if c.stdio != nil {
		c.stdio.Close(ctx)
		<-c.gone
	} else if session != "" && c.era == "legacy" && !c.r.sharing(c, session) {
		c.post(ctx, httpReq{method: "DELETE"}, nil)
	}
}

// idKey is an id's canonical text: a string's value, a number's value
// (1 and 1.0 are one id), so that a response matches the request it
// answers whatever way the server wrote the id.
func idKey(id json.RawMessage) string {
	if s, err := rawjson.String(id); err == nil {
		return "s:" + s
	}
	if r, ok := new(big.Rat).SetString(strings.TrimSpace(string(id))); ok {
		return "n:" + r.RatString()
	}
	return "?:" + string(id)
}

// junkHandler takes the main session's warnings about lines on stdout
// that are no JSON, for the watches.
type junkHandler struct {
	r *runner
}

func (h junkHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h junkHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h junkHandler) WithGroup(string) slog.Handler            { return h }
func (h junkHandler) Handle(_ context.Context, r slog.Record) error {
	const prefix = "skipped a line on the server's stdout that is not JSON: "
	if strings.HasPrefix(r.Message, "the server frames its messages with Content-Length headers") {
		// As LSP does: jsonrpc.framing is shown it once, and the run's own
		// connections speak that framing from their start, so that the
		// other checks judge what the server says.
		if !h.r.headers.Swap(true) {
			h.r.watches.see(seen{via: "stdout", bad: headerLine, raw: "Content-Length: ... (a header block before each message)"})
		}
		return nil
	}
	line, ok := strings.CutPrefix(r.Message, prefix)
	if !ok {
		return nil
	}
	if unquoted, err := strconv.Unquote(line); err == nil {
		line = unquoted // the line whole, as it came, when the warning kept it whole
	}
	h.r.wire.frags.junk([]byte(line))
	return nil
}

// clientCapabilities are the client capabilities the server's requests
// need declared, by method (ping needs none).
var clientCapabilities = map[string]string{"roots/list": "roots", "sampling/createMessage": "sampling", "elicitation/create": "elicitation"}

// eventID notes an SSE event's id; a second time on the connection (or
// replayed, after Last-Event-ID had passed it), the watches are shown it.
func (c *conn) eventID(id string, replayed bool) {
	if again := !locked(&c.mu, func() bool { return c.events.add(id) }); again || replayed {
		c.r.watches.see(seen{via: "event stream", era: c.era, eventDup: id, replayed: replayed})
	}
}
