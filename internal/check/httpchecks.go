package check

// Streamable HTTP: Origin validated against DNS rebinding, a request
// without credentials refused away from loopback, the types of
// an answer, notifications accepted with 202, session ids (their
// characters, requests without one, an unknown one, one deleted), the
// protocol version header, the GET stream.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/mcp"
)

// foreignOrigin is an origin no server serves.
const foreignOrigin = "https://mcpv-check.invalid"

func streamableChecks() []*Check {
	return []*Check{
		// These judge a POST and its answer: a foreign Origin or a rebound
		// name refused, the answer's content type, a notification's 202, a body
		// that is no JSON.
		httpCheck("http.origin", func(t *T) {
			for _, o := range originsRefused {
				foreignRefused(t, http.Header{"Origin": {o}}, " with Origin: "+o, "answered HTTP %d, not 403")
			}
		}),
		httpCheck("http.dns-rebinding", func(t *T) {
			u, err := url.Parse(t.r.target.URL)
			t.skipIf(err != nil || !loopback(u.Hostname()), "the server is not on this machine (loopback), where DNS rebinding reaches it")
			host := "rebound.mcpv-check.invalid"
			if p := u.Port(); p != "" {
				host += ":" + p
			}
			foreignRefused(t, http.Header{"Host": {host}, "Origin": {"http://" + host}}, fmt.Sprintf(" with Host: %s and Origin: http://%s", host, host),
				"answered HTTP %d, not 403: a web page whose name resolves to this machine reaches the server")
		}),
		httpCheck("http.authentication", func(t *T) {
			x, raw := t.r.facts.auth, t.r.target.URL
			t.skipIf(x == nil, "the request sent without credentials had no answer")
			u, err := url.Parse(raw)
			switch {
			case x.status/100 != 2 || x.response == nil || x.response.Error != nil: // refused: 401 where it asks for authorization
			case len(redact.URLSecrets(raw))+len(redact.FindSecrets(raw)) > 0:
				t.Note("the server's URL carries a credential, which every request sends")
			case (err != nil || loopback(u.Hostname())) && !t.r.opts.notLoopback:
				t.Note("served without credentials on this machine (loopback), where the spec has a local server listen for its user: not judged")
			default:
				t.FailExchange(x.sent+" without credentials", x.String(), "the server serves a request without credentials at an address other than this machine's: whoever reaches it is served")
			}
		}),
		httpCheck("http.answer-type", func(t *T) {
			c := t.conn()
			for _, method := range []string{t.r.probeMethod(c.era), "tools/list"} {
				if method == "tools/list" && !t.r.facts.declares("tools") {
					continue
				}
				_, x, err := c.request(t.ctx, method, nil)
				if x == nil {
					t.failErr(method, err)
				}
				t.Sent(x.sent)
				t.Got(x.String())
				if ct := x.contentType(); ct != "application/json" && ct != "text/event-stream" {
					t.Fail("answered with %s", ct)
				}
				t.must(method, err)
			}
		}),
		// This check sends a request and, when it is answered with an event
		// stream, reads on past the response until the stream ends.
		httpCheck("http.stream-ends", func(t *T) {
			c := t.conn()
			method := t.r.probeMethod(c.era)
			ctx, cancel := context.WithCancelCause(t.ctx)
			defer cancel(nil)
			var grace *time.Timer
			defer func() {
				if grace != nil {
					grace.Stop()
				}
			}()
			id := c.newID()
			msg, _ := mcp.EncodeRequest(id, method, c.stamp(nil))
			var answer seen
			t.Sent("POST " + method + ", read to the end of its answer")
			x, err := c.post(ctx, httpReq{body: msg, events: func(s seen) bool {
				if grace == nil && s.msg.IsResponse() && idKey(s.msg.ID) == idKey(id) {
					answer = s
					grace = time.AfterFunc(streamGrace, func() { cancel(errLeftOpen) })
				}
				return true
			}}, id)
			if x == nil || x.response == nil {
				t.failErr(method, cmp.Or(err, error(&noAnswer{x})))
			}
			t.skipIf(!x.sse, "answered with %s, not an event stream", x.contentType())
			t.Got(answer.raw)
			t.failIf(context.Cause(ctx) == errLeftOpen, "the event stream stayed open %s after the response it carried", streamGrace)
			t.Note("the stream ended after its response")
		}),
		// 2025-03-26 had batches, answered in arrays.
		exercised("http.one-object", needs{transport: "http"}, spotSaid(func(w *watchCtx, s seen) bool {
			return s.batched && (s.via == "JSON answer" || s.via == "session") && s.version != "2025-03-26" && w.f.transport == "http"
		}, func(s seen) string {
			return "a request answered with a JSON array: " + s.raw
		})),
		httpCheck("http.notification-202", func(t *T) {
			c := t.conn()
			method := map[bool]string{true: "notifications/mcpv-check/unknown", false: "notifications/initialized"}[c.era == "modern"]
			x := t.httpSend(c, httpReq{body: []byte(stampedNote(c, method))}, nil, "POST "+method)
			switch {
			case x.status == http.StatusAccepted && x.body != "":
				t.Fail("answered 202 with a body")
			case x.status/100 == 2 && x.status != http.StatusAccepted:
				t.Fail("answered HTTP %d, not 202", x.status)
			case x.status/100 != 2 && x.status < 400:
				t.Fail("answered HTTP %d: neither 202 nor an error status", x.status)
			case x.status >= 400:
				t.Note("the notification was refused (HTTP %d), as a server that cannot accept it may", x.status)
			}
		}),
		httpCheck("http.malformed-body", func(t *T) {
			x := t.httpSend(t.conn(), httpReq{body: []byte(`{"jsonrpc": "2.0", "id": 1, "method": `)}, nil, `POST {"jsonrpc": "2.0", "id": 1, "method": `)
			t.failIf(x.status < 400, "answered HTTP %d, not an error status", x.status)
		}),
		// These judge the initialize era's sessions and streams: the
		// session id given, SSE event ids, one stream per request, a session
		// required.
		legacyHTTP("http.session-id", func(t *T) {
			sid := withSession(t, t.fresh(connOptions{era: "legacy"})).sessionID()
			for _, r := range []byte(sid) {
				t.failGotIf(r < 0x21 || r > 0x7e, fmt.Sprintf("Mcp-Session-Id: %q", sid), "the session id holds %q", r)
			}
		}),
		legacyHTTP(sessionUnique, func(t *T) {
			a, b := withSession(t, t.fresh(connOptions{era: "legacy"})), t.fresh(connOptions{era: "legacy"})
			t.Sent("POST initialize twice, each a session of its own")
			if said := t.r.sharedSession.Load(); said != nil {
				t.FailGot(*said, "two sessions were given one session id: what a client does to its session (ends it, sets its log level, subscribes) it does to the other's")
			}
			t.Note("the two sessions' ids differ (%d and %d bytes)", len(a.sessionID()), len(b.sessionID()))
		}),
		legacyHTTP("http.session-assigned", func(t *T) {
			c := t.fresh(connOptions{era: "legacy"})
			if c.sessionID() != "" {
				return
			}
			x := t.pingWith(c, "mcpv-check-assigned", nil, "POST initialize (answered with no Mcp-Session-Id), then POST ping")
			t.failIf(x.status == http.StatusBadRequest || x.status == http.StatusNotFound, "a request without a session id is refused (HTTP %d), though initialize's answer assigned none", x.status)
		}),
		exercised("http.event-ids", needs{transport: "http", era: "legacy"}, spotSaid(func(_ *watchCtx, s seen) bool { return s.eventDup != "" }, func(s seen) string {
			if s.replayed {
				return fmt.Sprintf("event id %q again, replayed on a resumed stream after Last-Event-ID had passed it", clip(s.eventDup, 80))
			}
			return fmt.Sprintf("event id %q again, on another stream (or later in one)", clip(s.eventDup, 80))
		})),
		exercised("http.retry", needs{transport: "http", era: "legacy"}, spotSaid(func(_ *watchCtx, s seen) bool { return s.poll != "" }, func(s seen) string { return s.poll })),
		exercised("http.priming", needs{transport: "http", era: "legacy"}, spotSaid(func(_ *watchCtx, s seen) bool { return s.unprimed != "" }, func(s seen) string {
			return s.unprimed + ": its event stream began with no priming event (an id and no data) to resume it by"
		})),
		exercised("http.resume", needs{transport: "http", era: "legacy"}, spotSaid(func(_ *watchCtx, s seen) bool { return s.foreign != "" }, func(s seen) string {
			return "a response to another request on a resumed stream: " + s.foreign
		})),
		// This check sends pings at once on one session, each a POST of its own
		// (a stream of its own, when answered with one), and holds each answer
		// to carry its own response and no other request's: a server that keeps
		// one stream for its answers, or writes an answer on every stream open,
		// shows it only to a client that keeps several open, as the transport
		// lets it ("The client MAY remain connected to multiple SSE streams
		// simultaneously").
		legacyHTTP("http.one-stream", func(t *T) {
			if why := t.r.facts.pingBroken; why != "" {
				t.Block("lifecycle.ping", "the check sends pings, which the server does not answer as it must: %s", why)
			}
			c := t.connWith(connOptions{era: "legacy"})
			type answer struct {
				id  json.RawMessage
				x   *exchange
				err error
			}
			answers := make([]answer, streamsAtOnce)
			var wg sync.WaitGroup
			for i := range answers {
				id := json.RawMessage(fmt.Sprintf(`"mcpv-check-stream-%d"`, i+1))
				msg, _ := mcp.EncodeRequest(id, "ping", nil)
				answers[i].id = id
				wg.Go(func() { // one-stream ping: ends when the answer is read, or the check's time runs out
					answers[i].x, answers[i].err = c.post(t.ctx, httpReq{body: msg}, id)
				})
			}
			wg.Wait()
			t.Sent(fmt.Sprintf("%d POST ping at once on one session, ids \"mcpv-check-stream-1\" to \"mcpv-check-stream-%d\"", streamsAtOnce, streamsAtOnce))
			for _, a := range answers {
				if a.x != nil {
					for _, s := range a.x.msgs {
						t.failGotIf(s.msg.IsResponse() && s.msg.ID != nil && idKey(s.msg.ID) != idKey(a.id), s.raw, "the answer to %s came on the stream of the request %s", clip(string(s.msg.ID), 60), a.id)
					}
				}
			}
			for _, a := range answers {
				switch {
				case a.x == nil || a.x.status == 0:
					t.failErr("ping "+string(a.id), a.err)
				case a.x.status/100 != 2:
					t.FailGot(a.x.String(), "the ping %s, sent while others were open, was refused with HTTP %d: a client may keep several streams open", a.id, a.x.status)
				case a.x.response == nil && a.err != nil:
					t.failErr("ping "+string(a.id), a.err)
				case a.x.response == nil:
					t.FailGot(a.x.String(), "the stream of the ping %s ended without its answer", a.id)
				}
			}
		}),
		legacyHTTP("http.version-header-absent", func(t *T) {
			c := t.connWith(connOptions{era: "legacy"})
			methods := probeAndList(t, c) // a list's, when there is one: a ping a server leaves unanswered is lifecycle.ping's
			method := methods[len(methods)-1]
			msg, _ := mcp.EncodeRequest(json.RawMessage(`"mcpv-check-noversion"`), method, nil)
			if x := t.httpSend(c, httpReq{body: msg, header: http.Header{"MCP-Protocol-Version": {""}}}, nil, "POST "+method+" without MCP-Protocol-Version"); x.status == http.StatusBadRequest {
				t.Fail("answered HTTP 400: a request without the header is read as of the version its session negotiated, or else 2025-03-26")
			}
		}),
		legacyHTTP("http.session-required", func(t *T) {
			x := t.pingWith(withSession(t, t.connWith(connOptions{era: "legacy"})), "mcpv-check-nosession", http.Header{"Mcp-Session-Id": {""}}, "POST ping without Mcp-Session-Id")
			switch {
			case x.status/100 == 2:
				t.Note("answered: the server does not require its session id")
			case x.status != http.StatusBadRequest:
				t.Fail("answered HTTP %d, not 400", x.status)
			}
		}),
		// These send what the initialize era's server refuses: a
		// session it never gave or ended, an unsupported MCP-Protocol-Version;
		// and a GET.
		legacyHTTP("http.session-unknown", func(t *T) {
			wantStatus(t, t.pingWith(withSession(t, t.connWith(connOptions{era: "legacy"})), "mcpv-check-unknown-session", http.Header{"Mcp-Session-Id": {"mcpv-check-no-such-session"}}, "POST ping with Mcp-Session-Id: mcpv-check-no-such-session"), http.StatusNotFound)
		}),
		legacyHTTP("http.session-deleted", func(t *T) {
			c := withSession(t, t.fresh(connOptions{era: "legacy"}))
			x := t.httpSendQuiet(c, httpReq{method: http.MethodDelete}, nil, "DELETE with the session id, then POST ping with it")
			switch {
			case x.status == http.StatusMethodNotAllowed:
				t.Skip("the server does not let clients end sessions (DELETE answered 405, as it may)")
			case x.status/100 != 2:
				t.FailGot(x.String(), "DELETE answered HTTP %d", x.status)
			}
			msg, _ := mcp.EncodeRequest(json.RawMessage(`"mcpv-check-deleted"`), "ping", nil)
			y := t.post(c, httpReq{body: msg}, nil, "ping after DELETE")
			t.Got(y.String())
			t.failIf(y.status != http.StatusNotFound, "after DELETE the session still answers HTTP %d, not 404", y.status)
			// A second DELETE: the session is gone for every request.
			if x := t.httpSend(c, httpReq{method: http.MethodDelete}, nil, "DELETE with the session id, then DELETE with it again"); x.status != http.StatusNotFound {
				t.Fail("a second DELETE of the ended session answered HTTP %d, not 404", x.status)
			}
		}),
		legacyHTTP("http.protocol-version", func(t *T) {
			if v := t.r.facts.version; v < "2025-06-18" {
				t.Skip("the protocol version is %s, which has no MCP-Protocol-Version header (2025-06-18 brought it)", v)
			}
			wantStatus(t, t.pingWith(t.connWith(connOptions{era: "legacy"}), "mcpv-check-version", http.Header{"MCP-Protocol-Version": {unknownVersion}}, "POST ping with MCP-Protocol-Version: "+unknownVersion), http.StatusBadRequest)
		}),
		legacyHTTP("http.get", func(t *T) {
			x := t.httpSendQuiet(t.connWith(connOptions{era: "legacy"}), httpReq{method: http.MethodGet, headersOnly: true}, nil, "GET with Accept: text/event-stream")
			t.Got(fmt.Sprintf("HTTP %d, Content-Type %q", x.status, x.header.Get("Content-Type")))
			switch {
			case x.status == http.StatusMethodNotAllowed:
			case x.status/100 == 2 && x.contentType() == "text/event-stream":
			default:
				t.Fail("answered neither an event stream nor 405")
			}
		}),
		legacyHTTP("http.get-no-response", func(t *T) {
			c := t.connWith(connOptions{era: "legacy"})
			// What the stream holds at once: a stream that stays quiet
			// is read no longer than this once it is open (its opening
			// is the check's time, which a loaded machine may need).
			ctx, cancel := context.WithCancel(t.ctx)
			defer cancel()
			var response *seen
			x, _ := c.post(ctx, httpReq{method: http.MethodGet, opened: func() { time.AfterFunc(500*time.Millisecond, cancel) }, events: func(s seen) bool {
				if s.msg.IsResponse() && s.bad == "" {
					response = &s
					return false
				}
				return true
			}}, nil)
			t.skipIf(x == nil || x.status/100 != 2 || x.contentType() != "text/event-stream", "the server opens no GET stream (http.get says what it answers)")
			if response != nil {
				t.FailExchange("GET with Accept: text/event-stream, no Last-Event-ID", response.raw, "a response on the GET stream, which resumes nothing")
			}
		}),
	}
}

