package apphost

import "fmt"

// An app that never finishes its handshake (its HTML does not load, its
// script fails, or it does not speak the bridge) would leave the page at
// "loading…" with nothing said: past HandshakeWait from the page's coming,
// the host says on stderr, and on the page, what it still waits for. The
// page's messages tell how far the handshake has come (the page passes on
// the app's ui/initialize and ui/notifications/initialized).

// handshake is how far the app's handshake has come.
type handshake int

const (
	handshakeNone        handshake = iota // nothing of the app yet
	handshakeInitialize                   // it asked ui/initialize
	handshakeInitialized                  // it said ui/notifications/initialized: done
)

// heard notes a message of the page's that moves the handshake on.
func (h *Host) heard(method string) {
	step := map[string]handshake{"ui/initialize": handshakeInitialize, "ui/notifications/initialized": handshakeInitialized}[method]
	h.mu.Lock()
	h.handshake = max(h.handshake, step)
	h.mu.Unlock()
}

// handshakeLate says, once, that the app has not finished its handshake
// within HandshakeWait, and what the host waits for; nothing when it has,
// or the host is ending.
func (h *Host) handshakeLate() {
	h.mu.Lock()
	var waiting string
	switch h.handshake {
	case handshakeNone:
		waiting = "waiting for it to send ui/initialize (its page may not load, or not speak the MCP Apps bridge: see the browser's console)"
	case handshakeInitialize:
		waiting = "it sent ui/initialize; waiting for ui/notifications/initialized"
	}
	if waiting == "" || h.teardown != "" || h.ended || h.lateNote != "" {
		h.mu.Unlock()
		return
	}
	h.lateNote = fmt.Sprintf("the app has not finished its handshake in %v: %s", h.HandshakeWait, waiting)
	note := h.lateNote
	h.mu.Unlock()
	h.Notef("%s; Ctrl-C ends", note)
	h.wakeStreams()
}
