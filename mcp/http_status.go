package mcp

// What a failed HTTP exchange says: the status and the body's gist, the
// URL as shown, and whether credentials went out.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
)

// displayURL shows a URL in messages and traces without its query (which may
// carry a session id) or password.
func displayURL(u *url.URL) string {
	c := *u
	c.RawQuery, c.ForceQuery, c.User = "", false, nil
	return c.String()
}

// unwrap is what the first E in err's chain wraps, or err with no E.
func unwrap[E error](err error) error {
	if e, ok := errors.AsType[E](err); ok {
		return errors.Unwrap(e)
	}
	return err
}

// sentCredentials reports whether a request carried credentials: an
// Authorization header, or a header of the user's whose name marks a
// secret (an API key, a token). The protocol's own Mcp-* headers (a
// session id among them) are none.
func sentCredentials(h http.Header) bool {
	for name, v := range h { // a name without values is not sent (Idempotency-Key, nil: net/http's mark)
		if len(v) > 0 && (strings.EqualFold(name, "Authorization") || redact.Name(name) && !strings.HasPrefix(strings.ToLower(name), "mcp-")) {
			return true
		}
	}
	return false
}

// oddAnswer marks an HTTP answer that came from the server but holds no
// JSON-RPC response to the request: to the era probe, the answer of a
// server that is not a modern one.
type oddAnswer struct{ error }

func (o oddAnswer) Unwrap() error { return o.error }

// statusError turns a non-2xx answer into an error: *AuthError for 401 and
// a 403 about credentials, a JSON-RPC error body passed through as such,
// else a *TransportError.
func statusError(resp *http.Response, o outgoing) error {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	defer drain(resp)
	body, _ := io.ReadAll(io.LimitReader(resp.Body, errorBodyLimit))
	challenge := resp.Header.Values("Www-Authenticate")
	detail := bodySummary(body, resp.Header.Get("Content-Type"))
	// A 403 is about authorization when the server asks for credentials or
	// refuses the ones sent. Without either it refuses for reasons of its
	// own (a Host or origin check, a forbidden path), which its body says.
	if resp.StatusCode == http.StatusUnauthorized ||
		resp.StatusCode == http.StatusForbidden && (len(challenge) > 0 || sentCredentials(resp.Request.Header)) {
		return &AuthError{Status: resp.StatusCode, Challenge: challenge, URL: displayURL(resp.Request.URL), Reason: detail}
	}
	what := resp.Request.Method
	if rerr := rpcErrorIn(body); rerr != nil {
		return &CallError{Method: cmp.Or(o.method, what), Err: rerr}
	}
	if detail != "" {
		detail = ": " + detail
	}
	return &TransportError{Op: what, Err: &StatusError{Status: resp.StatusCode, Text: resp.Status, URL: displayURL(resp.Request.URL), Detail: detail}}
}

// bodySummary is the start of an error answer's body on one line, with what
// a terminal would act on shown escaped (internal/safetext). An HTML page
// (a proxy's or a framework's error page) is named by its title rather
// than pasted.
func bodySummary(body []byte, contentType string) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	start := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 512)]))
	if mt == "text/html" || mt == "application/xhtml+xml" || bytes.HasPrefix(start, []byte("<!doctype html")) || bytes.HasPrefix(start, []byte("<html")) {
		if title := htmlTitle(body); title != "" {
			return fmt.Sprintf("an HTML page titled %q", title)
		}
		return "an HTML page"
	}
	return safetext.Line(string(clip([]byte(strings.Join(strings.Fields(string(body)), " ")), 300)))
}

// htmlTitle is the text of a page's <title> element, on one line, or "".
func htmlTitle(page []byte) string {
	// Lower ASCII letters only: offsets in lower must be offsets in page,
	// and bytes.ToLower changes lengths (an invalid byte becomes U+FFFD).
	lower := make([]byte, len(page))
	for i, c := range page {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	open := bytes.Index(lower, []byte("<title"))
	if open < 0 {
		return ""
	}
	gt := bytes.IndexByte(lower[open:], '>')
	if gt < 0 {
		return ""
	}
	text := page[open+gt+1:]
	end := bytes.Index(lower[open+gt+1:], []byte("</title"))
	if end < 0 {
		return ""
	}
	title := strings.Join(strings.Fields(html.UnescapeString(string(text[:end]))), " ")
	return safetext.Runes(title, 100)
}

// rpcErrorIn returns the JSON-RPC error in an HTTP body, if it holds one.
func rpcErrorIn(body []byte) *RPCError {
	var e struct {
		Error *RPCError `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return nil
	}
	return e.Error
}