// streamGrace is how long an event stream may stay open after its
// response before it is taken as left open: a server ends it as it
// writes the response, so seconds are room for a busy machine.
const streamGrace = 5 * time.Second

// errLeftOpen ends the reading of a stream that outlived streamGrace.
var errLeftOpen = errors.New("the stream stayed open")

// httpCheck is a check of Streamable HTTP; legacyHTTP one of the
// initialize era's Streamable HTTP.
func httpCheck(id string, run func(*T)) *Check { return needs{transport: "http"}.check(id, run) }
func legacyHTTP(id string, run func(*T)) *Check {
	return needs{transport: "http", era: "legacy"}.check(id, run)
}

// firstRequest sends what opens the main session's era (initialize or
// server/discover) on a bare connection, as hr has it (its header, its
// credentials, what shown adds), and returns the answer, both recorded.
func firstRequest(t *T, hr httpReq, shown string) *exchange {
	method, x, err := firstExchange(t.ctx, t.fresh(connOptions{bare: true}), mcp.LatestVersion, hr)
	if x == nil {
		t.failErr(method, err)
	}
	t.Sent(x.sent + shown)
	t.Got(x.String())
	return x
}

// foreignRefused sends the first request with header, recorded as sent
// with what shown adds, and fails t unless it is refused with 403 (any
// 4xx before 2025-11-25: refusedBefore403), saying why with the status.
func foreignRefused(t *T, header http.Header, shown, why string) {
	if x := firstRequest(t, httpReq{header: header}, shown); x.status != http.StatusForbidden && !refusedBefore403(t, x) {
		t.Fail(why, x.status)
	}
}

