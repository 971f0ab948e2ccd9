package check

// JSON-RPC and framing: what every message is, ids echoed, the standard
// error codes, notifications left unanswered, input that is not JSON
// survived, batches as the negotiated version has them.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// junkLine is seen.bad for a line on stdout that is no JSON at all.
const junkLine = "it is a line that is not JSON"

// jsonrpcChecks are the checks of JSON-RPC 2.0 as MCP uses it.
func jsonrpcChecks() []*Check {
	return []*Check{
		// These judge every message the run receives: its JSON-RPC shape,
		// its schema, its framing, its id, its encoding.
		exercised("jsonrpc.messages", needs{}, func(w *watchCtx, s seen) string {
			switch {
			case s.bad != "" && s.bad != junkLine && s.bad != notUTF8 && s.bad != headerLine:
				return "a message that is not JSON-RPC: " + s.bad
			case s.shape != "" && s.shape != bothShape && s.shape != objectShape:
				return "a message that breaks JSON-RPC 2.0: " + s.shape
			}
			return ""
		}),
		{ID: "jsonrpc.schema", run: func(t *T) {
			exercise(t)
			if ok, _ := t.r.offers(t.ctx, "modern"); ok {
				exerciseModern(t)
			}
			t.lintDone()
			schemaItems(t)
		}, watch: schemaProblem},
		exercised("jsonrpc.framing", needs{transport: "stdio"}, func(_ *watchCtx, s seen) string {
			switch {
			case s.framing:
				return "a message written over several lines"
			case s.bad == headerLine:
				return "a message framed with headers: " + s.bad
			}
			return ""
		}),
		exercised("jsonrpc.result-or-error", needs{}, spot("a response with both a result and an error", func(_ *watchCtx, s seen) bool { return s.shape == bothShape })),
		exercised("jsonrpc.error-id", needs{}, spotSaid(func(_ *watchCtx, s seen) bool { return s.nullFor != "" }, func(s seen) string {
			return fmt.Sprintf("an error answering %s has a null id", s.nullFor)
		})),
		// A message over several lines (a stack trace, a validator's
		// report) is no single sentence; how concise one is, no rule bounds.
		exercised("jsonrpc.error-message", needs{}, spotSaid(func(_ *watchCtx, s seen) bool {
			return s.msg.Error != nil && strings.ContainsAny(strings.TrimSpace(s.msg.Error.Message), "\r\n")
		}, func(s seen) string {
			return fmt.Sprintf("an error's message runs over several lines: %q", clip(s.msg.Error.Message, 200))
		})),
		exercised("jsonrpc.one-response", needs{}, spotSaid(func(_ *watchCtx, s seen) bool { return s.dup }, func(s seen) string {
			return fmt.Sprintf("a second response to id %s", clip(string(s.msg.ID), 60))
		})),
		// Junk on stdout only: what else is no message, another check names.
		exercised("jsonrpc.stdout-only", needs{transport: "stdio"}, spotSaid(func(_ *watchCtx, s seen) bool {
			return s.via == "stdout" && s.bad == junkLine
		}, func(s seen) string {
			if s.jsonLog {
				return "the server wrote on its stdout what is no MCP message: it is JSON without a jsonrpc member"
			}
			return "the server wrote on its stdout what is no MCP message: " + s.bad
		})),
		exercised("jsonrpc.request-id", needs{}, func(_ *watchCtx, s seen) string {
			switch {
			case s.nullRequest:
				return "a request with a null id"
			case s.oddID:
				return fmt.Sprintf("a request (%s) whose id %s is neither a string nor an integer", s.msg.Method, clip(string(s.msg.ID), 60))
			}
			return ""
		}),
		exercised("jsonrpc.notification-id", needs{}, spotSaid(func(_ *watchCtx, s seen) bool {
			return s.msg.IsRequest() && strings.HasPrefix(s.msg.Method, "notifications/")
		}, func(s seen) string {
			return fmt.Sprintf("the notification %s sent with the id %s", s.msg.Method, clip(string(s.msg.ID), 60))
		})),
		{ID: "jsonrpc.meta-keys", run: metaRun, watch: metaWatch(func(_ seen, k string, _ json.RawMessage) string { return surface.MetaKeyProblem(k) })},
		{ID: "jsonrpc.meta-reverse-dns", run: metaRun, watch: metaWatch(func(_ seen, k string, _ json.RawMessage) string {
			prefix, _, ok := strings.Cut(k, "/")
			if labels := strings.Split(prefix, "."); ok && len(labels) > 1 && topDomain(labels[len(labels)-1]) && !topDomain(labels[0]) {
				return "has a prefix that is a domain name not reversed (com.example/, not example.com/)"
			}
			return ""
		})},
		{ID: "modern.trace-context", needs: needs{era: "modern"}, run: metaRun, watch: metaWatch(func(s seen, k string, v json.RawMessage) string {
			if tp, _ := str(v); s.era == "modern" && k == "traceparent" && !traceparent.Get().MatchString(tp) {
				return "holds " + clip(string(v), 80) + ", not a W3C Trace Context traceparent (version-traceid-parentid-flags, in lowercase hex)"
			}
			return ""
		})},
		{ID: responseID, run: func(t *T) {
			exercise(t)
			if len(t.r.opts.Calls) > 0 { // the first tool named, called once a run
				t.r.callOnce(t, 0)
			}
		}, watch: spotSaid(func(_ *watchCtx, s seen) bool { return s.unpending != "" && s.meant != "ping" }, func(s seen) string { // a ping answered under another id is lifecycle.ping's
			return fmt.Sprintf("a response under id %s, %s", clip(string(s.msg.ID), 60), s.unpending)
		})},
		// 2026-07-28 forbids only the id of a request not yet answered;
		// 2025-11-25 any id used before in the session, answered or not.
		{ID: "jsonrpc.request-id-unique", run: func(t *T) {
			exercise(t)
			pingsAgain(t)
		}, watch: func(_ *watchCtx, s seen) string {
			if s.reused == "unanswered" || s.reused == "answered" && s.era != "modern" {
				return fmt.Sprintf("a request (%s) under id %s, which the server used before in the session, for a request the client %s", s.msg.Method, clip(string(s.msg.ID), 60),
					map[string]string{"answered": "had answered", "unanswered": "had not answered (sent again, it is a second use of the id)"}[s.reused])
			}
			return ""
		}},
		exercised("jsonrpc.utf8", needs{}, spot("a message that is not valid UTF-8", func(_ *watchCtx, s seen) bool { return s.bad == notUTF8 })),
		// These send well-formed requests and a notification: ids
		// echoed, the standard error codes, a notification left unanswered.
		inGroup("rpc", "jsonrpc.string-id", needs{}, func(t *T) {
			echoes(t, `"mcpv-check:\"id\" ☃ 7"`)
		}),
		inGroup("rpc", "jsonrpc.number-id", needs{}, func(t *T) {
			echoes(t, `0`)
			echoes(t, `4294967297`)
		}),
		inGroup("rpc", "jsonrpc.unknown-method", needs{}, func(t *T) {
			m, x := t.ask(t.conn(), `{"jsonrpc":"2.0","id":N,"method":"mcpv-check/no-such-method"}`, "mcpv-check/no-such-method", nil)
			wantError(t, m, x, mcp.CodeMethodNotFound)
		}),
		inGroup("rpc", "jsonrpc.invalid-params", needs{}, func(t *T) {
			method := ""
			for _, m := range []struct{ method, capability string }{{"prompts/get", "prompts"}, {"resources/read", "resources"}, {"tools/call", "tools"}} {
				if t.r.facts.declares(m.capability) {
					method = m.method
					break
				}
			}
			t.skipIf(method == "", "the server declares none of prompts, resources and tools, whose methods take params")
			c := t.conn()
			m, x := t.ask(c, fmt.Sprintf(`%s with params {} (no %s)`, method, map[string]string{"prompts/get": "name", "resources/read": "uri", "tools/call": "name"}[method]), method, json.RawMessage(`{}`))
			t.skipIf(m.Error != nil && m.Error.Code == mcp.CodeHeaderMismatch && c.era == "modern" && c.http != nil, "over HTTP the request's headers were refused first (-32020): params whose name cannot be read give no value a header can match")
			t.notServed(method, m.Error)
			wantError(t, m, x, mcp.CodeInvalidParams)
		}),
		inGroup("rpc", "jsonrpc.notification", needs{}, func(t *T) {
			c := t.conn()
			const note = `{"jsonrpc":"2.0","method":"notifications/mcpv-check/unknown","params":{}}`
			got := sendSeen(t, c, note, "sending a notification", func() error {
				x, err := c.send(t.ctx, []byte(stampedNote(c, "notifications/mcpv-check/unknown")))
				t.noteIf(err == nil && x != nil && x.status/100 != 2 && x.status != 0, "over HTTP the notification was answered %s", x)
				return err
			})
			if _, ok := firstSeen(t, got, func(s seen) bool {
				return s.msg.IsResponse() && (s.msg.ID == nil || s.method == "") && s.bad == "" && !s.dup
			}); ok {
				t.Fail("the server answered a notification")
			}
			if s, _ := t.r.watches.firstNulls(); s != nil {
				// notifications/initialized of a connection's start,
				// answered: a result with a null id answers no request.
				t.FailGot(s.raw, "the server answered a notification: a result with a null id, which no request has")
			}
		}),
		// These send what is no request (a broken line, a
		// message that is no request, a batch) and judge what comes back.
		inGroup("rpc-bad", "jsonrpc.parse-error", needs{transport: "stdio"}, func(t *T) {
			s, ok := firstSeen(t, sendBadSeen(t, t.conn(), `{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {`, "sending a line that is not JSON"), func(s seen) bool { return s.msg.Error != nil && s.method == "" && !s.dup })
			switch {
			case !ok:
				t.Fail("no error came for it (a request sent after it was answered)")
			case s.msg.Error.Code != mcp.CodeParseError:
				t.Fail("the error's code is %d, not -32700 (Parse error)", s.msg.Error.Code)
			case s.msg.ID != nil && string(s.msg.ID) != "9":
				t.Fail("the error's id is %s; it must be null", s.msg.ID)
			}
			t.noteIf(s.msg.ID != nil, "the error carries id 9, read from the broken line; JSON-RPC 2.0 has null here")
		}),
		inGroup("rpc-bad", "jsonrpc.invalid-request", needs{transport: "stdio"}, func(t *T) {
			s, ok := firstSeen(t, sendBadSeen(t, t.conn(), `{"jsonrpc":"2.0","id":"mcpv-check-invalid","method":42}`, "sending an invalid request"), func(s seen) bool {
				return s.msg.Error != nil && (s.msg.ID == nil || idKey(s.msg.ID) == idKey(json.RawMessage(`"mcpv-check-invalid"`)))
			})
			switch {
			case !ok:
				t.Fail("no error came for it (a request sent after it was answered)")
			case s.msg.Error.Code != mcp.CodeInvalidRequest:
				t.Fail("the error's code is %d, not -32600 (Invalid Request)", s.msg.Error.Code)
			}
		}),
		inGroup("rpc-bad", "jsonrpc.survives-bad-input", needs{transport: "stdio"}, func(t *T) {
			c := t.conn()
			for _, bad := range []string{`{}`, `[]`, `"just a string"`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "\x00\x01 not json \xff", `{"jsonrpc":"2.0","result":{},"id":"mcpv-check-never-asked"}`} {
				sendSeen(t, c, bad+"  (then a request)", "sending input that is no request", func() error {
					_, err := c.send(t.ctx, []byte(bad))
					return err
				})
			}
		}),
		inGroup("rpc-bad", "jsonrpc.batch-2025-03-26", needs{}, func(t *T) {
			c := t.conn()
			t.skipIf(c.version != "2025-03-26", "the protocol version is %s; batches are 2025-03-26's alone", c.version)
			const batch = `[{"jsonrpc":"2.0","id":"mcpv-check-b1","method":"ping"},{"jsonrpc":"2.0","id":"mcpv-check-b2","method":"ping"}]`
			answered, refused := 0, ""
			for _, s := range sendBadSeen(t, c, batch, "sending a batch") {
				switch {
				case s.msg.IsResponse() && s.msg.ID != nil && strings.HasPrefix(string(s.msg.ID), `"mcpv-check-b`):
					t.Got(s.raw)
					answered++
				case s.msg.IsResponse() && s.msg.Error != nil && refused == "":
					refused = s.raw // the batch refused whole: -32700 or -32600
				}
			}
			switch {
			case answered == 2:
			case answered == 0 && refused != "":
				t.FailGot(refused, "the batch was answered with an error, not with the answers to its 2 pings")
			default:
				t.Fail("%d of the batch's 2 pings were answered", answered)
			}
		}),
		inGroup("rpc-bad", "jsonrpc.batch", needs{}, func(t *T) {
			c := t.conn()
			t.skipIf(c.version == "2025-03-26", "the protocol version is 2025-03-26, which has batches (jsonrpc.batch-2025-03-26)")
			method := "ping"
			if c.era == "modern" {
				method = "server/discover"
			}
			one, _ := mcp.EncodeRequest(json.RawMessage(`"mcpv-check-b1"`), method, c.stamp(nil))
			batch := "[" + string(one) + "]"
			sendSeen(t, c, batch+"  (then another request)", "sending a batch", func() error {
				x, err := c.send(t.ctx, []byte(batch))
				t.noteIf(err == nil && x != nil, "over HTTP the batch was answered %s", x)
				return err
			})
		}),
	}
}

