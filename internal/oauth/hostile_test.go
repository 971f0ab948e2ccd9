package oauth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// An authorization server whose endpoints never answer, or answer without
// end: each request is bounded by the client's timeout (the command
// line's --timeout) and each answer by maxAnswer bytes, in the code flow
// and the device grant alike, and the login ends with one error that
// names the endpoint.
func TestAuthorizationServerHostile(t *testing.T) {
	for _, grant := range []string{GrantAuthorizationCode, GrantDevice} {
		for _, path := range []string{"/.well-known/oauth-authorization-server", "/register", "/device", "/token"} {
			for _, how := range []string{"flood", "stall"} {
				if path == "/device" && grant != GrantDevice {
					continue
				}
				t.Run(grant+" "+path+" "+how, func(t *testing.T) {
					if how == "stall" {
						testkit.SkipLong(t, "waits for the client's timeout")
					}
					t.Parallel()
					w := newWorld(t)
					w.Device, w.Hostile = true, map[string]string{path: how}
					hc := &http.Client{Timeout: time.Hour}
					if how == "stall" {
						// The bound is the whole login's, every endpoint's:
						// long enough that an honest one of a busy machine
						// answers within it.
						hc.Timeout = 10 * time.Second
					}
					m, err := NewManager(Options{ServerURL: w.rs.URL + "/mcp", HTTP: hc, Store: &Store{Dir: t.TempDir()}, Mode: ModeAuto,
						Grant: grant, Open: browser(t), ShowDevice: func(dc DeviceCode) { w.Approve(dc.UserCode) }}, testkit.Pool(t))
					if err != nil {
						t.Fatal(err)
					}
					done := make(chan error, 1)
					go func() {
						_, err := m.Login(context.Background())
						done <- err
					}()
					select {
					case err = <-done:
					case <-time.After(5 * time.Minute): // a hang guard
						t.Fatal("the login did not end")
					}
					var te *TimeoutError
					switch {
					case err == nil || !strings.Contains(err.Error(), path):
						t.Errorf("the login ended with %v, want an error that names %s", err, path)
					case how == "flood" && !strings.Contains(err.Error(), "is larger than 1048576 bytes"):
						t.Errorf("an answer without end: %v", err)
					case how == "stall" && (!errors.As(err, &te) || te.Timeout != hc.Timeout):
						t.Errorf("an endpoint that never answers: %v, want a *TimeoutError of %v", err, hc.Timeout)
					}
				})
			}
		}
	}
}
