package oauth

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// bubbleHTTP is the HTTP of a device login run in a synctest bubble,
// where its waits pass at once by the bubble's clock: each request goes
// to the test's servers over the network as ever, on a connection of its
// own (a goroutine of the bubble that reads a kept one would hold the
// clock still), and each to the device and token endpoints is stamped
// with the bubble's time.
type bubbleHTTP struct {
	http.Transport
	at []time.Time
}

func (b *bubbleHTTP) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == "/device" || r.URL.Path == "/token" {
		if b.at = append(b.at, time.Now()); len(b.at) > 1000 {
			return nil, errors.New("a thousand requests: the polling runs away")
		}
	}
	return b.Transport.RoundTrip(r)
}

// waits are the times between the stamped requests: the first poll's
// after the code was asked for, then each next poll's.
func (b *bubbleHTTP) waits() []time.Duration {
	var waits []time.Duration
	for i := 1; i < len(b.at); i++ {
		waits = append(waits, b.at[i].Sub(b.at[i-1]))
	}
	return waits
}

// deviceManager is a manager of w's server that logs in with the device
// grant as o says beside, over a bubbleHTTP; run it in a bubble.
func deviceManager(t *testing.T, w *world, o Options) (*Manager, *bubbleHTTP) {
	t.Helper()
	b := &bubbleHTTP{}
	b.DisableKeepAlives = true
	o.ServerURL, o.HTTP, o.Store, o.Grant, o.Open = w.rs.URL+"/mcp", &http.Client{Transport: b}, &Store{Dir: t.TempDir()}, GrantDevice, noBrowser(t)
	o.Mode = cmp.Or(o.Mode, ModeAuto)
	m, err := NewManager(o, b)
	if err != nil {
		t.Fatal(err)
	}
	return m, b
}

// The device grant: the client registers for it (no redirect URI), asks
// for a code, shows the link and the code, and polls the token endpoint
// at the server's interval (five more after slow_down) until the user
// approves; then the resource takes its token. A user who refuses ends it
// with one clear error; a server that offers no device endpoint is told.
func TestDeviceGrant(t *testing.T) {
	w := newWorld(t)
	w.Device, w.SlowDown = true, 1
	w2 := newWorld(t)
	w2.Device = true
	synctest.Test(t, func(t *testing.T) {
		var shown []DeviceCode
		m, b := deviceManager(t, w, Options{ShowDevice: func(dc DeviceCode) {
			shown = append(shown, dc)
			w.Approve(dc.UserCode) // the user, on another device
		}})
		status, body, err := call(t, m, w, "tools/list")
		if err != nil || status != 200 || !strings.Contains(body, `"read`) {
			t.Fatalf("%d %s %v", status, body, err)
		}
		if len(shown) != 1 || !strings.HasSuffix(shown[0].VerificationURI, "/activate") || !strings.Contains(shown[0].VerificationURIComplete, shown[0].UserCode) {
			t.Errorf("shown: %+v", shown)
		}
		reg := w.SeenAt("register")
		if len(reg) != 1 || len(reg[0]["redirect_uri"]) != 0 || w.count("authorize") != 0 || w.count("token:"+GrantTypeDeviceCode) != 2 {
			t.Errorf("registered %v, %d authorizations, %d polls (slow_down first, then the token)", reg, w.count("authorize"), w.count("token:"+GrantTypeDeviceCode))
		}
		if waits := b.waits(); fmt.Sprint(waits) != "[1s 6s]" {
			t.Errorf("waited %v, want the server's interval, then five seconds more after slow_down", waits)
		}

		m2, _ := deviceManager(t, w2, Options{ShowDevice: func(dc DeviceCode) { w2.Deny(dc.UserCode) }})
		var oe *Error
		if _, _, err := call(t, m2, w2, "tools/list"); !errors.As(err, &oe) || oe.Code != "access_denied" || !strings.Contains(err.Error(), "refused") {
			t.Errorf("a refusal: %v", err)
		}
	})

	w3 := newWorld(t)
	m3, _ := NewManager(Options{ServerURL: w3.rs.URL + "/mcp", HTTP: testkit.HTTP(t), Store: &Store{Dir: t.TempDir()},
		Mode: ModeAuto, Grant: GrantDevice, Open: noBrowser(t)}, testkit.Pool(t))
	if _, _, err := call(t, m3, w3, "tools/list"); err == nil || !strings.Contains(err.Error(), "no device authorization endpoint") {
		t.Errorf("no device endpoint: %v", err)
	}
}

