package serve

// The 2024-11-05 HTTP+SSE transport
// (https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse),
// beside Streamable HTTP, for clients that speak only it. A client's GET
// at the stream's path (LegacyPaths) opens its session and its stream:
// the stream's first event (endpoint) names where it POSTs its messages,
// with the session's id, and every message for it, answers included,
// follows on the stream. Each POST is answered 202 once taken.
//
// The session is the stream's: when the client drops its stream, takes
// nothing written to it for the stall, or serve ends, its session ends
// and what it asked is cancelled upstream. A client that stalled is told:
// what was not sent it yet but answers is dropped, its calls' errors take
// their place, and its stream is kept for Told more, so that one that
// reads again finds them. A client whose call hangs is pinged every stall
// while it waits (pausedWatch). Its session id names no Streamable
// session, and counts against MaxSessions as one does.

import (
	"cmp"
	"context"
	"net/http"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// sse opens a legacy client's session and serves its stream until the
// session ends.
func (h *HTTPHandler) sse(w http.ResponseWriter, r *http.Request) {
	sid, s := h.open(w, whoOf(r), true)
	if s == nil {
		return
	}
	st := h.pace(newStream())
	_, message := h.legacyPaths()
	st.preamble = "event: endpoint\ndata: " + message + "?sessionId=" + sid + "\n\n"
	st.told = cmp.Or(h.Told, st.stall, DefaultStall)
	st.stalled = func() {
		st.quiet.Store(true)
		st.dropNotes()
		h.end(sid) // its calls are cancelled, upstream too, and their errors queued
	}
	s.t.mu.Lock()
	s.t.get = st
	s.t.mu.Unlock()
	defer func() {
		close(st.gone) // what is still sent for it fails at once
		h.end(sid)     // cancels what it asked, upstream too
	}()
	go pausedWatch(s, st, cmp.Or(st.stall, DefaultStall)) // paused-client watch: ends with the stream or the session
	st.answer(w, r, nil, s.t.closed, true)
}

// pausedWatch finds a paused client out: one whose call hangs has nothing
// to take but keep-alives, which the network holds for it however long
// it reads nothing. So it is pinged every stall while it waits, and one
// that answers nothing within the stall has stalled.
func pausedWatch(s *httpSession, st *stream, stall time.Duration) {
	tick := time.NewTicker(stall)
	defer tick.Stop()
	for {
		select {
		case <-st.gone:
			return
		case <-s.t.closed:
			return
		case <-tick.C:
		}
		if !s.c.busy() {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), stall)
		_, err := s.c.sess.Call(ctx, "ping", nil)
		timedOut := err != nil && ctx.Err() != nil
		cancel()
		if timedOut {
			st.stalled()
			return
		}
	}
}

// message takes a legacy client's POST: one JSON-RPC message, or a batch,
// for the session its URL names.
func (h *HTTPHandler) message(w http.ResponseWriter, r *http.Request) {
	ids := r.URL.Query()["sessionId"]
	if len(ids) != 1 {
		httpError(w, http.StatusBadRequest, "the URL must name one session (sessionId), as the endpoint event gave it")
		return
	}
	s := h.lookup(ids[0], true, whoOf(r))
	if s == nil {
		httpError(w, http.StatusNotFound, "session not found")
		return
	}
	body, release, ok := h.readBody(w, r)
	defer release()
	if !ok {
		return
	}
	// A batch goes on whole, as this era has them; else one message, or refused.
	if _, rerr := readIncoming(body); rerr != nil && !(rawjson.Valid(body) && body[rawjson.SkipSpace(body, 0)] == '[') {
		writeRPCError(w, http.StatusBadRequest, nil, rerr)
		return
	}
	s.t.accept(w, r, body)
}
