package serve

import (
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// stream is where a POST's or the GET's messages wait to be written.
type stream struct {
	ch     chan outMsg
	gone   chan struct{} // closed when the HTTP request is over
	events bool          // an event stream; else the response alone, as JSON
	// lazy (a modern client's POST) starts the event stream with its
	// first message: an error that comes first goes as JSON, with the
	// status it calls for (modernStatus).
	lazy      bool
	header    http.Header   // the POST's headers
	preamble  string        // written first on an event stream: a legacy stream's endpoint event
	stall     time.Duration // how long the client may take nothing (DefaultStall when 0)
	keepAlive time.Duration // how often a silent started event stream gets a comment (none when 0)
	// stalled, on a legacy client's stream, is told when the client has
	// taken nothing for the stall; the stream is then kept for told more,
	// for the client that reads again to find its calls' errors.
	stalled func()
	told    time.Duration
	quiet   atomic.Bool // the client stalled: only answers go to it
}

// pace gives st the handler's stall and keep-alive.
func (h *HTTPHandler) pace(st *stream) *stream {
	st.stall = h.Stall
	st.keepAlive = max(cmp.Or(h.KeepAlive, DefaultKeepAlive), 0)
	return st
}

func newStream() *stream {
	return &stream{ch: make(chan outMsg, 16), gone: make(chan struct{}), events: true}
}

// outMsg is a message for a stream: its parts, written one after the
// other (a large result is never joined to its framing), and its id when
// it is a response.
type outMsg struct {
	parts    [][]byte
	id       json.RawMessage
	response bool
}

// answer writes the stream's messages until the response to id (none for
// the GET stream) has gone, the client goes, or the session ends: as an
// event stream, or, for a client that takes none, the response alone as
// one JSON body. It reports whether the response went. A client that
// takes nothing for the stream's stall has gone, as one that hangs up
// has: whatever it was sent, it holds no more than what waits for it.
func (st *stream) answer(w http.ResponseWriter, r *http.Request, id json.RawMessage, closed <-chan struct{}, events bool) bool {
	stall := cmp.Or(max(st.stall, 0), DefaultStall)
	sw := &stallWriter{w: w, rc: http.NewResponseController(w), stall: stall, stalled: st.stalled, told: st.told}
	defer sw.done()
	started := false
	if events && !st.lazy {
		if !sw.startEvents(st.preamble) {
			return false
		}
		started = true
	}
	var tick <-chan time.Time // once started, with a keep-alive
	if events && st.keepAlive > 0 {
		t := time.NewTicker(st.keepAlive)
		defer t.Stop()
		tick = t.C
	}
	// put writes msg; end says the stream is over, went that the
	// response went.
	put := func(msg outMsg) (end, went bool) {
		final := id != nil && msg.response && string(msg.id) == string(id)
		status := http.StatusOK
		if final && !started && st.lazy {
			status = modernStatus(msg.parts)
		}
		if final && !started && (!events || status != http.StatusOK) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			writeParts(sw, msg.parts)
			sw.flush()
			return true, true
		}
		if !events {
			return false, false
		}
		if !started {
			if !sw.startEvents(st.preamble) {
				return true, false
			}
			started = true
		}
		io.WriteString(sw, "event: message\ndata: ")
		writeParts(sw, msg.parts)
		io.WriteString(sw, "\n\n")
		if !sw.flush() {
			return true, false // the client took nothing for its stall: gone
		}
		return final, final
	}
	for {
		select {
		case <-tick:
			if !started {
				continue
			}
			io.WriteString(sw, ": keep-alive\n\n")
			if !sw.flush() {
				return false
			}
		case msg := <-st.ch:
			if end, went := put(msg); end {
				return went
			}
		case <-r.Context().Done():
			return false
		case <-closed:
			// What the session handed over before it closed, it counts
			// as sent (a cancelled call's error among it): it is written
			// before the stream ends, not lost to the order select picks.
			for {
				select {
				case msg := <-st.ch:
					if end, went := put(msg); end {
						return went
					}
				default:
					return false
				}
			}
		}
	}
}

// dropNotes drops what waits for the stream but answers.
func (st *stream) dropNotes() {
	var answers []outMsg
	for len(st.ch) > 0 {
		select {
		case m := <-st.ch:
			if m.response {
				answers = append(answers, m)
			}
		default:
		}
	}
	for _, m := range answers {
		select {
		case st.ch <- m:
		case <-st.gone:
			return
		}
	}
}

func writeParts(w io.Writer, parts [][]byte) {
	for _, p := range parts {
		w.Write(p)
	}
}

// DefaultStall is how long an HTTP client may take nothing of what is
// written to it before it counts as gone.
const DefaultStall = 30 * time.Second

// DefaultKeepAlive is how often an event stream with nothing to say gets
// a comment: within the 60 s after which common proxies and load
// balancers cut a silent connection.
const DefaultKeepAlive = 25 * time.Second

// stallPiece is the most written under one deadline, so that a slow
// reader of a large result is told from one that reads nothing.
const stallPiece = 64 << 10

// stallWriter writes a response in pieces, each under a write deadline
// of the stall; after a write fails, nothing more is written. With
// stalled, a piece not taken within the stall tells stalled, and the
// write goes on until told later, for a client that reads again.
type stallWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	stall   time.Duration
	stalled func()
	told    time.Duration
	once    sync.Once // guards calling stalled
	late    bool      // stalled was told: each write has told
	err     error     // the first write's error
}

func (s *stallWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 && s.err == nil {
		piece := p[:min(len(p), stallPiece)]
		var m int
		s.bounded(func() { m, s.err = s.w.Write(piece) })
		n += m
		p = p[m:]
	}
	return n, s.err
}

// flush sends what is buffered, under the deadline; it reports whether
// everything written so far went.
func (s *stallWriter) flush() bool {
	if s.err == nil {
		s.bounded(func() {
			if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
				s.err = err
			}
		})
	}
	return s.err == nil
}

// bounded writes under the deadline: the stall, or with stalled the
// stall and told, stalled being told at the stall.
func (s *stallWriter) bounded(write func()) {
	if s.stalled == nil || s.late {
		bound := s.stall
		if s.late {
			bound = s.told
		}
		s.rc.SetWriteDeadline(time.Now().Add(bound)) // not supported by a recorder: no bound there
		write()
		return
	}
	s.rc.SetWriteDeadline(time.Now().Add(s.stall + s.told))
	t := time.AfterFunc(s.stall, func() { s.once.Do(s.stalled) }) // a stalled legacy client's end: ends once its session has
	write()
	if !t.Stop() {
		s.late = true
	}
}

// done lifts the deadline, for the next request on the connection.
func (s *stallWriter) done() {
	if s.err == nil {
		s.rc.SetWriteDeadline(time.Time{})
	}
}

// startEvents starts an event stream, with preamble as its first event
// when there is one.
func (s *stallWriter) startEvents(preamble string) bool {
	s.w.Header().Set("Content-Type", "text/event-stream")
	s.w.Header().Set("Cache-Control", "no-cache")
	s.w.WriteHeader(http.StatusOK)
	io.WriteString(s, preamble)
	return s.flush()
}
