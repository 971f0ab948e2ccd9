// Package apphost is the local host page of mcpv app --open: an MCP App
// (internal/apps) rendered in a real browser, as a web host renders one
// (the extension's "Sandbox proxy"), and the host's side of its bridge.
//
// Two HTTP servers listen on 127.0.0.1, so that two origins exist: the host
// page's (assets/host.html and host.js, and the API it alone may use), and
// the sandbox proxy's (assets/proxy.html), which frames the app's HTML as a
// srcdoc sandboxed to scripts alone, under a content security policy built
// from what the app declared (apps.CSP.Policy) and sent as the proxy's own
// header, which the srcdoc inherits. The app can reach neither mcpv's token
// (in the host page's memory, never in a message to the frame) nor its
// origin (another origin, and an opaque one inside): all it can do is post
// messages, which the host page bounds and hands to mcpv's API, and mcpv
// decides (Host.Allow: the tool's visibility, the guard, the user's
// consent) and relays through the session.
//
// The API (host origin only, with the token, the right Host and Origin):
//
//	GET  /api/app     what the page needs: the app's HTML, policy, tool, arguments
//	GET  /api/events  a stream of NDJSON: the tool's result, the end
//	POST /api/rpc     one message of the app: answered, or recorded
//
// Run ends when the app is torn down (the app asked, or ctx ended), when
// the page is gone for good, or when the servers fail.
package apphost

import (
	"cmp"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/apps"
	"github.com/mcpv/mcpv/internal/origin"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

var (
	//go:embed assets/host.html
	hostPage string
	//go:embed assets/host.js
	hostScript string
	//go:embed assets/proxy.html
	proxyPage string
)

// Bounds of what the app may send and do at once, by default.
const (
	DefaultMaxMessage  = 4 << 20
	DefaultMaxInFlight = 16
	// maxHeight bounds the frame's height, whatever size the app asks.
	maxHeight = 6000
	// goneGrace is how long a page that went away (its event stream
	// ended: closed, or reloaded) has to come back before the host ends.
	goneGrace = 5 * time.Second
	// teardownWait bounds the wait for the page to tear the app down.
	teardownWait = 5 * time.Second
	// callWait bounds the wait, as Run returns, for the app's tool call
	// to end once cancelled (and to have said how it ended).
	callWait = 5 * time.Second
	// DefaultHandshakeWait is how long an app has, from the page's
	// coming, to finish its handshake before the host says it has not.
	DefaultHandshakeWait = 15 * time.Second
)

// App is the app the host renders, and the call it renders it for.
type App struct {
	Tool        json.RawMessage // the tool's definition, as listed
	ToolName    string
	ResourceURI string
	Arguments   json.RawMessage // the call's arguments (ui/notifications/tool-input)
	HTML        []byte
	Meta        apps.Meta
	// Granted are the permissions of Meta.Permissions the user grants.
	Granted []string
	// ServerTools and ServerResources: the server declares tools and
	// resources, which the host relays for the app.
	ServerTools, ServerResources bool
}

// Host serves one app.
type Host struct {
	App App
	// Call makes the tool call the app is shown for; its result (or
	// error) is what the app is given.
	Call func(ctx context.Context) (json.RawMessage, error)
	// Request answers a request of the app that is not the host page's
	// own (tools/call, tools/list, resources/read, ui/message...): a
	// result, or an error whose message the app is given.
	Request func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError)
	// Event is told of each notification of the app, and of what the
	// host did (method, params): one line of the run's record.
	Event func(method string, params json.RawMessage)
	// Open opens the host page in the user's browser (nil: it is shown
	// on stderr for the user to open).
	Open func(url string) error
	// Notef writes a line for the user on stderr.
	Notef func(format string, args ...any)
	// Listen is the host page's address (127.0.0.1:0 when "").
	Listen string
	// TempDir holds the file that opens the page (the OS's when "").
	TempDir string
	// Info names the host to the app.
	Info mcp.Implementation
	// MaxMessage and MaxInFlight bound what the app sends (the defaults
	// when 0).
	MaxMessage  int
	MaxInFlight int
	// TeardownWait bounds the wait at the end for the page to tear the
	// app down (teardownWait when 0).
	TeardownWait time.Duration
	// HandshakeWait is how long the app has, from the page's coming, to
	// finish its handshake (ui/notifications/initialized): past it, the
	// host says on stderr and on the page what it still waits for, and
	// goes on waiting (DefaultHandshakeWait when 0).
	HandshakeWait time.Duration

	token, proxyID  string
	hostOrigin      string
	proxyOrigin     string
	callDone        chan struct{} // closed once result/callErr are set
	result          json.RawMessage
	callErr         error
	mu              sync.Mutex    // guards the fields below
	streams         int           // event streams open
	pageCame        bool          // the page asked what the app is (GET /api/app)
	handshake       handshake     // how far the app's handshake has come
	late            *time.Timer   // fires at HandshakeWait from the page's coming; nil before it
	lateNote        string        // what the page is told of a late handshake, once it is
	ended           bool          // Run has returned: nothing more is said
	everConnected   bool          // an event stream was ever open
	teardown        string        // the reason the host ends, once it does
	wake            chan struct{} // closed and replaced when teardown is set
	tornDown        chan struct{} // closed when the page says the app is torn down
	tornDownOnce    sync.Once
	gone            chan struct{} // sent to when the page's last stream ends
	requestTeardown chan string   // the app asked to be torn down
	unguarded       chan struct{} // the page's browser has no Trusted Types
	opener          string        // the directory of the file that opens the page
}

