package mcp

// The JSON-RPC session: one connection to one server.
//
// Concurrency design (see also the package doc):
//   - One reader goroutine calls Transport.Read in a loop and routes every
//     message. It never runs user code and never waits on a caller: responses go
//     to the waiting call's 1-buffered channel, notifications to a bounded
//     queue drained in order by one dispatcher goroutine, so a response can
//     never be stuck behind notifications nobody is consuming yet. When the
//     dispatcher falls behind, the queue keeps the latest of what supersedes
//     (progress per token) and drops the rest, counted (notes.go). A call
//     returns only once the notifications that arrived before its response
//     have been handled (progress shown), unless its context ends first.
//     The one thing the reader may wait for on a notification is
//     SessionOptions.Record (--events), which it calls as it reads.
//   - Server requests other than ping run in goroutines of their own, at
//     most maxServerRequests at once; when every slot is taken the reader
//     waits for a handler to end. Answers, pings' included, are queued in an
//     outbox that one goroutine writes in order, so a handler never waits
//     on a server that is not reading; the outbox holds at most maxOutbox
//     bytes, and beyond that the reader waits too. A server that floods
//     mcpv with requests thus meets back-pressure, and mcpv's memory stays
//     bounded, but a server that sends many pings before it reads again
//     (one thread doing both) is answered without a stall.
//   - Call registers its pending entry before writing the request, so a response
//     can never arrive for an id the reader does not know yet.
//   - Writes are serialised (a semaphore that gives up with the caller's
//     context), so a stream transport sees one message at a time; a transport
//     that declares ConcurrentWrites (HTTP: one POST per message) is not.
//   - When Read fails, the reader records the error, closes done and stops;
//     every waiting and future Call returns that error.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// Transport carries whole JSON-RPC messages (one JSON value each) both ways.
// The package doc has the contract in full; in short:
type Transport interface {
	// Read returns the next wire unit from the server: one JSON object, or an
	// array of them (a batch). Only the session's reader goroutine calls it,
	// and the session keeps the slice, so each call returns a fresh one.
	//
	// Errors: a *RequestError fails the one request it names and the reader
	// reads on. Any other error ends the session and becomes every pending
	// and later Call's error: io.EOF (reported as "server closed the
	// connection"), a *TransportError (which may quote the server's stderr),
	// or an *AuthError. After Close, Read returns an error promptly.
	Read() ([]byte, error)
	// Write sends one message, giving up when ctx is done. msg is never
	// modified or kept by the caller afterwards. The session calls Write from
	// one goroutine at a time, unless the transport is a ConcurrentWriter
	// that says it takes concurrent writes. A request's Write may return
	// before its answer arrives: the answer comes back through Read.
	Write(ctx context.Context, msg []byte) error
	// Close ends the connection within a bounded time; when ctx is done it
	// skips the grace periods and ends it at once. It may be called while
	// Read and Write are in progress, and more than once.
	Close(ctx context.Context) error
}

// ConcurrentWriter is implemented by a transport whose Write may run on
// several goroutines at once (HTTP, where every message is its own POST).
// The session then stops serialising writes when ConcurrentWrites is true.
type ConcurrentWriter interface {
	ConcurrentWrites() bool
}

// VersionSetter is implemented by a transport that must know the negotiated
// protocol version (HTTP sends it as MCP-Protocol-Version on every request
// after initialize). Initialize calls it once the version is agreed.
type VersionSetter interface {
	SetProtocolVersion(version string)
}

// RequestHandler answers a server-to-client request other than ping. Returning
// an *RPCError sends that error; any other error is sent as an internal error.
type RequestHandler func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)

