package oauth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
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

// A token answer whose access token, token type or refresh token holds a
// CR, an LF, an ESC (or a space, or a byte past ASCII, where a header
// cannot take one) is refused at the token step of every grant, with one
// line that names the authorization server's host and the member, never
// the token; the honest answer of the same server is taken.
func TestTokenAnswerUnsendable(t *testing.T) {
	grants := map[string]func(t *testing.T, w *world) error{
		"authorization code": func(t *testing.T, w *world) error {
			_, err := w.manager(t, t.TempDir(), ModeAuto, browser(t)).Login(t.Context())
			return err
		},
		"device": func(t *testing.T, w *world) (err error) {
			synctest.Test(t, func(t *testing.T) { // the server's interval, a second, on the bubble's clock
				m, _ := deviceManager(t, w, Options{ShowDevice: func(dc DeviceCode) { w.Approve(dc.UserCode) }})
				_, err = m.Login(t.Context())
			})
			return err
		},
		"refresh": func(t *testing.T, w *world) error {
			_, refresh := w.Issue("read")
			_, err := Refresh(t.Context(), testkit.HTTP(t), &ServerMetadata{TokenEndpoint: w.AS.URL + "/token"}, &Client{ID: "c"}, refresh, "", "")
			return err
		},
		"client credentials": func(t *testing.T, w *world) error {
			_, err := ClientCredentials(t.Context(), testkit.HTTP(t), &ServerMetadata{TokenEndpoint: w.AS.URL + "/token"},
				&Client{ID: "bot", Secret: "bot-secret", AuthMethod: AuthClientSecretBasic}, "", "")
			return err
		},
	}
	for grant, run := range grants {
		for _, tc := range []struct{ member, value, says string }{
			{"", "", ""}, // the honest twin
			{"access_token", "HOSTILE-SECRET\r\nX-Injected: 1", "access_token holds a control character"},
			{"access_token", "HOSTILE-SECRET\x1b]52;c;AAAA\x07", "access_token holds a control character"},
			{"access_token", "HOSTILE-SECRET two", "access_token holds a space"},
			{"access_token", "HOSTILE-SECRETé", "access_token holds a byte that is not ASCII"},
			{"refresh_token", "HOSTILE-SECRET\n", "refresh_token holds a control character"},
			{"token_type", "Bearer\r\n", "token_type holds a control character"},
		} {
			t.Run(grant+" "+tc.member+" "+tc.says, func(t *testing.T) {
				t.Parallel()
				w := newWorld(t)
				w.Device = true
				if tc.member != "" {
					w.TokenAnswer = func(a map[string]any) { a[tc.member] = tc.value }
				}
				err := run(t, w)
				var oe *Error
				switch {
				case tc.member == "" && err != nil:
					t.Fatalf("an honest token answer: %v", err)
				case tc.member == "":
				case !errors.As(err, &oe) || oe.Step != StepToken:
					t.Fatalf("got %v, want an error of the token step", err)
				case !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), strings.TrimPrefix(w.AS.URL, "http://")):
					t.Errorf("got %q, want it to say %q and name the authorization server", err, tc.says)
				case strings.Contains(err.Error(), "HOSTILE") || strings.ContainsAny(err.Error(), "\r\n\x1b"):
					t.Errorf("the error quotes the token, or is not one line: %q", err)
				}
			})
		}
	}
}