// ErrPageGone is Run's error when the page went away before the app ended.
var ErrPageGone = errors.New("the host page was closed")

// ErrNoTrustedTypes is Run's error when the page's browser has no
// Trusted Types, without which the app's frame cannot be kept from
// WebRTC (assets/guard.js): the page renders no app in it.
var ErrNoTrustedTypes = errors.New("the browser has no Trusted Types, which keep the app from reaching the network through WebRTC: the app was not rendered (with --no-browser, open the address in a browser that has them, such as Chrome or Edge)")

func (h *Host) init() error {
	h.token, h.proxyID = random(), random()
	h.callDone, h.wake, h.tornDown = make(chan struct{}), make(chan struct{}), make(chan struct{})
	h.gone, h.requestTeardown, h.unguarded = make(chan struct{}, 1), make(chan string, 1), make(chan struct{}, 1)
	h.MaxMessage = cmp.Or(max(h.MaxMessage, 0), DefaultMaxMessage)
	h.TeardownWait = cmp.Or(max(h.TeardownWait, 0), teardownWait)
	h.HandshakeWait = cmp.Or(max(h.HandshakeWait, 0), DefaultHandshakeWait)
	h.MaxInFlight = cmp.Or(max(h.MaxInFlight, 0), DefaultMaxInFlight)
	if h.Notef == nil {
		h.Notef = func(string, ...any) {}
	}
	if h.Event == nil {
		h.Event = func(string, json.RawMessage) {}
	}
	return nil
}

func random() string {
	var b [24]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// listenLoopback listens on addr, which must be a loopback address.
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
	if !origin.Loopback(host) || host == "localhost" {
		return nil, fmt.Errorf("%s: the host page listens on a loopback address (127.0.0.1:PORT), never beyond this machine", addr)
	}
	return net.Listen("tcp", addr)
}