// SessionOptions configure a Session. All fields are optional.
type SessionOptions struct {
	// Handler answers server requests; nil answers each with method-not-found.
	Handler RequestHandler
	// OnNotification receives the server's notifications, in order, on one
	// goroutine of its own: every one, unless it falls so far behind that
	// the bounded queue before it thins them (notes.go). It must not call
	// back into the session synchronously: a call returns only after the notifications that came
	// before its response have been handled, so such a call would wait for
	// itself.
	OnNotification func(method string, params json.RawMessage)
	// Record, when set, sees every server notification as the reader reads
	// it, before it is queued for OnNotification: for a log that must miss
	// none, which OnNotification, behind a bounded queue, may. It runs on
	// the reader goroutine, so while it writes, the server's stream is not
	// read (back-pressure on the server, not a queue in memory); it must
	// not call into the session.
	Record func(method string, params json.RawMessage)
	// Trace sees every message sent (out=true) or received.
	Trace func(out bool, msg []byte)
	// Log receives warnings about what the server sent; nil discards them.
	Log *slog.Logger
	// OnDropped, when set, is told how many notifications a full queue
	// dropped (and how many of them were log messages) instead of Log:
	// a caller that counts them (mcpv load) says so once, not per drop.
	OnDropped func(logs, other int)
	// ReadGate, when set, is called on the reader goroutine before each
	// read of the transport, with the size of what the read before it
	// returned (0 before the first). It may wait, to hold the server back
	// while what it sent is still held (a session keeper waits while a
	// large result is written to its command); the server's stream is
	// not read meanwhile. It must not call into the session.
	ReadGate func(last int)
	// NoteBackPressure: when OnNotification falls behind, its full queue
	// holds the reader (the server's stream is not read meanwhile)
	// instead of dropping notifications (mcp/notes.go). For a handler
	// that hands each on and waits for room a bounded time; it must
	// never wait for the reader (a call's answer), which would wait
	// for it.
	NoteBackPressure bool
	// LeaveQuestions: Close leaves the server requests still being
	// handled unanswered, for the peer to answer itself (a session keeper
	// answers the question of a command that left with the session's
	// answers), instead of answering each with an error.
	LeaveQuestions bool
}

// maxServerRequests bounds the server requests handled at once.
const maxServerRequests = 64

// maxOutbox bounds the bytes of answers waiting to be written;
// outboxItemCost is what one answer costs beyond its bytes and parts.
const (
	maxOutbox      = 16 << 20
	outboxItemCost = 48
)

// answerWriteTimeout bounds writing the answer to a server request.
const answerWriteTimeout = 30 * time.Second

// cancelWriteTimeout bounds the best-effort cancellation notice.
const cancelWriteTimeout = time.Second

// closeSettle bounds how long Close waits for the server requests being
// handled to be answered, and the answers waiting to be written.
const closeSettle = 2 * time.Second

// errClosing is why a server request still being handled when the session
// closes is cancelled: it is answered with an error, not left unanswered.
var errClosing = errors.New("the session is closing")

// Session is a JSON-RPC connection to a server.
type Session struct {
	t    Transport
	opts SessionOptions

	wsem   chan struct{} // a 1-slot semaphore serialising t.Write, unless the transport takes concurrent writes
	lastID atomic.Int64  // last request id used; ids are never reused

	mu       sync.Mutex                         // guards the fields below
	pending  map[int64]chan message             // our requests awaiting a response, by id
	callers  map[int64]any                      // the Caller of each pending request sent WithCaller
	incoming map[string]context.CancelCauseFunc // server requests being handled, by raw id
	progress map[string]func()                  // progress watchers, by raw progress token
	err      error                              // why the reader stopped; set once
	closing  bool                               // Close was called

	done     chan struct{}      // closed when the reader stops
	notes    noteQueue          // reader → dispatcher, bounded; closed by the reader when it stops
	noted    chan struct{}      // closed when the dispatcher has drained notes
	slots    chan struct{}      // one token per server request being handled
	calm     chan struct{}      // 1-buffered: a handler ended or an answer was written (settle looks again)
	out      outbox             // answers to server requests, waiting to be written
	base     context.Context    // parent of server-request contexts
	cancelFn context.CancelFunc // cancels base when the reader stops or Close is called
}

// NewSession starts reading from t. The reader and dispatcher goroutines stop
// when t.Read fails, which Close brings about.
func NewSession(t Transport, opts SessionOptions) *Session {
	opts.Log = cmp.Or(opts.Log, slog.New(slog.DiscardHandler))
	s := &Session{
		t:        t,
		opts:     opts,
		pending:  make(map[int64]chan message),
		incoming: make(map[string]context.CancelCauseFunc),
		progress: make(map[string]func()),
		done:     make(chan struct{}),
		notes:    newNoteQueue(opts.NoteBackPressure),
		noted:    make(chan struct{}),
		slots:    make(chan struct{}, maxServerRequests),
		calm:     make(chan struct{}, 1),
		out:      outbox{wake: make(chan struct{}, 1), room: make(chan struct{}, 1)},
	}
	if c, ok := t.(ConcurrentWriter); !ok || !c.ConcurrentWrites() {
		s.wsem = make(chan struct{}, 1)
	}
	s.base, s.cancelFn = context.WithCancel(context.Background())
	// serve's downstream session, one per client, is a Session: these are its goroutines too.
	go s.read()         // session reader: stops when t.Read fails
	go s.dispatch()     // notification dispatcher: stops when the reader closes s.notes
	go s.writeAnswers() // answer writer: stops when the session ends (base is cancelled)
	return s
}

