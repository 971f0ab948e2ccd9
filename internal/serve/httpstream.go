package serve

import (
	"encoding/json"
	"io"
	"net/http"
)

// stream is where a POST's or the GET's messages wait to be written.
type stream struct {
	ch     chan outMsg
	gone   chan struct{} // closed when the HTTP request is over
	events bool          // an event stream; else the response alone, as JSON
	// lazy (a modern client's POST) starts the event stream with its
	// first message, not before: an error that comes first goes as JSON,
	// with the status it calls for (modernStatus).
	lazy   bool
	header http.Header // the POST's headers
}

func newStream() *stream {
	return &stream{ch: make(chan outMsg, 16), gone: make(chan struct{}), events: true}
}

// outMsg is a message for a stream: its parts, written one after the
// other (a large result is never joined to its framing, nor copied), and
// its id when it is a response, read once.
type outMsg struct {
	parts    [][]byte
	id       json.RawMessage
	response bool
}

// answer writes the stream's messages until the response to id (none for
// the GET stream) has gone, the client goes, or the session ends: as an
// event stream, or, for a client that takes none, the response alone as
// one JSON body (what comes before it is dropped). It reports whether the
// response went.
func (st *stream) answer(w http.ResponseWriter, r *http.Request, id json.RawMessage, closed <-chan struct{}, events bool) bool {
	started := false
	if events && !st.lazy {
		startEvents(w)
		started = true
	}
	for {
		select {
		case msg := <-st.ch:
			final := id != nil && msg.response && string(msg.id) == string(id)
			status := http.StatusOK
			if final && !started && st.lazy {
				status = modernStatus(msg.parts)
			}
			if final && !started && (!events || status != http.StatusOK) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				writeParts(w, msg.parts)
				return true
			}
			if !events {
				continue
			}
			if !started {
				startEvents(w)
				started = true
			}
			io.WriteString(w, "event: message\ndata: ")
			writeParts(w, msg.parts)
			io.WriteString(w, "\n\n")
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			if final {
				return true
			}
		case <-r.Context().Done():
			return false
		case <-closed:
			return false
		}
	}
}

func writeParts(w io.Writer, parts [][]byte) {
	for _, p := range parts {
		w.Write(p)
	}
}

func startEvents(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
