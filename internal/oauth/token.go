package oauth

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ExchangeCode redeems an authorization code at the token endpoint
// (RFC 6749 §4.1.3) with its PKCE verifier (RFC 7636 §4.5) and the resource
// it is meant for (RFC 8707 §2.2; MCP requires it on the token request too).
// redirectURI must be the one of the authorization request.
func ExchangeCode(ctx context.Context, hc *http.Client, md *ServerMetadata, c *Client, code, verifier, redirectURI, resource string) (*Token, error) {
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {verifier}, "redirect_uri": {redirectURI}}
	setParamsIfSet(form, "resource", resource)
	return postTokenForm(ctx, hc, md, c, form, "", true)
}

// Refresh trades a refresh token for a new access token (RFC 6749 §6). When
// the answer carries no refresh token the old one is kept in the result, so
// the caller can store whatever it gets; a rotated one (OAuth 2.1 §4.3.1)
// replaces it. scope, if set, must not exceed what was granted.
func Refresh(ctx context.Context, hc *http.Client, md *ServerMetadata, c *Client, refreshToken, resource, scope string) (*Token, error) {
	if refreshToken == "" {
		return nil, stepErrorf(StepToken, "there is no refresh token")
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}}
	setParamsIfSet(form, "resource", resource, "scope", scope)
	return postTokenForm(ctx, hc, md, c, form, scope, true)
}

// ClientCredentials obtains a token for the client itself (RFC 6749 §4.4),
// which needs a confidential client.
func ClientCredentials(ctx context.Context, hc *http.Client, md *ServerMetadata, c *Client, resource, scope string) (*Token, error) {
	form := url.Values{"grant_type": {"client_credentials"}}
	setParamsIfSet(form, "resource", resource, "scope", scope)
	return postTokenForm(ctx, hc, md, c, form, scope, true)
}

// setParamsIfSet sets optional parameters, each name followed by its
// value, leaving out those whose value is empty.
func setParamsIfSet(form url.Values, nameValues ...string) {
	for i := 0; i+1 < len(nameValues); i += 2 {
		if v := nameValues[i+1]; v != "" {
			form.Set(nameValues[i], v)
		}
	}
}

// tokenResponse is a token endpoint's answer, success (RFC 6749 §5.1) or
// error (§5.2).
type tokenResponse struct {
	AccessToken      string          `json:"access_token"`
	TokenType        string          `json:"token_type"`
	ExpiresIn        json.RawMessage `json:"expires_in"` // a number; a numeric string is tolerated
	RefreshToken     string          `json:"refresh_token"`
	Scope            string          `json:"scope"`
	Error            string          `json:"error"`
	ErrorDescription string          `json:"error_description"`
}