// Call sends a request and waits for its response. It returns exactly once:
// the raw result; a *CallError for a JSON-RPC error; context.Cause(ctx) when ctx
// ends first (after a best-effort notifications/cancelled, never for
// initialize: https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation);
// or the session's terminal error.
func (s *Session) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return s.call(ctx, method, params, nil)
}

// call is Call with st streamed and meta added to params' _meta.
func (s *Session) call(ctx context.Context, method string, params json.RawMessage, st *Streamed, meta ...metaEntry) (json.RawMessage, error) {
	r, err := s.begin(ctx, method, params, st, meta...)
	if err != nil {
		return nil, err
	}
	return r.wait(ctx)
}

// request is a request on the wire whose response is still to be taken.
// Exactly one of wait, take or abandon ends it.
type request struct {
	s      *Session
	id     int64
	method string
	ch     chan message // 1-buffered; the reader puts the response here
}

// begin registers a request and writes it, with st streamed and meta added
// to its params' _meta, without waiting for the response: Call is begin then wait. The pending entry exists before the
// write, so no response can arrive unmatched.
func (s *Session) begin(ctx context.Context, method string, params json.RawMessage, st *Streamed, meta ...metaEntry) (*request, error) {
	n := s.lastID.Add(1)
	s.mu.Lock()
	if err := s.err; err != nil {
		s.mu.Unlock()
		return nil, &methodError{method, err}
	}
	ch := replies.Get().(chan message)
	s.pending[n] = ch
	if v := ctx.Value(callerKey{}); v != nil {
		lazy.Put(&s.callers, n, v)
	}
	s.mu.Unlock()

	var idText [20]byte
	id := strconv.AppendInt(idText[:0], n, 10)
	if f, ok := ctx.Value(sentIDKey{}).(func(json.RawMessage)); ok {
		f(bytes.Clone(id)) // before the request goes: its answers may follow at once
	}
	msg, err := encodeRequest(id, method, params, meta...)
	if err == nil {
		err = s.write(ctx, msg, st)
	}
	if err != nil {
		if s.forget(n) {
			replies.Put(ch)
		}
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, &methodError{method, err}
	}
	return &request{s: s, id: n, method: method, ch: ch}, nil
}

// wait returns the request's response, as Call does.
func (r *request) wait(ctx context.Context) (json.RawMessage, error) {
	s := r.s
	select {
	case m := <-r.ch:
		return r.take(ctx, m)
	case <-ctx.Done():
		if m, ok := r.abandon(); ok {
			// The reader delivered the response as ctx ended: prefer it.
			return response(r.method, m)
		}
		// Not told: withSilentCancel's request, and one ended because the
		// server's era changed (recall.go), which a server of the
		// initialize era must not hear of before initialize either.
		if r.method != "initialize" && ctx.Value(silentKey{}) == nil && !errors.As(context.Cause(ctx), new(*eraChanged)) {
			// The server is told to stop working on it; a late response
			// is ignored, its id no longer pending.
			params, _ := json.Marshal(struct {
				RequestID json.RawMessage `json:"requestId"`
				Reason    string          `json:"reason"`
			}{intID(r.id), context.Cause(ctx).Error()})
			wctx, cancel := context.WithTimeout(context.Background(), cancelWriteTimeout)
			_ = s.Notify(wctx, "notifications/cancelled", params)
			cancel()
		}
		return nil, context.Cause(ctx)
	case <-s.done:
		select {
		case m := <-r.ch:
			return response(r.method, m)
		default:
		}
		if err := s.Err(); !Resendable(r.method) && r.method != "initialize" && !errors.As(err, new(*LostError)) {
			// Delivered, and the session ended before its answer (a
			// server that crashed under it): it may have acted.
			return nil, &methodError{r.method, &LostError{Method: r.method, Err: err}}
		}
		return nil, &methodError{r.method, s.Err()}
	}
}

