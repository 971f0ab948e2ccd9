package testkit

import (
	"net/http"
	"runtime/debug"
	"sync"
	"testing"
)

// HTTP is t's one client, over connections of its own that are let go
// when t ends (TestNoRequestThroughTheSharedPool says why).
func HTTP(t testing.TB) *http.Client {
	clientsMu.Lock()
	defer clientsMu.Unlock()
	if clients[t] == nil {
		clients[t] = &http.Client{Transport: Pool(t)}
		t.Cleanup(func() { clientsMu.Lock(); delete(clients, t); clientsMu.Unlock() })
	}
	return clients[t]
}

var (
	clientsMu sync.Mutex // guards clients
	clients   = map[testing.TB]*http.Client{}
)

// Pool is http.DefaultTransport's settings with connections of its own,
// let go when t ends.
func Pool(t testing.TB) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// FailOnPanic is h, whose panic fails t: net/http would log it and close
// the connection, which a client reads as the server's own choice, and
// the test could pass. The server must be closed before t ends (Close
// waits for its handlers).
func FailOnPanic(t testing.TB, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p != http.ErrAbortHandler {
					t.Errorf("a test's server panicked serving %s %s: %v\n%s", r.Method, r.URL, p, debug.Stack())
				}
				panic(http.ErrAbortHandler)
			}
		}()
		h.ServeHTTP(w, r)
	})
}
