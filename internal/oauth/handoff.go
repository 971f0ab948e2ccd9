package oauth

// A login that never blocks a script: the command that finds a login
// needed opens the loopback listener, registers the client and builds the
// authorization request as the code flow does, then hands the listener and
// the request to a process that outlives it (the caller's HandOff) and
// returns a LoginPendingError, which says where to sign in. That process
// (Complete) serves the listener until the browser comes back or the
// hand-off expires, redeems the code and saves the token where the next
// command finds it.
//
// The link the user is given is the listener's own start page with a nonce
// of its own (StartURL); it sends the browser on to the authorization
// endpoint. The state and the code verifier never leave mcpv's processes:
// they travel to the waiting process on a pipe, not on its command line.
//
// Concurrency: Complete serves the listener on its own goroutine, one more
// per connection, and stops them all (srv.Close, then waits for Serve) on
// every return path, as Authorize does.

import (
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/safefile"
)

// HandOff is a login waited for by another process: the authorization
// request as built, and what the token's record will hold. It holds
// secrets (State, Verifier, the client's secret): it is written only to
// the pipe of the process that completes it.
type HandOff struct {
	Server        string          `json:"server"`
	Issuer        string          `json:"issuer"`
	Resource      string          `json:"resource,omitempty"`
	ResourceParam string          `json:"resourceParam,omitempty"`
	AskedScope    string          `json:"askedScope,omitempty"`
	Metadata      *ServerMetadata `json:"metadata"`
	Client        Client          `json:"client"`
	RedirectURI   string          `json:"redirectUri"`
	State         string          `json:"state"`
	Verifier      string          `json:"verifier"`
	// AuthURL is the authorization request, state included.
	AuthURL string `json:"authUrl"`
	// Nonce opens the start page: the link's only secret, the user's.
	Nonce   string    `json:"nonce"`
	Expires time.Time `json:"expires"`
	// Device, for a device login (RFC 8628), is its code: the process
	// that waits polls the token endpoint, with no listener.
	Device *DeviceCode `json:"device,omitempty"`
}

// startPath is the path of the start page on the redirect's listener.
const startPath = "/mcpv-login"

// ErrSuperseded ends the wait of a login a newer one of the same server
// took the place of.
var ErrSuperseded = errors.New("a newer login took this one's place")

// DefaultHandOffWait is how long a handed-off login is waited for when the
// caller sets no bound.
const DefaultHandOffWait = 10 * time.Minute

// Supersede ends the wait of the login p describes, if it still waits: a
// newer login of the same server takes its place, so that one process at
// most waits for each server.
func (p *Pending) Supersede(hc *http.Client) {
	if p == nil || p.Done || p.Error != "" || time.Now().After(p.Expires) || !strings.HasPrefix(p.URL, "http://127.0.0.1:") {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+"&cancel=1", nil)
	if err != nil {
		return
	}
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
	}
}

// StartURL is the link the user opens to sign in: a device login's
// verification page (with its code, when the server gives one).
func (h *HandOff) StartURL() string {
	if h.Device != nil {
		return cmp.Or(h.Device.VerificationURIComplete, h.Device.VerificationURI)
	}
	u, err := url.Parse(h.RedirectURI)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: startPath, RawQuery: "n=" + url.QueryEscape(h.Nonce)}).String()
}

// Port is the loopback port the browser must reach, for a forward from
// another machine.
func (h *HandOff) Port() string {
	u, err := url.Parse(h.RedirectURI)
	if err != nil {
		return ""
	}
	return u.Port()
}

// LoginPendingError is a login handed off: the user signs in at URL, and
// the token is there for the next command once they have.
type LoginPendingError struct {
	Server   string
	URL      string // the start link
	Port     string // the loopback port a browser elsewhere must be forwarded to
	UserCode string // a device login's code, entered at URL
	Expires  time.Time
	Note     string // where a device login's link leads, and why a stored token was not used, when it was not
}

func (e *LoginPendingError) Error() string {
	msg := fmt.Sprintf("%s needs a login: open %s in a browser (it is waited for until %s)", e.Server, e.URL, e.Expires.UTC().Format("15:04:05 UTC"))
	if e.UserCode != "" {
		msg = fmt.Sprintf("%s needs a login: open %s on any device and enter the code %s (it is waited for until %s)", e.Server, e.URL, e.UserCode, e.Expires.UTC().Format("15:04:05 UTC"))
	}
	if e.Note != "" {
		msg += "; " + e.Note
	}
	return msg
}

// handOff builds the authorization request and gives it, with the
// listener, to the caller's HandOff; the listener is closed here after.
func (m *Manager) handOff(md *ServerMetadata, client *Client, scopes []string, resource string, cb callback) error {
	verifier, err := NewVerifier()
	state, stateErr := NewState()
	nonce, nonceErr := NewState()
	if err := cmp.Or(err, stateErr, nonceErr); err != nil {
		return &Error{Step: StepAuthorization, Err: err}
	}
	scope := strings.Join(scopes, " ")
	authURL, err := authorizationURL(AuthorizeRequest{Metadata: md, Client: client, Scope: scope, Resource: resource, RedirectURI: cb.uri}, state, S256(verifier))
	if err != nil {
		return err
	}
	wait := cmp.Or(max(m.opts.LoginTimeout, 0), DefaultHandOffWait) // unset (0 or less): the default
	h := &HandOff{Server: m.server, Issuer: md.Issuer, Resource: resource, ResourceParam: m.opts.Want.param(), AskedScope: scope,
		Metadata: md, Client: client.kept(), RedirectURI: cb.uri, State: state, Verifier: verifier, AuthURL: authURL, Nonce: nonce,
		Expires: time.Now().Add(wait)}
	if err := m.opts.HandOff(h, cb.ln); err != nil {
		return &Error{Step: StepAuthorization, Err: fmt.Errorf("handing the login to a process that waits for it: %w", err)}
	}
	return &LoginPendingError{Server: m.server, URL: h.StartURL(), Port: h.Port(), Expires: h.Expires}
}

