package check

// The 2026-07-28 era, where the server offers it: server/discover, every
// result's resultType and caching hints, the per-request _meta a request
// must carry, unsupported versions, the HTTP status codes and the Mcp-*
// headers that must match the body, subscriptions/listen, and the error
// codes the era no longer has.

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// modernDiscoverChecks judge server/discover and what every result of the
// era carries.
func modernDiscoverChecks() []*Check {
	return []*Check{
		declaredCheck("modern.declared-lists", "modern"),
		modernCheck("modern.discover", needs{}, func(t *T) {
			m := discoverOn(t, t.conn())
			var d struct {
				Supported    []string        `json:"supportedVersions"`
				Capabilities json.RawMessage `json:"capabilities"`
			}
			t.failGotIf(json.Unmarshal(m.Result, &d) != nil || len(d.Supported) == 0, clipped(m.Result), "the result has no supportedVersions array of strings")
			t.failGotIf(!isObject(d.Capabilities), clipped(m.Result), "the result has no capabilities object")
			if p := t.schemaResultProblem(schemaOf(mcp.ModernVersion), "DiscoverResult", "server/discover", m.Result); p != "" {
				t.FailGot(clipped(m.Result), "%s", p)
			}
		}),
		modernCheck("modern.initialize-versions", needs{}, func(t *T) {
			if ok, _ := t.r.offers(t.ctx, "legacy"); ok {
				t.Skip("the server speaks the initialize era too")
			}
			var d struct {
				Supported []string `json:"supportedVersions"`
			}
			t.blockIf(json.Unmarshal(discoverOn(t, t.conn()).Result, &d) != nil || len(d.Supported) == 0, "modern.discover", "server/discover names no supportedVersions to look for")
			c := t.fresh(connOptions{era: "legacy", bare: true})
			t.Sent("initialize, as a client of the initialize era begins")
			m, _, err := c.requestID(t.ctx, c.newID(), "initialize", c.initializeParams(mcp.LatestVersion))
			t.must("initialize", err)
			t.skipIf(m.Error == nil, "the server took the initialize: it serves that era's handshake")
			t.Got(errText(m.Error))
			t.failIf(!slices.ContainsFunc(d.Supported, func(v string) bool { return strings.Contains(m.Error.Message+string(m.Error.Data), v) }), "the error names none of the versions the server speaks (%s): a client of the initialize era has nothing else to show its user", strings.Join(d.Supported, ", "))
		}),
		modernCheck("modern.server-info", needs{}, func(t *T) {
			m := discoverOn(t, t.conn())
			info := member(member(m.Result, "_meta"), mcp.MetaServerInfo)
			_, named := str(member(info, "name"))
			if _, versioned := str(member(info, "version")); !named || !versioned {
				t.FailGot(clipped(m.Result), "no _meta %q with a name and a version", mcp.MetaServerInfo)
			}
		}),
		modernWatch("modern.result-type", func(w *watchCtx, s seen) string {
			if !modernResult(s) {
				return ""
			}
			rt, ok := str(member(s.msg.Result, "resultType"))
			var exts map[string]json.RawMessage
			// extensions that do not decode are none known here
			other := malformed(member(w.f.capabilities(), "extensions"), &exts, "extensions") != "" ||
				slices.ContainsFunc(slices.Collect(maps.Keys(exts)), func(name string) bool { return !slices.Contains(knownExtensions, name) })
			switch {
			case !ok:
				return fmt.Sprintf("a result%s without resultType", ofMethod(s))
			case rt == "complete", rt == "input_required", rt == "task" && w.f.declares("tasks"):
			case !other:
				// Extensions may add values: one of an extension the
				// server declares, whose values are not known here,
				// is none to judge.
				return fmt.Sprintf("a result%s of resultType %q, which neither the core protocol nor an extension the server declares has", ofMethod(s), clip(rt, 40))
			}
			return ""
		}),
		// Each result names its server, so that no reading of one
		// needs the connection it came on.
		modernWatch("modern.result-server-info", spotSaid(func(_ *watchCtx, s seen) bool {
			_, named := str(member(member(member(s.msg.Result, "_meta"), mcp.MetaServerInfo), "name"))
			return modernResult(s) && !named
		}, func(s seen) string {
			return fmt.Sprintf("a result%s without _meta %q naming the server", ofMethod(s), mcp.MetaServerInfo)
		})),
	}
}