// postTokenForm sends form, with c's authentication, to md's token endpoint
// and reads the grant. asked is the scope asked for, the granted one when
// the answer does not say (RFC 6749 §5.1). No error it returns quotes the
// form or the answer's tokens: only the endpoint, the status and the
// server's error code and description. bearer false accepts a token of
// any type (a token exchange issues grants, not bearer tokens).
func postTokenForm(ctx context.Context, hc *http.Client, md *ServerMetadata, c *Client, form url.Values, asked string, bearer bool) (*Token, error) {
	if md == nil || md.TokenEndpoint == "" {
		return nil, stepErrorf(StepToken, "the authorization server has no token endpoint")
	}
	if c == nil || c.ID == "" {
		return nil, stepErrorf(StepToken, "no client ID")
	}
	header := http.Header{}
	if err := authenticateClient(header, form, md, c); err != nil {
		return nil, &Error{Step: StepToken, Err: err}
	}
	start := time.Now() // expires_in counts from the answer; starting earlier errs on the safe side
	resp, body, newNonce, err := postForm(ctx, hc, StepToken, md.TokenEndpoint, header, form, c.DPoP)
	if err != nil {
		return nil, err
	}
	var tr tokenResponse
	jsonErr := json.Unmarshal(body, &tr)
	if tr.Error == "use_dpop_nonce" && newNonce {
		// RFC 9449 §8: the server wants its nonce in the proof; once.
		if resp, body, _, err = postForm(ctx, hc, StepToken, md.TokenEndpoint, header, form, c.DPoP); err != nil {
			return nil, err
		}
		tr = tokenResponse{}
		jsonErr = json.Unmarshal(body, &tr)
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	switch {
	case jsonErr == nil && tr.Error != "":
		// RFC 6749 §5.2; some servers send it with 200.
		return nil, &Error{Step: StepToken, Code: messageSafeText(tr.Error), Description: messageSafeText(tr.ErrorDescription)}
	case !ok:
		return nil, stepErrorf(StepToken, "%s answered %s", md.TokenEndpoint, messageSafeText(resp.Status))
	case jsonErr != nil:
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		return nil, stepErrorf(StepToken, "the answer of %s is not a JSON token response (Content-Type %q)", md.TokenEndpoint, ct)
	case tr.AccessToken == "":
		return nil, stepErrorf(StepToken, "the answer of %s has no access_token", md.TokenEndpoint)
	case unsendable(&tr) != "":
		// Refused here, naming the server: stored, it would fail every
		// later request with an error of the HTTP client's that names none.
		return nil, stepErrorf(StepToken, "the authorization server %s sent a token answer whose %s; "+
			"tokens must be visible ASCII (RFC 6749 Appendix A, RFC 6750 §2.1): refused", messageSafe(hostPort(md.TokenEndpoint)), unsendable(&tr))
	case bearer && c.DPoP != nil && strings.EqualFold(tr.TokenType, "DPoP"):
	case bearer && tr.TokenType != "" && !strings.EqualFold(tr.TokenType, "Bearer"):
		// RFC 6749 §7.1: a client must not use a token whose type it does
		// not understand; MCP uses bearer tokens (RFC 6750), or DPoP-bound
		// ones when mcpv asked for them (RFC 9449 §5).
		return nil, stepErrorf(StepToken, "the token type %s is not Bearer", messageSafe(tr.TokenType))
	}
	tokenType := "Bearer"
	switch {
	case !bearer:
		tokenType = tr.TokenType
	case strings.EqualFold(tr.TokenType, "DPoP"):
		tokenType = "DPoP"
	}
	// A refresh answer without a refresh token leaves the one it used in
	// force (RFC 6749 §6); a rotated one replaces it (OAuth 2.1 §4.3.1).
	tok := &Token{AccessToken: tr.AccessToken, TokenType: tokenType, RefreshToken: cmp.Or(tr.RefreshToken, form.Get("refresh_token")), Scope: cmp.Or(tr.Scope, asked)}
	if d, ok := expiresIn(tr.ExpiresIn); ok {
		tok.ExpiresAt = start.Add(d)
	} else if said := string(tr.ExpiresIn); said != "" && said != "null" && !(number(tr.ExpiresIn) > 0) && tok.RefreshToken != "" {
		// 0, -100, "soon": no lifetime to trust. Taken as over at once,
		// the token is refreshed at its next use rather than trusted for
		// ever; without a refresh token, that would make every use a new
		// login, so its lifetime is unknown, as without expires_in: it is
		// used until the server refuses it (401).
		tok.ExpiresAt = start
	}
	return tok, nil
}

// unsendable says what makes a token answer's members unfit to keep and
// send, "" when nothing does: the access token and its type go in an
// Authorization header, as visible ASCII alone (RFC 6750 §2.1's b64token
// is a part of it; RFC 6749 Appendix A's VSCHAR without the space, which
// would split the header's credential); a refresh token is VSCHAR, space
// included, as it only goes in a form. A CR, an LF or an ESC is never
// taken: in a header it fails every request, on a terminal it is a
// command.
func unsendable(tr *tokenResponse) string {
	for _, m := range []struct {
		name, value string
		space       bool
	}{{"access_token", tr.AccessToken, false}, {"token_type", tr.TokenType, false}, {"refresh_token", tr.RefreshToken, true}} {
		i := strings.IndexFunc(m.value, func(r rune) bool { return r > 0x7e || r < 0x21 && !(m.space && r == ' ') })
		switch {
		case i < 0:
		case m.value[i] == ' ':
			return m.name + " holds a space"
		case m.value[i] < 0x20 || m.value[i] == 0x7f:
			return m.name + " holds a control character (CR, LF, ESC or another)"
		default:
			return m.name + " holds a byte that is not ASCII"
		}
	}
	return ""
}

// hostPort is the host (and port) of an absolute URL; the URL itself
// when it has none.
func hostPort(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return u.Host
	}
	return s
}