// A hostile authorization server's numbers (RFC 8628 §3.2, §3.5): an
// interval below a second, absent, not a number or past a minute (1e400
// too) is the RFC's five seconds, and a number sent as a string is read as
// expires_in's is; slow_down adds five, up to a minute; no wait goes past
// the code's life (expires_in), after which the login fails as expired; a
// life past an hour (past float64's range too) is an hour. Counted in polls
// on a clock of the test's own, never timed.
func TestDeviceGrantHostileNumbers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		set      map[string]any // members of the device answer; nil removes one
		slowDown int
		timeout  time.Duration // --login-timeout
		polls    int
		first    time.Duration // the first wait
		life     time.Duration // how long it is waited for in all
	}{
		{name: "interval -5", set: map[string]any{"interval": -5, "expires_in": 60}, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "interval 0", set: map[string]any{"interval": 0, "expires_in": 60}, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "interval 0.2", set: map[string]any{"interval": 0.2, "expires_in": 60}, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "no interval", set: map[string]any{"interval": nil, "expires_in": 60}, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "interval not a number", set: map[string]any{"interval": "soon", "expires_in": 60}, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "interval an object", set: map[string]any{"interval": map[string]any{"s": 1}, "expires_in": 60}, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "interval an hour", set: map[string]any{"interval": 3600, "expires_in": 60}, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "interval 1e9 past expires_in 8", set: map[string]any{"interval": 1e9, "expires_in": 8}, polls: 1, first: 5 * time.Second, life: 8 * time.Second},
		{name: "interval 1e400", set: map[string]any{"interval": json.Number("1e400"), "expires_in": 60}, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "interval -1e400", set: map[string]any{"interval": json.Number("-1e400"), "expires_in": 60}, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "interval 1e400 as a string", set: map[string]any{"interval": "1e400", "expires_in": 60}, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "interval as a string", set: map[string]any{"interval": "2", "expires_in": 60}, polls: 29, first: 2 * time.Second, life: time.Minute},
		{name: "slow_down at every poll", set: map[string]any{"interval": 1, "expires_in": 600}, slowDown: 1000, polls: 16, first: time.Second, life: 10 * time.Minute},
		{name: "expires_in 1e12, login timeout 1m", set: map[string]any{"interval": 5, "expires_in": 1e12}, timeout: time.Minute, polls: 11, first: 5 * time.Second, life: time.Minute},
		{name: "expires_in 1e300, no login timeout", set: map[string]any{"interval": 30, "expires_in": 1e300}, polls: 119, first: 30 * time.Second, life: time.Hour},
		{name: "expires_in 1e400, no login timeout", set: map[string]any{"interval": 30, "expires_in": json.Number("1e400")}, polls: 119, first: 30 * time.Second, life: time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.Device, w.SlowDown = true, tc.slowDown
			w.DeviceAnswer = func(a map[string]any) {
				for k, v := range tc.set {
					if v == nil {
						delete(a, k)
					} else {
						a[k] = v
					}
				}
			}
			synctest.Test(t, func(t *testing.T) {
				m, b := deviceManager(t, w, Options{LoginTimeout: tc.timeout, ShowDevice: func(DeviceCode) {}})
				_, err := m.Login(context.Background())
				var oe *Error
				var lt *LoginTimeoutError
				if !errors.As(err, &oe) || (oe.Code != "expired_token" && !errors.As(err, &lt)) {
					t.Errorf("the login ended with %v, want the code expired", err)
				}
				waits, sum := b.waits(), time.Since(b.at[0])
				most := slices.Max(append(waits, 0))
				if polls := w.count("token:" + GrantTypeDeviceCode); polls != tc.polls || len(waits) == 0 || waits[0] != tc.first || sum > tc.life || most > time.Minute {
					t.Errorf("%d polls after waits of %v (%v in all, the longest %v); want %d polls, the first after %v, no wait past a minute, %v in all at most",
						polls, waits[:min(len(waits), 5)], sum, most, tc.polls, tc.first, tc.life)
				}
			})
		})
	}
}