// modernResult says s is a result of the 2026-07-28 era's own: a method
// of the initialize era a server still serves (ping) answers as that era
// did.
func modernResult(s seen) bool {
	return s.era == "modern" && s.msg.IsResponse() && s.msg.Error == nil && s.msg.ID != nil && !slices.Contains(initializeEraMethods, s.method)
}

// modernOwnChecks are the checks of the caching hints of cacheable
// results, and of what the 2026-07-28 era asks of a request's answer, of
// HTTP and of every message.
func modernOwnChecks() []*Check {
	return []*Check{
		modernWatch("modern.cache-hints", func(w *watchCtx, s seen) string {
			if s.era != "modern" || !s.msg.IsResponse() || s.msg.Error != nil || !mcp.Cacheable(s.method) {
				return ""
			}
			if rt, _ := str(member(s.msg.Result, "resultType")); rt == "input_required" {
				return ""
			}
			ttl, held := number(member(s.msg.Result, "ttlMs"))
			scope, _ := str(member(s.msg.Result, "cacheScope"))
			switch {
			case held == "nothing":
				return fmt.Sprintf("a result%s without ttlMs", ofMethod(s))
			case held != "":
				return fmt.Sprintf("a result%s whose ttlMs held %s, not a number", ofMethod(s), held)
			case ttl < 0 || ttl != math.Trunc(ttl): // an integer, however large (an int64 conversion is not, past its range)
				return fmt.Sprintf("a result%s whose ttlMs %v is not an integer >= 0", ofMethod(s), ttl)
			case scope != "public" && scope != "private":
				return fmt.Sprintf(`a result%s whose cacheScope is not "public" or "private"`, ofMethod(s))
			}
			return ""
		}),
		modernCheck("modern.cache-scope-pages", needs{}, func(t *T) {
			c := t.conn()
			paged := false
			for _, l := range t.r.facts.lists() {
				var params json.RawMessage
				first := ""
				for page := 1; page <= 50; page++ {
					m, _ := t.request(c, l.Method, params)
					if m.Error != nil {
						break
					}
					scope, _ := str(member(m.Result, "cacheScope"))
					if page == 1 {
						first = scope
					} else if paged = true; scope != first {
						t.FailExchange(fmt.Sprintf("%s, page 1 and page %d", l.Method, page), fmt.Sprintf("cacheScope %q, then %q", first, scope), "%s's pages have different cacheScopes", l.Method)
					}
					next, ok := str(member(m.Result, "nextCursor"))
					if !ok {
						break
					}
					params, _ = json.Marshal(map[string]string{"cursor": next})
				}
			}
			t.skipIf(!paged, "no list the server declares has a second page")
		}),
		// These send what the era answers in its own way: a request
		// without its _meta, an unsupported version, an unknown method or
		// resource, an Mcp-Name unlike the body's; and subscriptions/listen.
		modernCheck("modern.meta-required", needs{}, func(t *T) {
			c := t.connWith(connOptions{era: "modern"})
			v, _ := json.Marshal(c.version)
			params, _ := mcp.WithMeta(nil, mcp.MetaProtocolVersion, v)
			t.Sent("server/discover " + string(params) + " (no " + mcp.MetaClientCapabilities + ")")
			m, x, err := c.requestID(t.ctx, c.newID(), "server/discover", params)
			wantRefusal(t, "server/discover", m, x, err, http.StatusBadRequest, mcp.CodeInvalidParams)
		}),
		modernCheck("modern.unsupported-version", needs{}, func(t *T) {
			// A modern request carries its version: the shared
			// connection serves, stamped with another.
			const other = "2099-12-31"
			c := t.connWith(connOptions{era: "modern"})
			// A list the server serves, rather than server/discover,
			// whose answer is the versions a client is to learn: a
			// discover answered all the same is not sure to break
			// the rule.
			method := "server/discover"
			if lists := t.r.facts.lists(); len(lists) > 0 {
				method = lists[0].Method
			}
			// Each request is judged by its own version: one the server
			// serves goes first, as on a connection in use.
			t.ask(c, method+", then "+method+" stamped with protocol version "+other, method, nil)
			id := c.newID()
			msg, _ := mcp.EncodeRequest(id, method, c.stampVersion(nil, other))
			m, x, err := c.roundTrip(t.ctx, id, msg, httpReq{header: http.Header{"MCP-Protocol-Version": {other}}})
			if method == "server/discover" && err == nil && m.Error == nil {
				t.UnsureGot(clip(string(m.Result), 200), "server/discover stamped with a version the server does not support was answered with its result (its supported versions), not -32022")
			}
			wantRefusal(t, method, m, x, err, http.StatusBadRequest, mcp.CodeUnsupportedProtocolVersion)
			var d struct {
				Supported []string `json:"supported"`
			}
			t.failGotIf(json.Unmarshal(m.Error.Data, &d) != nil || len(d.Supported) == 0, errText(m.Error)+" "+clip(string(m.Error.Data), 200), "the error's data has no supported list")
		}),
		modernCheck("modern.method-not-found", needs{transport: "http"}, func(t *T) {
			c := t.connWith(connOptions{era: "modern"})
			t.Sent("POST mcpv-check/no-such-method")
			m, x, err := c.request(t.ctx, "mcpv-check/no-such-method", nil)
			wantRefusal(t, "mcpv-check/no-such-method", m, x, err, http.StatusNotFound, mcp.CodeMethodNotFound)
		}),
		headerCheck("modern.header-method", "Mcp-Method", "tools/list"),
		headerCheck("modern.header-version", "MCP-Protocol-Version", "2025-11-25"),
		headerCheck("modern.header-missing", "Mcp-Method", ""),
		modernCheck("modern.header-version-missing", needs{transport: "http"}, func(t *T) {
			c := t.connWith(connOptions{era: "modern"})
			id := json.RawMessage(`"mcpv-check-no-version"`)
			body, _ := mcp.EncodeRequest(id, "server/discover", c.stamp(nil))
			t.Sent("POST server/discover without MCP-Protocol-Version")
			x := t.post(c, httpReq{body: body, header: http.Header{"MCP-Protocol-Version": {""}}}, id, "server/discover")
			t.Got(x.String())
			// Refused, or read as 2025-03-26, which has no
			// server/discover: anything but its result.
			if x.status == http.StatusOK && x.response != nil && member(x.response.Result, "supportedVersions") != nil {
				// A server that serves clients of before 2025-06-18 may read
				// such a request as it likes: the MUST is the others'.
				old := t.fresh(connOptions{era: "legacy", version: "2025-03-26", bare: true})
				if m, _, err := old.requestID(t.ctx, old.newID(), "initialize", old.initializeParams("2025-03-26")); err == nil && str1(member(m.Result, "protocolVersion")) == "2025-03-26" {
					t.Note("served as of 2026-07-28, by a server that serves clients of 2025-03-26 too, which the revision lets read such a request as it likes")
					return
				}
				t.Fail("server/discover without MCP-Protocol-Version was answered as a request of 2026-07-28: a server that reads a request without the header as 2025-03-26 answers as that revision, else refuses it with 400")
			}
		}),
		modernCheck("modern.header-case", needs{transport: "http"}, func(t *T) {
			c := t.connWith(connOptions{era: "modern"})
			id := json.RawMessage(`"mcpv-check-header-case"`)
			body, _ := mcp.EncodeRequest(id, "server/discover", c.stamp(nil))
			lower := http.Header{"mcp-protocol-version": {c.version}, "mcp-method": {"server/discover"}} // names as written, not made canonical
			t.Sent("POST server/discover with its headers named mcp-protocol-version and mcp-method")
			if x := t.post(c, httpReq{body: body, header: lower}, id, "server/discover"); x.status/100 != 2 || x.response == nil || x.response.Error != nil {
				t.FailGot(x.String(), "refused, where the same request with its header names as the revision writes them is served: the names were compared with their case")
			}
		}),
		modernCheck("modern.header-name", needs{transport: "http", capability: "prompts"}, func(t *T) {
			c := t.connWith(connOptions{era: "modern"})
			body, _ := mcp.EncodeRequest(json.RawMessage(`"mcpv-check-name"`), "prompts/get", c.stamp(json.RawMessage(`{"name":"mcpv-check-no-such-prompt"}`)))
			x := t.httpSendQuiet(c, httpReq{body: body, header: http.Header{"Mcp-Name": {"mcpv-check-other"}}}, json.RawMessage(`"mcpv-check-name"`),
				"POST prompts/get of \"mcpv-check-no-such-prompt\" with Mcp-Name: mcpv-check-other")
			mismatch(t, x)
			// A name no header carries plain goes Base64-encoded, and the
			// server decodes it before it compares.
			const name = "mcpv-check-résumé"
			body, _ = mcp.EncodeRequest(json.RawMessage(`"mcpv-check-encoded"`), "prompts/get", c.stamp(json.RawMessage(`{"name":"`+name+`"}`)))
			x = t.httpSendQuiet(c, httpReq{body: body, header: http.Header{"Mcp-Name": {"=?base64?" + base64.StdEncoding.EncodeToString([]byte(name)) + "?="}}},
				json.RawMessage(`"mcpv-check-encoded"`), "POST prompts/get of \""+name+"\" with its Mcp-Name Base64-encoded")
			if mismatched(x) {
				t.FailGot(x.String(), "an encoded Mcp-Name was compared with the body's name undecoded: the answer is -32020 (HeaderMismatch)")
			}
		}),
		modernCheck("modern.header-param", needs{transport: "http", call: true}, func(t *T) {
			c, tool, body, name, value := paramHeaderCall(t, false)
			mismatch(t, t.httpSendQuiet(c, httpReq{body: body, header: http.Header{name: {"mcpv-check-other"}}}, paramCallID,
				fmt.Sprintf("POST tools/call of %q with %s: mcpv-check-other (the argument is %q)", tool, name, value)))
		}),
		modernCheck("modern.resource-not-found", needs{capability: "resources"}, func(t *T) {
			wantError(t, t.askIn(connOptions{era: "modern"}, "resources/read", json.RawMessage(`{"uri":"mcpv-check://no-such-resource/7"}`)), nil, mcp.CodeInvalidParams)
		}),
		modernCheck("modern.listen", needs{}, listen),
		// This check cancels a subscription over stdio as any request is,
		// with notifications/cancelled naming it (listenOpen), and reads
		// on for a while after the server has answered two requests sent
		// after the cancellation, one after the other: one message more
		// for the subscription may have been on its way, a second was not.
		modernCheck("modern.cancel-listen", needs{transport: "stdio"}, func(t *T) {
			c := t.fresh(connOptions{era: "modern"})
			params, _ := json.Marshal(map[string]any{"notifications": listenFilter(t)})
			t.Sent("subscriptions/listen " + string(params) + ", cancelled with notifications/cancelled, then two requests one after the other")
			first, _, ok := listenOpen(t, c, params)
			t.skipIf(!ok || first.msg.Method != "notifications/subscriptions/acknowledged", "the subscription was not acknowledged (modern.listen says how)")
			barrier(t, c)
			barrier(t, c)
			settled, wait := c.mark(), cmp.Or(t.r.opts.cancelledWait, listenCancelWait)
			settle(t, wait)
			id := idKey(json.RawMessage(`"mcpv-check-listen"`))
			late := slices.DeleteFunc(c.since(settled), func(s seen) bool {
				return idKey(s.msg.ID) != id && idKey(member(member(s.msg.Params, "_meta"), "io.modelcontextprotocol/subscriptionId")) != id
			})
			switch {
			case len(late) > 1:
				t.FailGot(late[1].raw, "the cancelled subscription sent %d messages in the %s after the server had answered two requests sent after the cancellation, one after the other", len(late), wait)
			case len(late) == 1:
				t.UnsureGot(late[0].raw, "the cancelled subscription sent a message after the server had answered two requests sent after the cancellation, one after the other: it may have been on its way")
			}
		}),
		// These judge a server of this era alone over HTTP: no GET or
		// DELETE, no session.
		modernCheck("modern.get-405", needs{transport: "http"}, func(t *T) {
			c := modernAlone(t, "whose GET stream and DELETE it may serve")
			for _, method := range []string{http.MethodGet, http.MethodDelete} {
				x := t.httpSendQuiet(c, httpReq{method: method, headersOnly: true}, nil, method)
				t.Got(fmt.Sprintf("HTTP %d", x.status))
				t.failIf(x.status != http.StatusMethodNotAllowed, "%s answered HTTP %d, not 405", method, x.status)
			}
		}),
		modernCheck("modern.no-session", needs{transport: "http"}, func(t *T) {
			c := modernAlone(t, "which has sessions")
			body, _ := mcp.EncodeRequest(json.RawMessage(`"mcpv-check-sid"`), "server/discover", c.stamp(nil))
			x := t.httpSend(c, httpReq{body: body, header: http.Header{"Mcp-Session-Id": {"mcpv-check-session"}}}, json.RawMessage(`"mcpv-check-sid"`),
				"POST server/discover with Mcp-Session-Id: mcpv-check-session")
			if sid := x.header.Get("Mcp-Session-Id"); sid != "" {
				t.Fail("the answer carries Mcp-Session-Id %q", clip(sid, 60))
			}
			t.failIf(x.response == nil, "the session id was not ignored: HTTP %d", x.status)
		}),
		// These judge every message of the era: no request from the
		// server, no log message unasked, no error code retired or undefined.
		modernWatch("modern.no-requests", spotSaid(func(_ *watchCtx, s seen) bool {
			return s.era == "modern" && s.msg.IsRequest()
		}, func(s seen) string {
			return fmt.Sprintf("a request (%s) from the server, which the era carries in results (input_required)", s.msg.Method)
		})),
		// The run's own connections ask for log messages on
		// modern.log-level's and lifecycle.logging-declared's alone.
		modernWatch("modern.log-unasked", spot("a log message, though no request asked for one (io.modelcontextprotocol/logLevel)", func(w *watchCtx, s seen) bool {
			return s.era == "modern" && s.via != "session" && s.logs == "" && s.msg.IsNotification() && s.msg.Method == "notifications/message"
		})),
		modernWatch("modern.error-codes", func(w *watchCtx, s seen) string {
			if s.era != "modern" || s.msg.Error == nil {
				return ""
			}
			switch code := s.msg.Error.Code; {
			case code == -32002 && s.method == "resources/read" && w.f.declares("resources") && w.runs("modern.resource-not-found"):
				// A resource not found answered with the retired code:
				// the check of that answer names it.
			case code == -32002 || code == -32042:
				return fmt.Sprintf("error %d, which 2026-07-28 retired", code)
			case code <= -32020 && code >= -32099 && code != mcp.CodeHeaderMismatch && code != mcp.CodeMissingRequiredClientCapabilities && code != mcp.CodeUnsupportedProtocolVersion:
				return fmt.Sprintf("error %d, in the range the specification keeps for itself, which it does not define", code)
			}
			return ""
		}),
	}
}