// postForm posts form to endpoint (the token endpoint, or a device
// authorization endpoint: step names it) with header, and a fresh DPoP
// proof when dpop is set, and reads the answer. newNonce reports a
// DPoP-Nonce the server had not given before.
func postForm(ctx context.Context, hc *http.Client, step, endpoint string, header http.Header, form url.Values, dpop *DPoPKey) (resp *http.Response, body []byte, newNonce bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, nil, false, stepErrorf(step, "bad endpoint: %w", err)
	}
	req.Header = header.Clone()
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if dpop != nil {
		proof, err := dpop.Proof(http.MethodPost, req.URL, "")
		if err != nil {
			return nil, nil, false, &Error{Step: step, Err: err}
		}
		req.Header.Set("DPoP", proof)
	}
	if resp, body, err = exchange(hc, req, step); err != nil {
		return nil, nil, false, err
	}
	if dpop != nil {
		newNonce = dpop.Observe(req.URL, resp.Header)
	}
	return resp, body, newNonce, nil
}

// expiresIn reads expires_in (RFC 6749 §5.1), a number of seconds. A
// value that is not positive, or no number, or past the longest duration,
// gives no lifetime (postTokenForm says what becomes of the token then).
func expiresIn(raw json.RawMessage) (time.Duration, bool) {
	secs := number(raw)
	if !(secs > 0) || secs >= math.MaxInt64/float64(time.Second) { // float64(MaxInt64) is 2⁶³, past it
		return 0, false
	}
	return time.Duration(secs * float64(time.Second)), true
}

// number reads a number a server sent as a JSON number, or as a string,
// as some servers send expires_in; ±Inf past float64's range (1e400), as
// huge as it is; NaN when it is no number.
func number(raw json.RawMessage) float64 {
	n, err := strconv.ParseFloat(strings.Trim(string(raw), `"`), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return n
}

// authenticateClient adds c's credentials to a token request the way its
// token_endpoint_auth_method says (RFC 7591 §2). A public client only
// names itself (RFC 6749 §4.1.3). The secret goes in exactly one place, as
// RFC 6749 §2.3 allows one method per request.
func authenticateClient(header http.Header, form url.Values, md *ServerMetadata, c *Client) error {
	if c.Secret == "" && (c.AuthMethod == AuthClientSecretBasic || c.AuthMethod == AuthClientSecretPost) {
		return errors.New(c.AuthMethod + " needs a client secret")
	}
	switch c.AuthMethod {
	case "", AuthNone:
		form.Set("client_id", c.ID)
	case AuthClientSecretBasic:
		// RFC 6749 §2.3.1: id and secret are form-urlencoded (Appendix B)
		// before they are joined and base64-encoded. client_id stays out of
		// the body: it is only required of clients that do not authenticate.
		userPass := url.QueryEscape(c.ID) + ":" + url.QueryEscape(c.Secret)
		header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(userPass)))
	case AuthClientSecretPost:
		form.Set("client_id", c.ID) // RFC 6749 §2.3.1
		form.Set("client_secret", c.Secret)
	case AuthPrivateKeyJWT:
		// RFC 7523 §2.2 and §3: aud identifies the authorization server:
		// its issuer, or the token endpoint it is sent to when the issuer is
		// unknown or unverified (2025-03-26 servers), so that the assertion
		// is good nowhere else.
		aud := md.Issuer
		if aud == "" || md.IssuerUnverified {
			aud = md.TokenEndpoint
		}
		jwt, err := signClientAssertion(c.Key, c.ID, aud, time.Now())
		if err != nil {
			return err
		}
		form.Set("client_id", c.ID)
		form.Set("client_assertion_type", jwtBearerAssertionType)
		form.Set("client_assertion", jwt)
	default:
		return fmt.Errorf("unsupported token endpoint authentication method %s", messageSafe(c.AuthMethod))
	}
	return nil
}