// take turns m, received from r.ch, into the result: after the
// notifications that came before it have been handled.
func (r *request) take(ctx context.Context, m message) (json.RawMessage, error) {
	replies.Put(r.ch)
	r.s.notes.wait(ctx, r.s.noted, m.notes)
	return response(r.method, m)
}

// abandon forgets the request, telling the server nothing; a response that
// arrives later is ignored. It returns the response when the reader had
// already delivered it.
func (r *request) abandon() (m message, delivered bool) {
	if delivered = !r.s.forget(r.id); delivered {
		m = <-r.ch
	}
	replies.Put(r.ch)
	return m, delivered
}

// replies holds the channels that calls wait on, for reuse. A channel goes
// back only once no response can reach it any more: its call has taken
// the response, or taken its id out of pending before the reader found it.
// (One left in pending when the session ended is left to the collector.)
var replies = sync.Pool{New: func() any { return make(chan message, 1) }}

func response(method string, m message) (json.RawMessage, error) {
	if ce, ok := m.local.(*CallError); ok {
		return nil, ce // the server's JSON-RPC error, which names the method itself
	}
	if m.local != nil {
		return nil, &methodError{method, m.local}
	}
	if m.Error != nil {
		return nil, &CallError{Method: method, Err: m.Error}
	}
	return m.Result, nil
}

// methodError is a request's failure said of its method ("tools/list:
// ..."): the session alone names the method, and transports name what
// they were doing (a POST, reading the answer).
type methodError struct {
	Method string
	Err    error
}

func (e *methodError) Error() string { return e.Method + ": " + e.Err.Error() }
func (e *methodError) Unwrap() error { return e.Err }

// forget removes a pending call; it reports false when the reader already took it.
func (s *Session) forget(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.pending[id]
	delete(s.pending, id)
	delete(s.callers, id)
	return ok
}

type silentKey struct{}

// withSilentCancel marks a request whose end is not told to the server:
// the server/discover probe, which a server of the initialize era must not
// get a notification about before initialize.
func withSilentCancel(ctx context.Context) context.Context {
	return context.WithValue(ctx, silentKey{}, true)
}

// Notify sends a notification.
func (s *Session) Notify(ctx context.Context, method string, params json.RawMessage) error {
	msg, err := encodeRequest(nil, method, params)
	if err != nil {
		return err
	}
	return s.write(ctx, msg, nil)
}

// write writes one message: every request and notification goes
// through it. A message that streams st's string is traced as its view,
// and written whole to a transport that takes no stream.
func (s *Session) write(ctx context.Context, msg []byte, st *Streamed) error {
	if err := s.turn(ctx); err != nil {
		return err
	}
	defer s.endTurn()
	var m *streamedMsg // msg as it goes, when it carries st's string
	if st != nil && len(st.Marker) > 0 {
		if i := bytes.Index(msg, st.Marker); i >= 0 {
			m = &streamedMsg{head: msg[:i], tail: msg[i+len(st.Marker):], st: st}
		}
	}
	traced := msg
	var err error
	if m != nil && s.opts.Trace != nil {
		traced, err = m.view()
	}
	sw, streams := s.t.(streamWriter)
	if m != nil && !streams && err == nil {
		msg, err = m.whole()
	}
	if err != nil {
		return err
	}
	if s.opts.Trace != nil {
		s.opts.Trace(true, traced)
	}
	if m != nil && streams {
		return sw.writeStream(ctx, msg, m)
	}
	return s.t.Write(ctx, msg)
}

// writeParts writes one message given in parts: through a PartsWriter,
// else joined.
func (s *Session) writeParts(ctx context.Context, msg parts) error {
	if len(msg) == 1 {
		return s.write(ctx, msg[0], nil)
	}
	if err := s.turn(ctx); err != nil {
		return err
	}
	defer s.endTurn()
	pw, ok := s.t.(PartsWriter)
	if s.opts.Trace != nil || !ok {
		joined := bytes.Join(msg, nil)
		if s.opts.Trace != nil {
			s.opts.Trace(true, joined)
		}
		if !ok {
			return s.t.Write(ctx, joined)
		}
	}
	return pw.WriteParts(ctx, msg)
}