// Complete waits on ln for the browser (until ctx ends or h expires),
// redeems the code and saves the token in store.
func (h *HandOff) Complete(ctx context.Context, ln net.Listener, hc *http.Client, store *Store) error {
	defer ln.Close()
	redirect, err := url.Parse(h.RedirectURI)
	if err != nil || h.Metadata == nil {
		return stepErrorf(StepAuthorization, "a hand-off without its request")
	}
	ctx, cancel := context.WithDeadlineCause(ctx, h.Expires, &LoginTimeoutError{Timeout: time.Until(h.Expires).Round(time.Second)})
	defer cancel()
	cb := newCallbackHandler(redirect, h.State, h.Metadata)
	superseded := make(chan struct{})
	start := &startHandler{h: h, host: redirect.Host, next: cb, cancel: sync.OnceFunc(func() { close(superseded) })}
	code, err := awaitCode(ctx, ln, start, cb, superseded, nil)
	if err != nil {
		return err
	}
	client := h.Client
	tok, err := ExchangeCode(ctx, hc, h.Metadata, &client, code, h.Verifier, h.RedirectURI, h.Resource)
	if err != nil {
		return err
	}
	return h.save(ctx, store, tok, GrantAuthorizationCode)
}

// save keeps tok, got by grant, in store as h's record.
func (h *HandOff) save(ctx context.Context, store *Store, tok *Token, grant string) error {
	return store.saveToken(ctx, &Record{Server: h.Server, Issuer: h.Issuer, Resource: h.Resource, ResourceParam: h.ResourceParam,
		AskedScope: h.AskedScope, Metadata: h.Metadata, Client: h.Client, Grant: grant}, tok)
}

// startHandler serves the start page, which sends the holder of the link
// on to the authorization endpoint, and hands every other request to the
// redirect's handler. A request from another machine, under another host
// name (DNS rebinding), from a page of another origin, or without the
// link's nonce is refused: the authorization request and its state reach
// only whoever holds the link.
type startHandler struct {
	h      *HandOff
	host   string
	next   http.Handler
	cancel func() // ends the wait: the link's holder asked (a newer login of the same server)
}

func (s *startHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != startPath {
		s.next.ServeHTTP(w, r)
		return
	}
	origin := r.Header.Get("Origin")
	switch {
	case !remoteIsLoopback(r.RemoteAddr) || !strings.EqualFold(r.Host, s.host) || origin != "" && origin != "http://"+s.host:
		writeCallbackPage(w, http.StatusForbidden, "forbidden")
	case r.Method != http.MethodGet || subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("n")), []byte(s.h.Nonce)) != 1:
		http.NotFound(w, r)
	case r.URL.Query().Has("cancel"):
		writeCallbackPage(w, http.StatusOK, "this login is no longer waited for")
		s.cancel()
	default:
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		http.Redirect(w, r, s.h.AuthURL, http.StatusFound)
	}
}

// Pending is what the store says of a login handed off for a server: who
// waits for it, until when, and how it ended. It holds no secret but the
// start link's nonce, and is the user's alone as the tokens are.
type Pending struct {
	PID      int       `json:"pid"`
	URL      string    `json:"url"`
	Port     string    `json:"port"`
	UserCode string    `json:"userCode,omitempty"` // a device login's
	Note     string    `json:"note,omitempty"`     // where its link leads, when not to the authorization server
	Expires  time.Time `json:"expires"`
	// Done: the token is saved. Error: why the login failed.
	Done  bool   `json:"done,omitempty"`
	Error string `json:"error,omitempty"`
}

// waitedFor is the login of m's server a process of mcpv's still waits
// for, as the error a command gets, or nil: a command run again shows its
// link (and code) rather than a second login.
func (m *Manager) waitedFor() error {
	if m.opts.Store == nil {
		return nil
	}
	if p, err := m.opts.Store.LoadPending(m.server); err == nil && p != nil && p.waiting() {
		return &LoginPendingError{Server: m.server, URL: p.URL, Port: p.Port, UserCode: p.UserCode, Expires: p.Expires, Note: p.Note}
	}
	return nil
}

// waiting reports whether p is a login still waited for: not ended, not
// expired, its process alive and this user's (whose listener holds the
// port: another local user cannot have taken it), and listening.
func (p *Pending) waiting() bool {
	if p.Done || p.Error != "" || !time.Now().Before(p.Expires) || !ownProcess(p.PID) {
		return false
	}
	if p.Port == "" {
		return p.UserCode != "" // a device login's: its process polls, with no listener
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", p.Port), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func (s *Store) pendingPath(server string) string {
	return filepath.Join(s.Dir, digest([]byte(server))[:24]+".pending") // the first 12 bytes of the SHA-256
}

// SavePending writes what is known of the login handed off for server.
func (s *Store) SavePending(server string, p Pending) error {
	if err := s.mkdir(); err != nil {
		return err
	}
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return safefile.Replace(s.pendingPath(server), data)
}

// LoadPending reads it; (nil, nil) when no login was handed off.
func (s *Store) LoadPending(server string) (*Pending, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	f, err := safefile.OpenNoFollow(s.pendingPath(server), os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var p Pending
	if err := json.NewDecoder(io.LimitReader(f, 1<<16)).Decode(&p); err != nil {
		return nil, fmt.Errorf("the login waited for is damaged: %v", err)
	}
	return &p, nil
}