// modernCheck is a check of the 2026-07-28 era, with needs n besides.
func modernCheck(id string, n needs, run func(t *T)) *Check {
	n.era = "modern"
	return n.check(id, run)
}

// modernAlone is the check's connection of this era, when the server
// speaks no other; t is skipped, saying what the initialize era has, when
// it speaks that era too.
func modernAlone(t *T, has string) *conn {
	if ok, _ := t.r.offers(t.ctx, "legacy"); ok {
		t.Skip("the server speaks the initialize era too, %s", has)
	}
	return t.connWith(connOptions{era: "modern"})
}

// knownExtensions are the extensions whose result types are known: the
// tasks extension's "task", and none of the others'.
var knownExtensions = []string{mcp.TasksExtension, "io.modelcontextprotocol/ui", "io.modelcontextprotocol/skills"}

// exerciseModern asks a modern connection what every server answers,
// for the watches: server/discover, ping, the first page of each list.
func exerciseModern(t *T) {
	t.r.exerciseModernOnce.Do(func() {
		c := t.connWith(connOptions{era: "modern"})
		t.request(c, "server/discover", nil)
		askLists(t, c)
		if t.r.facts.declares("resources") {
			t.request(c, "resources/read", json.RawMessage(`{"uri":"mcpv-check://no-such-resource/7"}`))
		}
		if t.r.facts.declares("completions") {
			for _, params := range completionParams(t) {
				t.request(c, "completion/complete", params)
			}
		}
		// A prompt without required arguments: what a server may answer
		// with input_required, to a client that declared no capability.
		if t.r.facts.declares("prompts") {
			prompts, _ := t.r.facts.items(t.ctx, "prompts/list")
			if names := promptsToGet(prompts); len(names) > 0 {
				t.request(c, "prompts/get", promptParams(names[0], nil, nil))
			}
		}
	})
}

