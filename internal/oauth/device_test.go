package oauth

import (
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The device grant: the client registers for it (no redirect URI), asks
// for a code, shows the link and the code, and polls the token endpoint
// at the server's interval (five more after slow_down) until the user
// approves; then the resource takes its token. A user who refuses ends it
// with one clear error; a server that offers no device endpoint is told.
func TestDeviceGrant(t *testing.T) {
	w := newWorld(t)
	w.Device, w.SlowDown = true, true
	var mu sync.Mutex
	var shown []DeviceCode
	m, err := NewManager(Options{ServerURL: w.rs.URL + "/mcp", HTTP: http.DefaultClient, Store: &Store{Dir: t.TempDir()},
		Mode: ModeAuto, Grant: GrantDevice, Open: noBrowser(t), DeviceUnit: 10 * time.Millisecond,
		ShowDevice: func(dc DeviceCode) {
			mu.Lock()
			shown = append(shown, dc)
			mu.Unlock()
			go w.Approve(dc.UserCode) // the user, on another device
		}}, http.DefaultTransport)
	if err != nil {
		t.Fatal(err)
	}
	status, body, err := call(t, m, w, "tools/list")
	if err != nil || status != 200 || !strings.Contains(body, `"read`) {
		t.Fatalf("%d %s %v", status, body, err)
	}
	if len(shown) != 1 || !strings.HasSuffix(shown[0].VerificationURI, "/activate") || !strings.Contains(shown[0].VerificationURIComplete, shown[0].UserCode) {
		t.Errorf("shown: %+v", shown)
	}
	reg := w.SeenAt("register")
	if len(reg) != 1 || len(reg[0]["redirect_uri"]) != 0 || w.count("authorize") != 0 || w.count("token:"+GrantTypeDeviceCode) < 2 {
		t.Errorf("registered %v, %d authorizations, %d polls (slow_down first, then the token)", reg, w.count("authorize"), w.count("token:"+GrantTypeDeviceCode))
	}

	w2 := newWorld(t)
	w2.Device = true
	m2, _ := NewManager(Options{ServerURL: w2.rs.URL + "/mcp", HTTP: http.DefaultClient, Store: &Store{Dir: t.TempDir()},
		Mode: ModeAuto, Grant: GrantDevice, Open: noBrowser(t), DeviceUnit: 10 * time.Millisecond,
		ShowDevice: func(dc DeviceCode) { go w2.Deny(dc.UserCode) }}, http.DefaultTransport)
	var oe *Error
	if _, _, err := call(t, m2, w2, "tools/list"); !errors.As(err, &oe) || oe.Code != "access_denied" || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a refusal: %v", err)
	}

	w3 := newWorld(t)
	m3, _ := NewManager(Options{ServerURL: w3.rs.URL + "/mcp", HTTP: http.DefaultClient, Store: &Store{Dir: t.TempDir()},
		Mode: ModeAuto, Grant: GrantDevice, Open: noBrowser(t)}, http.DefaultTransport)
	if _, _, err := call(t, m3, w3, "tools/list"); err == nil || !strings.Contains(err.Error(), "no device authorization endpoint") {
		t.Errorf("no device endpoint: %v", err)
	}
}