// A device login that is not approved in time says so, naming the
// authorization server where the code waited, and never a browser: at
// --login-timeout (a *LoginTimeoutError, exit 5 with its hint) or when
// the code expires, whichever comes first.
func TestDeviceGrantNotApprovedInTime(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration // --login-timeout
		says    string
	}{
		{name: "login timeout", timeout: time.Minute, says: "oauth authorization: the code was not approved at 127.0.0.1 within 1m0s"},
		{name: "code expired", timeout: time.Hour, says: "oauth authorization: expired_token (the code expired before it was approved at 127.0.0.1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.Device = true
			w.DeviceAnswer = func(a map[string]any) { a["expires_in"] = 600 }
			synctest.Test(t, func(t *testing.T) {
				m, _ := deviceManager(t, w, Options{LoginTimeout: tc.timeout, ShowDevice: func(DeviceCode) {}})
				_, err := m.Login(context.Background())
				timedOut := errors.As(err, new(*LoginTimeoutError))
				if err == nil || err.Error() != tc.says || timedOut != (tc.timeout == time.Minute) {
					t.Errorf("the login ended with %v (a login timeout: %v), want %q", err, timedOut, tc.says)
				}
			})
		})
	}
}

// A login handed off to a process of its own (no terminal) takes the same
// numbers: the hand-off waits an hour at most, and its poller, which no
// one watches, polls at the RFC's pace until the code expires.
func TestDeviceHandOffHostileNumbers(t *testing.T) {
	w := newWorld(t)
	w.Device = true
	w.DeviceAnswer = func(a map[string]any) { a["interval"], a["expires_in"] = -5, 1e12 }
	synctest.Test(t, func(t *testing.T) {
		var h *HandOff
		m, b := deviceManager(t, w, Options{Mode: ModeStored, HandOff: func(got *HandOff, _ net.Listener) error { h = got; return nil }})
		var pending *LoginPendingError
		if _, err := m.Login(context.Background()); !errors.As(err, &pending) || h == nil {
			t.Fatalf("a login without a terminal: %v", err)
		}
		if h.Device.Interval != 5 || time.Until(h.Expires) > time.Hour {
			t.Errorf("handed off a poll every %ds, waited for until %v: want every 5s, an hour at most", h.Device.Interval, h.Expires)
		}
		h.Expires = time.Now().Add(time.Minute)
		var oe *Error
		if err := h.CompleteDevice(context.Background(), m.opts.HTTP, &Store{Dir: t.TempDir()}); !errors.As(err, &oe) || oe.Code != "expired_token" || !strings.Contains(err.Error(), "approved at 127.0.0.1") {
			t.Errorf("the poller ended with %v, want the code expired unapproved at 127.0.0.1", err)
		}
		if polls := w.count("token:" + GrantTypeDeviceCode); polls != 11 {
			t.Errorf("%d polls in a minute after waits of %v, want 11", polls, b.waits())
		}
	})
}