// discoverOn sends server/discover on c and fails t on an error.
func discoverOn(t *T, c *conn) mcp.Message {
	m, _ := t.ask(c, "server/discover", "server/discover", nil)
	if m.Error != nil {
		t.FailGot(errText(m.Error), "server/discover was refused")
	}
	return m
}

func ofMethod(s seen) string {
	if s.method == "" {
		return ""
	}
	return " of " + s.method
}

// wantStatus fails t unless an HTTP answer (x non-nil) has status.
func wantStatus(t *T, x *exchange, status int) {
	if x != nil && x.status != status {
		t.FailGot(x.String(), "answered HTTP %d, not %d", x.status, status)
	}
}

// wantRefusal fails t unless the answer to method (m, over HTTP x, or
// err) is the HTTP status and the error code. The status is judged
// before err, which a refusal's body that holds no response gives.
func wantRefusal(t *T, method string, m mcp.Message, x *exchange, err error, status, code int) {
	if err != nil && x == nil {
		t.failErr(method, err)
	}
	wantStatus(t, x, status)
	t.must(method, err)
	wantError(t, m, nil, code)
}

// headerCheck is a check that a request whose header name says value
// ("" leaves it out) is refused as a header mismatch.
func headerCheck(id, name, value string) *Check {
	return &Check{ID: id, needs: needs{era: "modern", transport: "http"}, run: func(t *T) {
		c := t.connWith(connOptions{era: "modern"})
		body, _ := mcp.EncodeRequest(json.RawMessage(`"mcpv-check-header"`), "server/discover", c.stamp(nil))
		sent := fmt.Sprintf("POST server/discover with %s: %s", name, value)
		t.Sent(map[bool]string{true: "POST server/discover without " + name, false: sent}[value == ""])
		mismatch(t, t.post(c, httpReq{body: body, header: http.Header{name: {value}}}, json.RawMessage(`"mcpv-check-header"`), "server/discover"))
	}}
}