// turn waits for the session's turn to write, unless the transport takes
// concurrent writes; endTurn must follow when it returns nil.
func (s *Session) turn(ctx context.Context) error {
	if s.wsem != nil {
		select {
		case s.wsem <- struct{}{}:
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-s.done:
			return s.Err()
		}
	}
	select {
	case <-s.done:
		s.endTurn()
		return s.Err()
	default:
	}
	return nil
}

// endTurn ends a turn that turn began.
func (s *Session) endTurn() {
	if s.wsem != nil {
		<-s.wsem
	}
}

// PartsWriter is implemented by a transport that writes one message
// given in parts, one after the other, without joining them: an answer
// that carries a large result as it was read (a relay's) is then never
// copied.
type PartsWriter interface {
	WriteParts(ctx context.Context, parts [][]byte) error
}

// Err returns why the session ended, or nil while it runs.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.done }

// Close shuts the transport down (bounded; ctx done means at once), waits for
// the reader to stop and for every queued notification to be delivered.
// Server requests still being handled are cancelled and answered with an
// error first, and the answers waiting are written, for closeSettle at
// most: a server that waits on an answer (its own timer on a roots/list)
// would otherwise outlive the closing of its input by that wait
// (SessionOptions.LeaveQuestions leaves them to the peer).
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	handling := slices.Collect(maps.Values(s.incoming))
	s.mu.Unlock()
	if !s.opts.LeaveQuestions {
		for _, cancel := range handling {
			cancel(errClosing)
		}
		s.settle(ctx)
	}
	s.cancelFn() // handlers stop, and a reader waiting for a slot goes on
	err := s.t.Close(ctx)
	<-s.done
	<-s.noted
	return err
}

func (s *Session) read() {
	junk := 0 // messages skipped so far; warnings stop after maxJunkWarnings
	// msgs is reused from one wire unit to the next, and cleared after
	// routing so that it keeps no message's bytes alive.
	var msgs []message
	last := 0
	for {
		if s.opts.ReadGate != nil {
			s.opts.ReadGate(last)
		}
		data, err := s.t.Read()
		last = len(data)
		if err != nil {
			if rerr, ok := errors.AsType[*RequestError](err); ok {
				s.route(message{ID: rerr.ID, local: rerr.Err})
				continue
			}
			s.stop(err)
			return
		}
		if s.opts.Trace != nil {
			s.opts.Trace(false, data)
		}
		msgs, err = appendMessages(msgs[:0], data)
		if err != nil {
			s.undecodable(data, err, &junk)
			continue
		}
		var related json.RawMessage
		if rr, ok := s.t.(relatedReader); ok {
			related = rr.relatedTo()
		}
		for i := range msgs {
			msgs[i].related = related
			s.route(msgs[i])
		}
		clear(msgs)
	}
}

// undecodable handles a message that is not valid JSON-RPC. A server
// whose writers interleave may write one answer into another: each whole
// message found inside the damaged one is routed as it came (salvage), so
// that a request whose answer was written whole gets it. What is left is
// damaged: an answer the session can tie to a pending call (its id
// readable at its start, or as its last member) fails that call at once,
// and that call alone; one it cannot tie to any fails the only call
// pending, when there is just one (it can be no other's), and is otherwise
// skipped with a warning, each call left to its own bound; anything else
// is skipped with a warning (a server's stray output). It never ends the
// session: one damaged line fails one request at most.
func (s *Session) undecodable(data []byte, err error, junk *int) {
	whole, damaged := salvage(data)
	tied, response := false, false
	for _, piece := range damaged {
		id, r := answerIn(piece)
		response = response || r
		if _, ours := ourID(id); !ours {
			id = trailingID(piece)
		}
		n, ours := ourID(id)
		s.mu.Lock()
		_, pending := s.pending[n]
		s.mu.Unlock()
		if ours && pending {
			s.route(message{ID: intID(n), local: &TransportError{Op: "the server's answer cannot be read", Err: err}})
			tied = true
		}
	}
	for _, m := range whole {
		s.route(m)
	}
	if tied || len(whole) > 0 {
		return
	}
	if response {
		if n, ok := s.onlyPending(); ok {
			s.route(message{ID: intID(n), local: &TransportError{Op: "the server sent an answer that cannot be read or tied to a request", Err: err}})
			return
		}
	}
	if *junk++; *junk <= maxJunkWarnings {
		s.opts.Log.Warn(fmt.Sprintf("skipping a message that is not JSON-RPC: %s (%v)", quoteClip(data, 200), err))
	}
}

