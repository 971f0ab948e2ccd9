package testkit

import (
	"net/http"
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