// refusedBefore403 reports whether x, the answer to a request of a
// foreign origin, keeps the rule of the server's version when that is
// older than 2025-11-25: those revisions say "Servers MUST validate the
// Origin header" and name no status, so any refusal (4xx) keeps it.
func refusedBefore403(t *T, x *exchange) bool {
	f := t.r.facts
	if f.era != "legacy" || f.version >= "2025-11-25" || x.status/100 != 4 {
		return false
	}
	t.Note("refused with HTTP %d; 403 is 2025-11-25's, and the server speaks %s, whose rule is only to validate the Origin", x.status, f.version)
	return true
}

// withSession is c, a connection of the initialize era, when the server
// gave it a session id; t is skipped when it gave none.
func withSession(t *T, c *conn) *conn {
	t.skipIf(c.sessionID() == "", "the server gives no session id (stateless)")
	return c
}

// loopback reports whether host names this machine.
func loopback(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	ip := net.ParseIP(host)
	// 0.0.0.0 and :: reach this machine when dialled (the address a local
	// server prints when it listens on every interface); a name under
	// localhost is this machine's (RFC 6761).
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || ip.IsLoopback() || ip.IsUnspecified()
}

// streamsAtOnce is how many requests http.one-stream sends at once: an
// even number, so that a server that pairs up its streams shows it.
const streamsAtOnce = 4