// onlyPending returns the one request awaiting an answer, when there is
// exactly one.
func (s *Session) onlyPending() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := range s.pending {
		return n, len(s.pending) == 1
	}
	return 0, false
}

// maxSalvage bounds the messages looked for inside one damaged line, and
// so the reading it costs: each try reads at most the rest of the line.
const maxSalvage = 16

// salvage finds the whole JSON-RPC messages written inside a damaged
// line, data, and returns them with the damaged pieces around them. A
// message written into another ends the line (its own newline ended it)
// or runs into the next such message; each starts with {"jsonrpc", as
// every server writes them. A JSON-RPC object nested in a result is
// followed by more of that result, and is not taken for one.
func salvage(data []byte) (whole []message, damaged [][]byte) {
	from, at := 0, 1
	for tries := 0; tries < maxSalvage; tries++ {
		i := bytes.Index(data[at:], []byte(`"jsonrpc"`))
		if i < 0 {
			break
		}
		i += at
		at = i + 1
		start := bytes.LastIndexByte(data[from:i], '{')
		if start < 0 || rawjson.SkipSpace(data, from+start+1) != i {
			continue
		}
		start += from
		end := rawjson.ValueEnd(data, start)
		if end < 0 || !endsMessage(data, end) {
			continue
		}
		m, err := decodeMessage(data[start:end])
		if err != nil {
			continue
		}
		whole = append(whole, m)
		if start > from {
			damaged = append(damaged, data[from:start])
		}
		from, at = end, end
	}
	if from < len(data) {
		damaged = append(damaged, data[from:])
	}
	return whole, damaged
}

// endsMessage reports whether a message that ends at data[end] is
// followed by nothing but whitespace, or by another message.
func endsMessage(data []byte, end int) bool {
	i := rawjson.SkipSpace(data, end)
	if i == len(data) {
		return true
	}
	return data[i] == '{' && bytes.HasPrefix(data[rawjson.SkipSpace(data, i+1):], []byte(`"jsonrpc"`))
}

// trailingID reads the id of a damaged answer whose end survived: its last
// member, "id": N, closing the line (a nested "id" is followed by more
// than one closing bracket). nil when there is none.
func trailingID(data []byte) json.RawMessage {
	d := bytes.TrimRight(data, " \t\r\n")
	if !bytes.HasSuffix(d, []byte("}")) {
		return nil
	}
	d = bytes.TrimRight(d[:len(d)-1], " \t\r\n")
	j := len(d)
	for j > 0 && d[j-1] >= '0' && d[j-1] <= '9' {
		j--
	}
	digits := d[j:]
	d = bytes.TrimRight(d[:j], " \t\r\n")
	if len(digits) == 0 || !bytes.HasSuffix(d, []byte(":")) {
		return nil
	}
	d = bytes.TrimRight(d[:len(d)-1], " \t\r\n")
	if !bytes.HasSuffix(d, []byte(`"id"`)) {
		return nil
	}
	return digits
}

func (s *Session) stop(err error) {
	if errors.Is(err, io.EOF) {
		err = &TransportError{Op: "server closed the connection"}
	}
	s.mu.Lock()
	if s.closing {
		err = &TransportError{Op: "session closed", Err: err}
	}
	s.err = err
	s.mu.Unlock()
	close(s.done)
	s.cancelFn()
	s.notes.close()
}

func (s *Session) route(m message) {
	switch {
	case m.isRequest():
		s.serve(m)
	case m.isNotification():
		if m.Method == "notifications/cancelled" || m.Method == "notifications/progress" {
			s.heed(m)
		}
		if s.opts.Record != nil {
			s.opts.Record(m.Method, m.Params)
		}
		s.notes.push(m, supersedeKey(m.Method, m.Params), s.base.Done())
	case m.ID == nil:
		// An error response the server could not tie to a request (JSON-RPC
		// 2.0 §5: a parse error has a null id); a result without an id
		// answers nothing and is dropped.
		if m.Error != nil {
			s.opts.Log.Warn(fmt.Sprintf("server reported an error without a request id: %v", m.Error))
		}
	default:
		n, ours := ourID(m.ID)
		if !ours {
			return // an id mcpv never sends
		}
		s.mu.Lock()
		ch, ok := s.pending[n]
		delete(s.pending, n)
		delete(s.callers, n)
		s.mu.Unlock()
		if ok {
			m.notes = s.notes.count()
			ch <- m // buffered: never blocks
		}
		// Responses to unknown or cancelled ids are ignored.
	}
}