// inGroup is a check of the group, whose checks take its connection one
// after another, with needs n.
func inGroup(group, id string, n needs, run func(t *T)) *Check {
	return &Check{ID: id, group: group, needs: n, run: run}
}

const notUTF8 = "it is not valid UTF-8"

// objectShape is seen.shape for a result that is no JSON object: JSON-RPC
// 2.0 lets a result be any value, MCP's schema does not (every Result is
// an object), which jsonrpc.schema names.
const objectShape = "its result is not a JSON object"

// bothShape is seen.shape for a response with both a result and an error,
// which jsonrpc.result-or-error names.
const bothShape = "it has both a result and an error"

// exercise asks what every server answers, for the watches to see: a
// ping, the first page of each list declared, and a method that does not
// exist (for an error), once per run on the shared connection.
func exercise(t *T) {
	t.r.exerciseOnce.Do(func() {
		c := t.conn()
		barrier(t, c)
		askLists(t, c)
	})
}

// askLists asks c the first page of each list declared, then a method
// that does not exist (for an error).
func askLists(t *T, c *conn) {
	for _, l := range t.r.facts.lists() {
		t.request(c, l.Method, nil)
	}
	t.request(c, "mcpv-check/no-such-method", nil)
}

// pingsAgain waits for the server's second ping on the main session
// when it has pinged it once: one that pings on a timer shows the id of
// its next ping only to a session that lasts until it. A timer whose
// first ping came d after initialized fires again within d, or within
// the process's start: the wait is to twice d (a second at least) and a
// second more after the first ping, 10 s at most.
func pingsAgain(t *T) {
	began, pinged, next := t.r.wire.pingTimes()
	if began.IsZero() || len(pinged) != 1 || t.r.watches.finds(t.check) {
		return
	}
	wait := min(time.Until(pinged[0].Add(2*max(pinged[0].Sub(began), time.Second)+time.Second)), 10*time.Second)
	if wait <= 0 {
		return
	}
	bound := time.NewTimer(wait)
	defer bound.Stop()
	start := time.Now()
	t.r.answered(t.ctx, func(ctx context.Context) error { // a wait on the server
		for len(pinged) < 2 {
			select {
			case <-next:
				_, pinged, next = t.r.wire.pingTimes()
			case <-bound.C:
				t.Note("the server pinged the main session once: no second ping came in %s", time.Since(start).Round(time.Millisecond))
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		t.Note("the server pinged the main session once by the run's end: its second ping came %s later", time.Since(start).Round(time.Millisecond))
		return nil
	})
}

// stampedNote is a notification of method, stamped for the connection's era.
func stampedNote(c *conn, method string) string {
	b, _ := mcp.EncodeRequest(nil, method, c.stamp(json.RawMessage(`{}`)))
	return string(b)
}

// barrier pings on c and waits for the answer: what the server sent in
// answer to what came before, it has sent by then (a server reads its
// input in order; one that answers out of order gets a moment more).
func barrier(t *T, c *conn) {
	if method, err := barrierErr(t, c); err != nil {
		if !c.alive() {
			t.failErr("the server stopped answering: a "+method+" after it", err)
		}
		t.failErr("a "+method+" after it", err)
	}
}

// barrierErr is barrier, returning what went wrong rather than ending
// the check.
func barrierErr(t *T, c *conn) (string, error) {
	method := t.r.probeMethod(c.era)
	m, _, err := c.request(t.ctx, method, nil)
	withLock(&c.mu, func() { c.expectNull = false }) // what came before the barrier's answer has come
	switch {
	case err != nil:
		return method, err
	case m.Error != nil && method != unknownMethod:
		t.FailGot(errText(m.Error), "a %s after it was answered with an error", method)
	}
	if c.stdio != nil {
		settle(t, 50*time.Millisecond)
	}
	return method, nil
}

// unknownMethod is a method no server has: any answer to it, if only an
// error, is an answer.
const unknownMethod = "mcpv-check/no-such-method"

// probeMethod is the request that every server of the era answers: ping,
// in the initialize era unless the server leaves it unanswered (which
// lifecycle.ping reports alone); server/discover in the 2026-07-28 era,
// which has no ping.
func (r *runner) probeMethod(era string) string {
	switch {
	case era == "modern":
		return "server/discover"
	case r.facts != nil && r.facts.pingBroken != "":
		return unknownMethod
	}
	return "ping"
}

// settle gives the server d more, unless the check's time ends first.
func settle(t *T, d time.Duration) {
	select {
	case <-time.After(d):
	case <-t.ctx.Done():
	}
}

// echoes pings with id and fails unless the response carries the same id.
func echoes(t *T, id string) {
	c := t.conn()
	mark := c.mark()
	method := t.r.probeMethod(c.era)
	msg, _ := mcp.EncodeRequest(json.RawMessage(id), method, c.stamp(nil))
	t.Sent(string(msg))
	if c.http != nil {
		x, err := c.post(t.ctx, httpReq{body: msg}, json.RawMessage(id))
		t.must(method, err)
		if x.response != nil {
			return
		}
		t.FailGot(cmp.Or(lastOf(x.msgs).raw, x.String()), "the answer holds no response with id %s", id)
	}
	ch := c.expect(json.RawMessage(id), method)
	defer c.unexpect(json.RawMessage(id))
	t.must(method, c.write(t.ctx, msg))
	if _, berr := barrierErr(t, c); len(ch) == 0 { // a response there already is judged whatever the barrier met
		t.must("a "+method+" after it", berr)
	}
	select {
	case r := <-ch:
		if tw := (*twinError)(nil); errors.As(r.err, &tw) {
			t.FailGot(lastOf(c.since(mark)).raw, "no response with id %s; the server answered with id %s", id, tw.got)
		}
		if strayIn(r.err) != "" { // the one request waiting: its answer came under another id
			t.FailGot(lastOf(c.since(mark)).raw, "no response with id %s; the server answered under an id it was not sent", id)
		}
		return
	case <-time.After(time.Second):
	case <-t.ctx.Done():
	}
	for _, s := range c.since(mark) {
		t.failGotIf(s.msg.IsResponse() && s.method == "" && !s.dup, s.raw, "no response with id %s; the server answered with id %s", id, s.msg.ID)
	}
	t.Fail("no response with id %s came (a request sent after it was answered)", id)
}

// metaRun exercises the server and gets its prompts, whose results carry
// _meta too.
func metaRun(t *T) {
	exercise(t)
	if t.r.facts.declares("prompts") {
		eachPrompt(t, func(string, json.RawMessage, *mcp.RPCError) {}, false)
	}
}

// metaWatch is a watch that judges each key of a message's _meta (of its
// params or its result) and the key's value with problem: the first it
// finds.
func metaWatch(problem func(s seen, k string, v json.RawMessage) string) func(*watchCtx, seen) string {
	return func(_ *watchCtx, s seen) string {
		for _, part := range []json.RawMessage{s.msg.Params, s.msg.Result} {
			var meta map[string]json.RawMessage
			if json.Unmarshal(member(part, "_meta"), &meta) != nil {
				continue
			}
			for k, v := range meta {
				if p := problem(s, k, v); p != "" {
					return fmt.Sprintf("the _meta key %q %s", clip(k, 80), p)
				}
			}
		}
		return ""
	}
}

// topDomain: a prefix written forward ends in one (basic#meta: com.example/, not example.com/).
func topDomain(l string) bool {
	return slices.Contains([]string{"com", "org", "net", "io", "dev", "ai", "app", "co", "edu", "gov"}, l) // on the stack: nothing built at start-up or per key
}

// traceparent is W3C Trace Context's traceparent: version, trace id,
// parent id and flags, in lowercase hex.
var traceparent = &lazy.Regexp{Pattern: `^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`}