// mismatch fails t unless x is 400 with error -32020.
func mismatch(t *T, x *exchange) {
	t.Got(x.String())
	wantStatus(t, x, http.StatusBadRequest)
	// The response's error, or one without the request's id: the header
	// may be what the server could not read.
	t.failIf(!mismatched(x), "the answer holds no error -32020 (HeaderMismatch)")
}

// mismatched reports whether x holds an error -32020 (HeaderMismatch).
func mismatched(x *exchange) bool {
	return slices.ContainsFunc(x.msgs, func(s seen) bool { return s.msg.Error != nil && s.msg.Error.Code == mcp.CodeHeaderMismatch })
}

// listen opens a subscription and checks that its first message is the
// acknowledgement carrying its id, and (over HTTP, where its stream is its
// own) that every notification after it carries the id too.
func listen(t *T) {
	filter := listenFilter(t)
	c := t.fresh(connOptions{era: "modern"})
	params, _ := json.Marshal(map[string]any{"notifications": filter})
	t.Sent("subscriptions/listen " + string(params))
	first, rest, ok := listenOpen(t, c, params)
	t.failIf(!ok, "the subscription's stream ended with no acknowledgement")
	t.Got(first.raw)
	subID := member(member(first.msg.Params, "_meta"), "io.modelcontextprotocol/subscriptionId")
	switch {
	case first.msg.Error != nil:
		t.Fail("subscriptions/listen was refused: %s", errText(first.msg.Error))
	case first.msg.Method != "notifications/subscriptions/acknowledged":
		t.Fail("the first message of the subscription is not notifications/subscriptions/acknowledged")
	case idKey(subID) != idKey(json.RawMessage(`"mcpv-check-listen"`)):
		t.Fail("the acknowledgement's io.modelcontextprotocol/subscriptionId is %s, not the id of the subscriptions/listen request (\"mcpv-check-listen\")", cmp.Or(string(subID), "absent"))
	}
	for _, s := range rest { // 2026-07-28 basic#meta: the server MUST include subscriptionId
		t.failGotIf(member(member(s.msg.Params, "_meta"), "io.modelcontextprotocol/subscriptionId") == nil, s.raw, "a notification on the subscription's stream without io.modelcontextprotocol/subscriptionId in _meta")
	}
}