// callerKey marks a request's context with its caller (WithCaller).
type callerKey struct{}

// WithCaller marks ctx with v, whom a request sent with it is made for:
// the handler of a request the server makes of mcpv while it answers that
// one finds v in its context (Caller), when the server says which request
// it answers: a modern server's input requests, and what a Streamable
// HTTP server sends on the request's own stream
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server).
// Over stdio a server of the initialize era does not say.
func WithCaller(ctx context.Context, v any) context.Context {
	return context.WithValue(ctx, callerKey{}, v)
}

// Caller is the v of WithCaller that ctx, a request's or a server
// request handler's, carries; nil when none.
func Caller(ctx context.Context) any { return ctx.Value(callerKey{}) }

// relatedReader is a Transport that tells, of the message Read returned
// last, the id of mcpv's request on whose answer it came (nil: none).
// Only the session's reader calls it, after Read.
type relatedReader interface{ relatedTo() json.RawMessage }

// serve answers one server request: a ping at once, anything else on a
// goroutine of its own, which ends when the handler returns; the handler's
// context ends when the server cancels the request or the session stops.
// When maxServerRequests are being handled the reader waits here for a
// slot; a request that arrives as the session closes is dropped.
func (s *Session) serve(m message) {
	if m.Method == "ping" {
		msg, _ := responseParts(m.ID, json.RawMessage(`{}`), nil)
		s.answer(msg)
		return
	}
	select {
	case s.slots <- struct{}{}:
	case <-s.base.Done():
		return
	}
	key := string(m.ID)
	slot := &resultMembers{}
	ctx, cancel := context.WithCancelCause(context.WithValue(context.WithValue(s.base, incomingKey{}, m.ID), resultMembersKey{}, slot))
	s.mu.Lock()
	if n, ok := ourID(m.related); ok && s.callers[n] != nil {
		ctx = context.WithValue(ctx, callerKey{}, s.callers[n])
	}
	closing := s.closing && !s.opts.LeaveQuestions
	if !closing {
		s.incoming[key] = cancel
	}
	s.mu.Unlock()
	if closing {
		cancel(errClosing) // come as the session closes: answered at once, by the rule below
	}
	go func() { // server-request handler: ends once answered, or cancelled
		defer func() {
			s.mu.Lock()
			delete(s.incoming, key)
			s.mu.Unlock()
			cancel(nil)
			<-s.slots
			lazy.Wake(s.calm)
		}()
		var result json.RawMessage
		var err error
		if !closing {
			result, err = s.handle(ctx, m.Method, m.Params)
		}
		if ctx.Err() != nil {
			if context.Cause(ctx) != errClosing {
				return // cancelled by the server (no reply is sent: see cancellation) or session over
			}
			result, err = nil, &RPCError{Code: CodeInternalError, Message: m.Method + ": not answered: " + errClosing.Error()}
		}
		var rerr *RPCError
		if err != nil {
			if !errors.As(err, &rerr) {
				rerr = &RPCError{Code: CodeInternalError, Message: err.Error()}
			}
			result = nil
		} else if result == nil {
			result = json.RawMessage(`{}`)
		}
		msg, err := responseParts(m.ID, result, rerr)
		if rerr == nil && slot.members != nil {
			msg, err = responseWithMembers(m.ID, result, slot.members)
		}
		if err != nil {
			msg, _ = responseParts(m.ID, nil, &RPCError{Code: CodeInternalError, Message: err.Error()})
		}
		s.answer(msg)
	}()
}

// answer queues msg for the answer writer; it waits while the outbox is
// full, and drops msg when the session ends first.
func (s *Session) answer(msg parts) {
	for !s.out.push(msg) {
		select {
		case <-s.out.room:
		case <-s.base.Done():
			return
		}
	}
}