// The links a user is sent to sign in at show where they lead: one that
// names a user before its host, is not https (but on this machine), or
// holds escapes or other characters than printable ASCII (look-alike
// letters) is refused, and nothing is shown; one on another host than the
// authorization server's is shown, naming that host.
func TestDeviceLinks(t *testing.T) {
	for _, tc := range []struct {
		name, member, link string
		refused, elsewhere string // what the error or the note says
	}{
		{name: "userinfo", member: "verification_uri", link: "https://login.microsoftonline.com@evil.example/device", refused: "names a user before its host evil.example"},
		{name: "userinfo in the complete link", member: "verification_uri_complete", link: "https://as.example:x@evil.example/device?code=1", refused: "names a user before its host evil.example"},
		{name: "plain http", member: "verification_uri", link: "http://evil.example/device", refused: "neither https"},
		{name: "plain http, complete", member: "verification_uri_complete", link: "http://evil.example/device?code=1", refused: "neither https"},
		{name: "a look-alike letter", member: "verification_uri", link: "https://аs.example/device", refused: "printable ASCII"},
		{name: "an escape", member: "verification_uri", link: "https://as.example/\x1b[2J", refused: "printable ASCII"},
		{name: "a bidirectional control", member: "verification_uri_complete", link: "https://as.example/\u202edevice", refused: "printable ASCII"},
		{name: "no host", member: "verification_uri", link: "https:/device", refused: "not an absolute URL"},
		{name: "javascript", member: "verification_uri", link: "javascript:alert(1)", refused: "not an absolute URL"},
		{name: "another host", member: "verification_uri", link: "https://microsoft.com/devicelogin", elsewhere: "the link leads to microsoft.com, not to the authorization server 127.0.0.1"},
		{name: "another host, complete", member: "verification_uri_complete", link: "https://evil.example/device?code=1", elsewhere: "the link leads to evil.example"},
		{name: "an escape in the user code", member: "user_code", link: "WDJB\x1b[2J", refused: "no code a person can enter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w.Device = true
			w.DeviceAnswer = func(a map[string]any) { a[tc.member] = tc.link }
			synctest.Test(t, func(t *testing.T) {
				var shown []DeviceCode
				m, _ := deviceManager(t, w, Options{ShowDevice: func(dc DeviceCode) {
					shown = append(shown, dc)
					w.Deny(dc.UserCode)
				}})
				_, err := m.Login(context.Background())
				if tc.refused != "" {
					if err == nil || !strings.Contains(err.Error(), tc.refused) || len(shown) != 0 || w.count("token:"+GrantTypeDeviceCode) != 0 {
						t.Errorf("%s %q: %v, shown %+v; want it refused (%q), nothing shown or polled", tc.member, tc.link, err, shown, tc.refused)
					}
					return
				}
				if len(shown) != 1 || !strings.Contains(shown[0].Elsewhere, tc.elsewhere) {
					t.Errorf("%s %q: shown %+v (%v); want it shown with a note that says %q", tc.member, tc.link, shown, err, tc.elsewhere)
				}
			})
		})
	}
}

// Google's device endpoint names its link verification_url: it is the
// verification_uri, checked and shown as that is.
func TestDeviceGoogleLink(t *testing.T) {
	w := newWorld(t)
	w.Device = true
	w.DeviceAnswer = func(a map[string]any) {
		a["verification_url"] = "https://www.google.com/device"
		delete(a, "verification_uri")
		delete(a, "verification_uri_complete")
	}
	synctest.Test(t, func(t *testing.T) {
		var shown []DeviceCode
		m, _ := deviceManager(t, w, Options{ShowDevice: func(dc DeviceCode) {
			shown = append(shown, dc)
			w.Deny(dc.UserCode)
		}})
		_, err := m.Login(context.Background())
		if len(shown) != 1 || shown[0].VerificationURI != "https://www.google.com/device" || !strings.Contains(shown[0].Elsewhere, "www.google.com") {
			t.Errorf("shown %+v (%v); want Google's link, with a note naming its host", shown, err)
		}
	})
}
