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
	"io"
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

// DeviceCode is a device authorization response (RFC 8628 §3.2).
type DeviceCode struct {
	DeviceCode              string `json:"device_code"`
	UserCode                string `json:"user_code"`
	VerificationURI         string `json:"verification_uri"`
	VerificationURIComplete string `json:"verification_uri_complete,omitempty"`
	ExpiresIn               int    `json:"expires_in"`
	Interval                int    `json:"interval,omitempty"`
}

// Device runs the grant at md for client c: it asks for a code, gives it
// to show (the link and the code the user enters), then polls the token
// endpoint every interval (in units of a second, which tests shorten;
// five when the server names none, five more at each slow_down) until
// the user has signed in, refused, the code expires (expires_in seconds)
// or ctx ends.
func Device(ctx context.Context, hc *http.Client, md *ServerMetadata, c *Client, scope, resource string, unit time.Duration, show func(DeviceCode)) (*Token, error) {
	if md.DeviceAuthorizationEndpoint == "" {
		return nil, &Error{Step: StepAuthorization, Need: NeedLogin, Description: "the authorization server offers no device authorization endpoint (RFC 8628): log in with a browser"}
	}
	dc, err := askDeviceCode(ctx, cmp.Or(hc, http.DefaultClient), md, c, scope, resource)
	if err != nil {
		return nil, err
	}
	show(*dc)
	// The code lives expires_in seconds whatever the unit of the polls.
	return pollDevice(ctx, hc, md, c, dc, scope, resource, unit, time.Now().Add(time.Duration(dc.ExpiresIn)*time.Second))
}

// pollDevice asks the token endpoint for the token of dc until the user
// has signed in, refused, deadline passes or ctx ends.
func pollDevice(ctx context.Context, hc *http.Client, md *ServerMetadata, c *Client, dc *DeviceCode, scope, resource string, unit time.Duration, deadline time.Time) (*Token, error) {
	interval := time.Duration(cmp.Or(dc.Interval, 5)) * unit
	for {
		wait := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			wait.Stop()
			return nil, context.Cause(ctx)
		case <-wait.C:
		}
		if !time.Now().Before(deadline) {
			return nil, &Error{Step: StepAuthorization, Code: "expired_token", Description: "the code expired before the login was completed"}
		}
		form := url.Values{"grant_type": {GrantTypeDeviceCode}, "device_code": {dc.DeviceCode}}
		setParamIfSet(form, "resource", resource)
		tok, err := postTokenForm(ctx, hc, md, c, form, scope, true)
		var oe *Error
		switch {
		case err == nil:
			return tok, nil
		case !errors.As(err, &oe):
			return nil, err
		case oe.Code == "authorization_pending":
		case oe.Code == "slow_down":
			interval += 5 * unit // RFC 8628 §3.5
		case oe.Code == "access_denied":
			return nil, &Error{Step: StepAuthorization, Code: oe.Code, Description: "the login was refused"}
		default:
			return nil, err
		}
	}
}

// maxDeviceBody bounds a device authorization response.
const maxDeviceBody = 64 << 10

func askDeviceCode(ctx context.Context, hc *http.Client, md *ServerMetadata, c *Client, scope, resource string) (*DeviceCode, error) {
	form := url.Values{}
	header := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}}
	if err := authenticateClient(header, form, md, c); err != nil {
		return nil, &Error{Step: StepAuthorization, Err: err}
	}
	setParamIfSet(form, "scope", scope)
	setParamIfSet(form, "resource", resource)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.DeviceAuthorizationEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, &Error{Step: StepAuthorization, Err: err}
	}
	req.Header = header
	resp, err := hc.Do(req)
	if err != nil {
		return nil, &Error{Step: StepAuthorization, Err: err}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxDeviceBody))
	var dc DeviceCode
	var e struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	json.Unmarshal(body, &e)
	switch {
	case e.Error != "":
		return nil, &Error{Step: StepAuthorization, Code: messageSafeText(e.Error), Description: messageSafeText(e.ErrorDescription)}
	case resp.StatusCode/100 != 2:
		return nil, stepErrorf(StepAuthorization, "%s answered %s", messageSafe(md.DeviceAuthorizationEndpoint), messageSafeText(resp.Status))
	case json.Unmarshal(body, &dc) != nil || dc.DeviceCode == "" || dc.UserCode == "" || !webURL(dc.VerificationURI) || dc.ExpiresIn <= 0:
		return nil, stepErrorf(StepAuthorization, "the answer of %s is not a device authorization (device_code, user_code, an https verification_uri, expires_in)", messageSafe(md.DeviceAuthorizationEndpoint))
	}
	if !webURL(dc.VerificationURIComplete) {
		dc.VerificationURIComplete = ""
	}
	if len(dc.UserCode) > 64 || strings.ContainsFunc(dc.UserCode, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		return nil, stepErrorf(StepAuthorization, "the user code %s is no code a person can enter", messageSafe(dc.UserCode))
	}
	return &dc, nil
}

// webURL reports whether s is a link to show a user: https, or http on
// this machine.
func webURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	h := u.Hostname()
	return u.Scheme == "https" || u.Scheme == "http" && (h == "localhost" || h == "127.0.0.1" || h == "::1")
}

// handOffDevice asks for a device code and hands its polling to the
// caller's HandOff (a process that waits for it, with no listener): the
// request fails at once with a LoginPendingError that gives the link and
// the code.
func (m *Manager) handOffDevice(ctx context.Context, md *ServerMetadata, client *Client, scopes []string, resource string) error {
	scope := strings.Join(scopes, " ")
	dc, err := askDeviceCode(ctx, cmp.Or(m.opts.HTTP, http.DefaultClient), md, client, scope, resource)
	if err != nil {
		return err
	}
	expires := time.Now().Add(time.Duration(dc.ExpiresIn) * time.Second)
	if bound := time.Now().Add(m.opts.LoginTimeout); m.opts.LoginTimeout > 0 && bound.Before(expires) {
		expires = bound
	}
	stored := *client
	stored.Key, stored.DPoP = nil, nil
	h := &HandOff{Server: m.server, Issuer: md.Issuer, Resource: resource, ResourceParam: m.opts.Want.param(), AskedScope: scope,
		Metadata: md, Client: stored, Device: dc, Expires: expires}
	if err := m.opts.HandOff(h, nil); err != nil {
		return &Error{Step: StepAuthorization, Err: fmt.Errorf("handing the login to a process that waits for it: %w", err)}
	}
	return &LoginPendingError{Server: m.server, URL: h.StartURL(), UserCode: dc.UserCode, Expires: h.Expires}
}

// CompleteDevice polls for the token of h's device code (until h
// expires or ctx ends) and saves it in store.
func (h *HandOff) CompleteDevice(ctx context.Context, hc *http.Client, store *Store) error {
	if h.Device == nil || h.Metadata == nil {
		return stepErrorf(StepAuthorization, "a hand-off without its device code")
	}
	client := h.Client
	tok, err := pollDevice(ctx, hc, h.Metadata, &client, h.Device, h.AskedScope, h.Resource, time.Second, h.Expires)
	if err != nil {
		return err
	}
	return h.save(ctx, store, tok, GrantDevice)
}
