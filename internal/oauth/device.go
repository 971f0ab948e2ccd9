package oauth

// The device authorization grant (RFC 8628), for a machine where no
// browser can be opened (a shell over ssh, a container): the user opens a
// link on any device and enters a code there, while mcpv asks the token
// endpoint, at the server's pace, whether they have.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// GrantDevice is the device authorization grant; GrantTypeDeviceCode its
// grant_type at the token endpoint.
const (
	GrantDevice         = "device_code"
	GrantTypeDeviceCode = "urn:ietf:params:oauth:grant-type:device_code"
)

// DeviceCode is a device authorization response (RFC 8628 §3.2), as
// mcpv takes it: its numbers within the RFC's bounds, its links checked.
type DeviceCode struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete,omitempty"`
	ExpiresIn               int    `json:"expires_in"`
	Interval                int    `json:"interval,omitempty"`
	// Elsewhere says, when the links lead to another host than the
	// authorization server's, which host they lead to, for the user.
	Elsewhere string `json:"elsewhere,omitempty"`
}

// How a device login waits (RFC 8628 §3.5): every interval seconds the
// server names, five when it names none, or less than a second (which
// would make mcpv a flood), or more than a minute; slow_down adds five,
// up to a minute. A code is waited for until it expires, an hour at most.
const (
	defaultPoll   = 5 * time.Second
	maxPoll       = time.Minute
	maxDeviceLife = time.Hour
)

// device runs the grant at md for client: it asks for a code, shows the
// user the link and the code, then polls the token endpoint at the
// server's pace until the user has signed in, refused, the code expires
// or ctx ends.
func (m *Manager) device(ctx context.Context, md *ServerMetadata, client *Client, scope, resource string) (*Token, error) {
	if md.DeviceAuthorizationEndpoint == "" {
		return nil, &Error{Step: StepAuthorization, Need: NeedLogin, Description: "the authorization server offers no device authorization endpoint (RFC 8628): log in with a browser"}
	}
	dc, err := askDeviceCode(ctx, m.opts.HTTP, md, client, scope, resource)
	if err != nil {
		return nil, err
	}
	if m.opts.ShowDevice != nil {
		m.opts.ShowDevice(*dc)
	}
	life := time.Duration(dc.ExpiresIn) * time.Second
	over := expiredCode(md)
	if bound := m.opts.LoginTimeout; bound > 0 && bound < life {
		lt := &LoginTimeoutError{Timeout: bound, Host: asHost(md)}
		life, over = bound, &Error{Step: StepAuthorization, Err: lt}
	}
	return pollDevice(ctx, m.opts.HTTP, md, client, dc, scope, resource, time.Now().Add(life), over)
}

// expiredCode ends a device login whose code expired unapproved at md.
func expiredCode(md *ServerMetadata) error {
	desc := "the code expired before it was approved at " + asHost(md)
	return &Error{Step: StepAuthorization, Code: "expired_token", Description: desc}
}

// asHost names the authorization server of md, as safe to print.
func asHost(md *ServerMetadata) string {
	return messageSafe(cmp.Or(hostOf(md.Issuer), hostOf(md.DeviceAuthorizationEndpoint)))
}

// pollDevice asks the token endpoint for the token of dc until the user
// has signed in, refused, or ctx ends; at deadline it gives up with over,
// never waiting past it, nor letting a poll run past it.
func pollDevice(ctx context.Context, hc *http.Client, md *ServerMetadata, c *Client, dc *DeviceCode, scope, resource string, deadline time.Time, over error) (*Token, error) {
	interval := time.Duration(dc.Interval) * time.Second
	for {
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(min(interval, time.Until(deadline))):
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, over
		}
		form := url.Values{"grant_type": {GrantTypeDeviceCode}, "device_code": {dc.DeviceCode}}
		setParamsIfSet(form, "resource", resource)
		pctx, cancel := context.WithTimeout(ctx, left)
		tok, err := postTokenForm(pctx, hc, md, c, form, scope, true)
		expired := ctx.Err() == nil && pctx.Err() != nil
		cancel()
		var oe *Error
		switch {
		case err == nil:
			return tok, nil
		case expired:
			return nil, over
		case !errors.As(err, &oe):
			return nil, err
		case oe.Code == "authorization_pending":
		case oe.Code == "slow_down":
			interval = min(interval+5*time.Second, maxPoll) // RFC 8628 §3.5
		case oe.Code == "access_denied":
			return nil, &Error{Step: StepAuthorization, Code: oe.Code, Description: "the login was refused"}
		default:
			return nil, err
		}
	}
}

// deviceAnswer is a device authorization endpoint's answer as sent: a
// code (its numbers as they come), or an error (RFC 6749 §5.2).
type deviceAnswer struct {
	DeviceCode
	VerificationURL  string          `json:"verification_url"` // Google's name of verification_uri
	ExpiresIn        json.RawMessage `json:"expires_in"`
	Interval         json.RawMessage `json:"interval"`
	Elsewhere        any             `json:"elsewhere"` // mcpv's, not the server's
	Error            string          `json:"error"`
	ErrorDescription string          `json:"error_description"`
}