// Run serves the app until it ends (see the package's doc): nil when the
// app was torn down at its own request, ErrPageGone when the page went,
// ErrNoTrustedTypes when the page's browser cannot guard the app,
// ctx's cause when ctx ended (after the app was asked to end, within a
// bound).
func (h *Host) Run(ctx context.Context) error {
	h.init()
	hl, err := listenLoopback(cmp.Or(h.Listen, "127.0.0.1:0"))
	if err != nil {
		return err
	}
	pl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		hl.Close()
		return err
	}
	h.hostOrigin = "http://" + hl.Addr().String()
	h.proxyOrigin = "http://" + pl.Addr().String()
	hs := &http.Server{Handler: http.HandlerFunc(h.serveHost), ReadHeaderTimeout: 10 * time.Second}
	ps := &http.Server{Handler: http.HandlerFunc(h.serveProxy), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 2)
	go func() { served <- hs.Serve(hl) }() // host page server: ends at Close below
	go func() { served <- ps.Serve(pl) }() // sandbox proxy server: ends at Close below
	defer func() {
		hs.Close()
		ps.Close()
		h.removeOpener()
		h.mu.Lock()
		h.ended = true
		if h.late != nil {
			h.late.Stop()
		}
		h.mu.Unlock()
	}()

	defer h.startCall(ctx)()

	page := h.hostOrigin + "/#" + h.token
	if err := h.open(page); err != nil {
		h.removeOpener()
		h.Notef("could not open a browser (%v): open %s yourself", err, page)
	} else if h.Open == nil {
		h.Notef("the app's host page: %s (open it in a browser; Ctrl-C ends)", page)
	}

	var gone <-chan time.Time
	for {
		select {
		case err := <-served:
			return fmt.Errorf("the host page's server: %w", err)
		case reason := <-h.requestTeardown:
			return h.end(reason, nil)
		case <-h.unguarded:
			return h.end("the browser has no Trusted Types", ErrNoTrustedTypes)
		case <-h.gone:
			gone = time.After(goneGrace)
		case <-gone:
			h.mu.Lock()
			back := h.streams > 0
			h.mu.Unlock()
			if !back {
				return ErrPageGone
			}
			gone = nil
		case <-ctx.Done():
			return h.end("the host is ending", context.Cause(ctx))
		}
	}
}

// end asks the page to tear the app down, waits for it (teardownWait at
// most, and not at all for a page that never came or is gone), and
// returns err. A page that came but has not opened its event stream yet
// (a busy machine) is waited for: the stream it opens starts with the
// teardown.
// startCall starts the app's tool call; the function it returns cancels
// it and waits, within callWait, for it to end and say how.
func (h *Host) startCall(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	go func() { // the app's tool call: ends when the call does: cancelled at the latest as Run returns
		res, err := h.Call(ctx)
		h.mu.Lock()
		h.result, h.callErr = res, err
		h.mu.Unlock()
		close(h.callDone)
		h.wakeStreams()
	}()
	return func() {
		cancel()
		select {
		case <-h.callDone:
		case <-time.After(callWait):
		}
	}
}

func (h *Host) end(reason string, err error) error {
	// Said before the page hears it, so that its host/torn-down follows.
	h.Event("host/teardown", rawjson.MustMarshal(map[string]string{"reason": reason}))
	h.mu.Lock()
	h.teardown = reason
	waitPage := h.streams > 0 || h.pageCame && !h.everConnected
	h.mu.Unlock()
	h.wakeStreams()
	if waitPage {
		select {
		case <-h.tornDown:
		case <-time.After(h.TeardownWait):
		}
	}
	return err
}

func (h *Host) wakeStreams() {
	h.mu.Lock()
	close(h.wake)
	h.wake = make(chan struct{})
	h.mu.Unlock()
}

// open opens the page: through a file only the user can read, which sends
// the browser on to the page, so that the token is never on a command
// line another user can read (/proc/PID/cmdline).
func (h *Host) open(page string) error {
	if h.Open == nil {
		return nil
	}
	dir, err := os.MkdirTemp(h.TempDir, "mcpv-app-")
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.opener = dir // removed once the page has come, or at the end
	h.mu.Unlock()
	file := filepath.Join(dir, "open.html")
	js, _ := json.Marshal(page)
	body := `<!DOCTYPE html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>mcpv app</title>` +
		`<script>location.replace(` + string(js) + `)</script>`
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		return err
	}
	return h.Open("file://" + filepath.ToSlash(file))
}

// removeOpener removes the file that opened the page.
func (h *Host) removeOpener() {
	h.mu.Lock()
	dir := h.opener
	h.opener = ""
	h.mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
}