// listenCancelWait is how long modern.cancel-listen reads on after the
// cancellation is surely read: news of a resource that changes every
// second or two comes in it.
const listenCancelWait = 2500 * time.Millisecond

// listenFilter is a subscription's filter of every kind of news the
// server declares; t is skipped when it declares none.
func listenFilter(t *T) map[string]any {
	filter := map[string]any{}
	for _, x := range listenKinds {
		if t.r.facts.declares(x.capability) {
			filter[x.key] = true
		}
	}
	if uris := subscribable(t); uris != nil {
		filter["resourceSubscriptions"] = uris
	}
	t.skipIf(len(filter) == 0, "the server declares no listChanged capability or resources.subscribe to listen for")
	return filter
}

// listenOpen sends subscriptions/listen with params on c and returns
// the first message of the subscription (its acknowledgement, another
// notification of it, or its response, an error; false when the stream
// ended with none) and the notifications that came in the moment after
// it (listenQuiet, or as long as the first took from a slow server; maxLog).
func listenOpen(t *T, c *conn, params json.RawMessage) (_ seen, rest []seen, _ bool) {
	id := json.RawMessage(`"mcpv-check-listen"`)
	body, _ := mcp.EncodeRequest(id, "subscriptions/listen", c.stamp(params))
	var first *seen
	sent := time.Now()
	ours := func(s seen) bool {
		return s.msg.IsNotification() && idKey(member(member(s.msg.Params, "_meta"), "io.modelcontextprotocol/subscriptionId")) == idKey(id)
	}
	// An acknowledgement on the connection is the listen's, whatever id it
	// names (listen judges the id).
	judge := func(s seen) bool {
		switch {
		case s.msg.IsResponse() && s.msg.ID != nil && idKey(s.msg.ID) == idKey(id):
			if first == nil {
				first = &s
			}
			return false
		case ours(s) || s.msg.Method == "notifications/subscriptions/acknowledged":
			first = &s
			return false
		}
		return true
	}
	if c.http != nil {
		// What follows the acknowledgement is read too, for the watches (a
		// log message on the stream): a quiet stream is left after a moment.
		ctx, cancel := context.WithCancel(t.ctx)
		defer cancel()
		x, err := c.post(ctx, httpReq{body: body, events: func(s seen) bool {
			switch {
			case first == nil && !judge(s):
				time.AfterFunc(max(listenQuiet, time.Since(sent)), cancel)
			case first != nil && s.msg.IsNotification():
				rest = append(rest, s)
			}
			return len(rest) < maxLog
		}}, nil)
		if x == nil {
			t.failErr("subscriptions/listen", err)
		}
		if x.response != nil && first == nil {
			first = &seen{msg: *x.response, raw: x.body}
		}
		if first == nil {
			t.Got(x.String())
		}
	} else {
		mark := c.mark()
		t.must("subscriptions/listen", c.write(t.ctx, body))
		for !slices.ContainsFunc(c.since(mark), func(s seen) bool { return !judge(s) }) { // until judge finds the first message
			select {
			case <-t.ctx.Done():
				t.failErr("waiting for the subscription's first message", context.Cause(t.ctx)) // inconclusive: a slow server is no violation
			case <-c.gone:
				t.failErr("subscriptions/listen", c.err())
			default:
				settle(t, 20*time.Millisecond)
			}
		}
		settle(t, max(listenQuiet, time.Since(sent)))
		for _, s := range c.since(mark) {
			if s.n > first.n && ours(s) && len(rest) < maxLog {
				rest = append(rest, s)
			}
		}
		c.notify(t.ctx, "notifications/cancelled", json.RawMessage(`{"requestId":"mcpv-check-listen"}`))
	}
	if first == nil {
		return seen{}, nil, false
	}
	return *first, rest, true
}