func askDeviceCode(ctx context.Context, hc *http.Client, md *ServerMetadata, c *Client, scope, resource string) (*DeviceCode, error) {
	form, header := url.Values{}, http.Header{}
	if err := authenticateClient(header, form, md, c); err != nil {
		return nil, &Error{Step: StepAuthorization, Err: err}
	}
	setParamsIfSet(form, "scope", scope, "resource", resource)
	resp, body, _, err := postForm(ctx, hc, StepAuthorization, md.DeviceAuthorizationEndpoint, header, form, nil)
	if err != nil {
		return nil, err
	}
	var a deviceAnswer
	decoded := json.Unmarshal(body, &a) == nil
	life, poll := number(a.ExpiresIn), number(a.Interval)
	a.VerificationURI = cmp.Or(a.VerificationURI, a.VerificationURL)
	switch {
	case decoded && a.Error != "":
		return nil, &Error{Step: StepAuthorization, Code: messageSafeText(a.Error), Description: messageSafeText(a.ErrorDescription)}
	case resp.StatusCode/100 != 2:
		return nil, stepErrorf(StepAuthorization, "%s answered %s", messageSafe(md.DeviceAuthorizationEndpoint), messageSafeText(resp.Status))
	case !decoded || a.DeviceCode.DeviceCode == "" || a.UserCode == "" || a.VerificationURI == "" || !(life >= 1):
		return nil, stepErrorf(StepAuthorization, "the answer of %s is not a device authorization (device_code, user_code, verification_uri, expires_in)", messageSafe(md.DeviceAuthorizationEndpoint))
	case len(a.UserCode) > 64 || !plainASCII(a.UserCode):
		return nil, stepErrorf(StepAuthorization, "the user code %s is no code a person can enter", messageSafe(a.UserCode))
	}
	if !(poll >= 1 && poll <= maxPoll.Seconds()) {
		poll = defaultPoll.Seconds()
	}
	dc := &a.DeviceCode
	dc.ExpiresIn, dc.Interval = int(min(life, maxDeviceLife.Seconds())), int(poll)
	issuer := asHost(md)
	for _, link := range []string{a.VerificationURI, a.VerificationURIComplete} {
		host, err := signInHost(link)
		switch {
		case link == "":
		case err != nil:
			return nil, stepErrorf(StepAuthorization, "the link to sign in at, %s, %v: refused", messageSafe(link), err)
		case !strings.EqualFold(host, issuer):
			dc.Elsewhere = fmt.Sprintf("the link leads to %s, not to the authorization server %s", host, issuer)
		}
	}
	return dc, nil
}

// signInHost is the host of a link a user is sent to sign in at, which
// must show where it leads: https (or http on this machine), printable
// ASCII alone (no look-alike letters, no escapes), no user name before
// the host (https://login.example.com@evil.example/ leads to evil.example).
func signInHost(link string) (string, error) {
	u, err := url.Parse(link)
	switch {
	case !plainASCII(link):
		return "", errors.New("holds other characters than printable ASCII")
	case err != nil || u.Host == "" || u.Opaque != "":
		return "", errors.New("is not an absolute URL")
	case u.User != nil:
		return "", fmt.Errorf("names a user before its host %s", u.Hostname())
	case u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname())):
		return "", errors.New("is neither https nor http on this machine")
	}
	return u.Hostname(), nil
}

// hostOf is the host of an absolute URL; "" when it has none.
func hostOf(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// plainASCII reports whether s holds printable ASCII alone, no space.
func plainASCII(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x21 || r > 0x7e })
}

// handOffDevice asks for a device code and hands its polling to the
// caller's HandOff (a process that waits for it, with no listener): the
// request fails at once with a LoginPendingError that gives the link and
// the code.
func (m *Manager) handOffDevice(ctx context.Context, md *ServerMetadata, client *Client, scopes []string, resource string) error {
	scope := strings.Join(scopes, " ")
	dc, err := askDeviceCode(ctx, m.opts.HTTP, md, client, scope, resource)
	if err != nil {
		return err
	}
	life := time.Duration(dc.ExpiresIn) * time.Second
	if bound := m.opts.LoginTimeout; bound > 0 {
		life = min(life, bound)
	}
	expires := time.Now().Add(life)
	h := &HandOff{Server: m.server, Issuer: md.Issuer, Resource: resource, ResourceParam: m.opts.Want.param(), AskedScope: scope,
		Metadata: md, Client: client.kept(), Device: dc, Expires: expires}
	if err := m.opts.HandOff(h, nil); err != nil {
		return &Error{Step: StepAuthorization, Err: fmt.Errorf("handing the login to a process that waits for it: %w", err)}
	}
	return &LoginPendingError{Server: m.server, URL: h.StartURL(), UserCode: dc.UserCode, Expires: h.Expires, Note: dc.Elsewhere}
}

// CompleteDevice polls for the token of h's device code (until h
// expires or ctx ends) and saves it in store.
func (h *HandOff) CompleteDevice(ctx context.Context, hc *http.Client, store *Store) error {
	if h.Device == nil || h.Metadata == nil {
		return stepErrorf(StepAuthorization, "a hand-off without its device code")
	}
	client := h.Client
	over := expiredCode(h.Metadata)
	tok, err := pollDevice(ctx, hc, h.Metadata, &client, h.Device, h.AskedScope, h.Resource, h.Expires, over)
	if err != nil {
		return err
	}
	return h.save(ctx, store, tok, GrantDevice)
}