// writeAnswers writes queued answers in order. An answer the server does
// not take within answerWriteTimeout is dropped, and the next one tried.
func (s *Session) writeAnswers() {
	for {
		batch, ok := s.out.take(s.base.Done())
		if !ok {
			return
		}
		for _, msg := range batch {
			ctx, cancel := context.WithTimeout(s.base, answerWriteTimeout)
			s.writeParts(ctx, msg)
			cancel()
			s.out.written()
			lazy.Wake(s.calm)
		}
	}
}

// settle waits, for closeSettle at most or until ctx ends, until no
// server request is being handled and every answer queued is written.
func (s *Session) settle(ctx context.Context) {
	if ctx.Err() != nil || s.settled() {
		return
	}
	deadline := time.After(closeSettle)
	for !s.settled() {
		select {
		case <-s.calm:
		case <-deadline:
			return
		case <-ctx.Done():
			return
		case <-s.done:
			return // nothing more can be written
		}
	}
}

func (s *Session) settled() bool {
	return len(s.slots) == 0 && s.out.unwritten() == 0
}

// outbox is the queue of answers: many producers (handlers, the reader for
// pings), one consumer (writeAnswers). push never blocks; it refuses when
// the queue holds maxOutbox bytes already.
type outbox struct {
	mu    sync.Mutex    // guards items, bytes and due
	items []parts       // waiting, oldest first
	bytes int           // their total size
	due   int           // answers pushed and not yet written (or dropped)
	wake  chan struct{} // 1-buffered: something was pushed
	room  chan struct{} // 1-buffered: something was taken
}

func (o *outbox) push(msg parts) bool {
	// An answer costs its bytes and what holds them (the parts, their
	// slice headers, the queue's slot): a flood of small answers is
	// bounded by what it really takes, not by its bytes alone.
	cost := msg.size() + outboxItemCost + len(msg)*24
	o.mu.Lock()
	if o.bytes > 0 && o.bytes+cost > maxOutbox {
		o.mu.Unlock()
		return false
	}
	o.items = append(o.items, msg)
	o.bytes += cost
	o.due++
	o.mu.Unlock()
	lazy.Wake(o.wake)
	return true
}

// written counts one answer taken off the queue as written (or dropped).
func (o *outbox) written() {
	o.mu.Lock()
	o.due--
	o.mu.Unlock()
}

// unwritten is how many answers are queued or being written.
func (o *outbox) unwritten() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.due
}

// take waits for answers and returns all that are queued; false once done
// is closed.
func (o *outbox) take(done <-chan struct{}) ([]parts, bool) {
	for {
		o.mu.Lock()
		items := o.items
		o.items, o.bytes = nil, 0
		o.mu.Unlock()
		if len(items) > 0 {
			lazy.Wake(o.room)
			return items, true
		}
		select {
		case <-o.wake:
		case <-done:
			return nil, false
		}
	}
}

func (s *Session) handle(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if s.opts.Handler != nil {
		return s.opts.Handler(ctx, method, params)
	}
	return nil, MethodNotFound(method)
}

type incomingKey struct{}

// IncomingID is the id of the peer's request a RequestHandler is
// answering, as the peer wrote it; nil outside a handler.
func IncomingID(ctx context.Context) json.RawMessage {
	id, _ := ctx.Value(incomingKey{}).(json.RawMessage)
	return id
}

// MethodNotFound is the answer to a request mcpv does not serve.
func MethodNotFound(method string) *RPCError {
	return &RPCError{Code: CodeMethodNotFound, Message: "Method not found: " + method}
}

// WatchProgress calls fn, on the reader goroutine, for each progress
// notification carrying token (raw JSON); fn must not block. The returned
// function stops watching.
func (s *Session) WatchProgress(token json.RawMessage, fn func()) (stop func()) {
	key := string(token)
	s.mu.Lock()
	s.progress[key] = fn
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.progress, key)
		s.mu.Unlock()
	}
}

// heed acts on a notification the session itself takes note of: a
// cancellation of a server request being handled, or progress on a
// request a watcher waits on (WatchProgress). Invalid ones are ignored.
func (s *Session) heed(m message) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Token     json.RawMessage `json:"progressToken"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	s.mu.Lock()
	cancel, watch := s.incoming[string(p.RequestID)], s.progress[string(p.Token)]
	s.mu.Unlock()
	switch {
	case m.Method == "notifications/cancelled" && p.RequestID != nil && cancel != nil:
		cancel(nil)
	case m.Method == "notifications/progress" && p.Token != nil && watch != nil:
		watch()
	}
}
