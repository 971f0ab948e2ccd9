package check

// Rules a few exchanges show: GET and DELETE from a foreign Origin, a
// session ended twice, a tool call without the Mcp-Param header of an
// argument it gives, the HTTP status of a missing client capability, a
// request's event stream carrying news no request asked for, a
// subscription's stream carrying what it did not ask for, log messages
// below the level asked for.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// originsRefused are the origins http.origin sends: one no server
// serves, and two that begin as this machine's do and name another host,
// which a server that compares an Origin's beginning serves.
var originsRefused = []string{foreignOrigin, "http://localhost.mcpv-check.invalid", "http://127.0.0.1.mcpv-check.invalid"}

func probeChecks() []*Check {
	return []*Check{
		// This check sends GET and DELETE, on a session of their own, from a
		// foreign Origin: each is refused with 403, or not served to anyone
		// (405). The session goes first: a DELETE that is served ends it.
		{ID: "http.origin-methods", needs: needs{transport: "http"}, run: func(t *T) {
			c := t.fresh(connOptions{})
			for _, method := range []string{http.MethodGet, http.MethodDelete} {
				x := t.httpSendQuiet(c, httpReq{method: method, headersOnly: true, header: http.Header{"Origin": {foreignOrigin}}}, nil,
					method+" with Origin: "+foreignOrigin)
				t.Got(fmt.Sprintf("HTTP %d, Content-Type %q", x.status, x.header.Get("Content-Type")))
				switch {
				case x.status == http.StatusForbidden:
				case x.status == http.StatusMethodNotAllowed:
					t.Note("%s is answered 405: served to no client", method)
				case x.status/100 == 2:
					t.Fail("%s from a foreign Origin was served (HTTP %d): a web page the user visits reaches the server", method, x.status)
				case !refusedBefore403(t, x):
					t.Fail("%s from a foreign Origin answered HTTP %d, not 403", method, x.status)
				}
			}
		}},
		{ID: "modern.header-param-missing", needs: needs{era: "modern", transport: "http", call: true}, run: func(t *T) {
			c, tool, body, name, value := paramHeaderCall(t, false)
			mismatch(t, t.httpSendQuiet(c, httpReq{body: body, header: http.Header{name: {""}}}, paramCallID,
				fmt.Sprintf("POST tools/call of %q without %s (the argument is %q)", tool, name, value)))
		}},
		{ID: "modern.header-param-numeric", needs: needs{era: "modern", transport: "http", call: true}, run: func(t *T) {
			c, tool, body, name, value := paramHeaderCall(t, true)
			x := t.httpSend(c, httpReq{body: body, header: http.Header{name: {value + ".0"}}}, paramCallID,
				fmt.Sprintf("POST tools/call of %q with %s: %s.0 (the argument is %s)", tool, name, value, value))
			t.failIf(mismatched(x), "%s.0 was refused as unlike the argument %s: the integer was compared as text", value, value)
		}},
		{ID: "modern.header-param-invalid", needs: needs{era: "modern", transport: "http", call: true}, run: func(t *T) {
			c, tool, body, name, value := paramHeaderCall(t, false)
			text, _ := mcp.DecodeHeaderValue(value)
			t.skipIf(strings.ContainsFunc(text, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }), "the argument %s mirrors holds a control character, which no header can carry as it is", name)
			mismatch(t, t.httpSendQuiet(c, httpReq{body: body, header: http.Header{name: {text + "\u00e9"}}}, paramCallID,
				fmt.Sprintf("POST tools/call of %q with %s: %s followed by a raw é, which a header carries in Base64 alone (the argument is %q)", tool, name, text, text)))
		}},
		// This check holds a named tool's call that does not give (or
		// gives as null) an argument a header mirrors, which the client sends
		// without that header, to be served: the server must not expect it.
		// The call judged is the run's own, made once (callOnce): none more.
		{ID: "modern.header-param-absent", needs: needs{era: "modern", transport: "http", call: true}, run: func(t *T) {
			judged := false
			for i, call := range t.r.opts.Calls {
				headers, _ := mcp.ParamHeaders(member(t.calledTool(call.Tool), "inputSchema"))
				params, _ := t.r.callParams(t, i, nil)
				given := func(ph mcp.ParamHeader) bool {
					v := ph.Argument(member(params, "arguments"))
					return len(v) > 0 && string(v) != "null"
				}
				for _, ph := range headers {
					if given(ph) {
						continue
					}
					judged = true
					// With another mirrored argument given, the refusal must name this header to be its.
					others := slices.ContainsFunc(headers, given)
					if rec := t.r.callOnce(t, i); rec.refused != nil && rec.refused.Code == mcp.CodeHeaderMismatch &&
						(!others || strings.Contains(strings.ToLower(errText(rec.refused)), strings.ToLower("mcp-param-"+ph.Name()))) {
						t.FailExchange(rec.sent+", without Mcp-Param-"+ph.Name(), errText(rec.refused), "a call that does not give the argument %s was refused for the header that mirrors it", strings.Join(ph.Path(), "."))
					}
				}
			}
			t.skipIf(!judged, "every tool named with --call is given each argument a header mirrors (x-mcp-header)")
		}},
		// This check judges a refusal (-32021) of a request that needs a
		// capability the client did not declare: a named tool's call, else (of a
		// server that declares the tasks extension) tasks/get. It lists what the
		// client lacks, and over HTTP comes with 400. A named tool's call
		// refused with another code, which a client that declares the
		// capabilities is asked for one of (input_required), was refused for
		// the one it lacks.
		{ID: "modern.capability-status", needs: needs{era: "modern"}, run: func(t *T) {
			var m mcp.Message
			var x *exchange
			for _, i := range t.r.untasked(t) { // a named tool's call refused -32021 (one that requires a task is the tasks checks')
				rec := t.r.callOnce(t, i)
				if rec.refused != nil {
					if _, asked := askedOn(t, i, "needed"); asked != "" {
						t.FailExchange(rec.sent+", from a client that declares no capability", errText(rec.refused), "refused with %d, not -32021 (MissingRequiredClientCapabilityError), though the same call from a client that declares %s is asked for %s (input_required)", rec.refused.Code, clientCapabilities[asked], asked)
					}
				}
				if m.Error == nil && rec.needed.Error != nil {
					t.Sent(rec.sent + ", from a client that declares no capability")
					m, x = rec.needed, rec.neededX
				}
			}
			if m.Error == nil {
				t.skipIf(!t.r.facts.declares("tasks"), "no named tool's call was refused -32021, and the server declares no extension the check knows a request of that needs a client capability (%s)", mcp.TasksExtension)
				if m, x = t.ask(t.connWith(connOptions{era: "modern"}), "POST tasks/get of "+noTask+", from a client that does not declare the tasks extension", "tasks/get", mcp.TaskParams(noTask)); m.Error == nil || m.Error.Code != mcp.CodeMissingRequiredClientCapabilities {
					t.Skip("tasks/get was not refused -32021 (tasks.ext-gated judges what it was answered)")
				}
			}
			wantStatus(t, x, http.StatusBadRequest) // over HTTP
			t.Got(errText(m.Error))
			var d struct {
				Required map[string]json.RawMessage `json:"requiredCapabilities"`
			}
			t.failIf(json.Unmarshal(m.Error.Data, &d) != nil || len(d.Required) == 0, "the error's data lists no requiredCapabilities")
		}},
		// This check opens a subscription to one kind of news, the first the
		// server declares, and holds what its stream carries in the moment after
		// its acknowledgement to what was asked. Log messages are
		// modern.log-unasked's; a notifications/cancelled of the subscription
		// ends it, as the server may.
		{ID: "modern.listen-asked", needs: needs{era: "modern"}, run: func(t *T) {
			filter, asked, method, uris := map[string]any{}, "", "", []string(nil)
			for _, k := range listenKinds {
				if asked == "" && t.r.facts.declares(k.capability) {
					filter, asked, method = map[string]any{k.key: true}, k.key, k.method
				}
			}
			if asked == "" {
				if uris = subscribable(t); uris == nil {
					t.Skip("the server declares no listChanged capability or resources.subscribe to listen for")
				}
				uris = uris[:1] // the others listed are not asked for: their news is what was not asked
				filter, asked, method = map[string]any{"resourceSubscriptions": uris}, "the updates of "+strings.Join(uris, ", "), "notifications/resources/updated"
			}
			params, _ := json.Marshal(map[string]any{"notifications": filter})
			t.Sent("subscriptions/listen " + string(params))
			first, rest, ok := listenOpen(t, t.fresh(connOptions{era: "modern"}), params)
			t.skipIf(!ok || first.msg.Method != "notifications/subscriptions/acknowledged", "the subscription was not acknowledged (modern.listen says how)")
			for _, s := range rest {
				if got, _ := str(member(s.msg.Params, "uri")); s.msg.Method != "notifications/message" && s.msg.Method != "notifications/cancelled" && (s.msg.Method != method || uris != nil && !slices.Contains(uris, got)) {
					t.FailGot(s.raw, "the subscription, which asked for %s alone, carried %s", asked, strings.TrimSpace(s.msg.Method+" "+got))
				}
			}
			t.Note("%d notifications of the subscription in the %s after its acknowledgement", len(rest), listenQuiet)
		}},
		{ID: "utilities.log-level", needs: needs{era: "legacy", capability: "logging"}, run: logLevel},
		{ID: "modern.log-level", needs: needs{era: "modern", capability: "logging"}, run: logLevel},
		{ID: "http.stream-related", needs: needs{era: "legacy", transport: "http"}, run: streamRelated},
		{ID: "modern.stream-related", needs: needs{era: "modern", transport: "http"}, run: streamRelated},
		{ID: "modern.sse-unbuffered", needs: needs{era: "modern", transport: "http"}, run: func(t *T) { // a subscription's answer is an event stream; the watch sees every other
			listenOpen(t, t.fresh(connOptions{era: "modern"}), json.RawMessage(`{"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}}`))
		},
			watch: spotSaid(func(_ *watchCtx, s seen) bool { return s.buffered != "" }, func(s seen) string {
				return "the event stream answering " + s.buffered + " came without X-Accel-Buffering: no"
			})},
	}
}

// probeAndList are the methods of a request every server answers on c
// and of the first list it declares.
func probeAndList(t *T, c *conn) []string {
	if lists := t.r.facts.lists(); len(lists) > 0 {
		return []string{t.r.probeMethod(c.era), lists[0].Method}
	}
	return []string{t.r.probeMethod(c.era)}
}

// streamRelated sends a request and a list's (of a session of its own,
// where no other check subscribes to anything) and reads each answer
// that is an event stream: what it carries before the response relates
// to the request, and news of the server's lists or resources does not
// (its place is the GET stream, or a subscriptions/listen stream); in
// 2026-07-28, not on a named tool's call's stream either.
func streamRelated(t *T) {
	c := t.fresh(connOptions{})
	streams := 0
	for _, method := range probeAndList(t, c) {
		_, x := t.request(c, method, nil)
		if x == nil || !x.sse {
			continue
		}
		streams++
		for _, s := range x.msgs {
			if news(s) {
				t.FailExchange("POST "+method, s.raw, "the event stream of %s carried %s, which no request of this session asked for", method, s.msg.Method)
			}
		}
	}
	// In 2026-07-28 a list's news goes on a subscription's stream alone,
	// even news a call caused: a named tool's call is held to it too.
	for i, call := range t.r.opts.Calls {
		if t.r.facts.era == "modern" && !taskRequired(t.r.toolDef(t.ctx, call.Tool)) {
			if rec := t.r.callOnce(t, i); len(rec.news) > 0 {
				t.FailExchange(rec.sent, rec.news[0].raw, "the event stream of the call of %s carried %s, which belongs on a subscriptions/listen stream", call.Tool, rec.news[0].msg.Method)
			}
		}
	}
	t.noteIf(streams == 0, "every request was answered as JSON, which carries the response alone")
}

// news says s is a list's or a resource's news: what a subscription
// carries, no request's.
func news(s seen) bool {
	_, changed := mcp.ListChanged(s.msg.Method)
	return s.bad == "" && s.msg.IsNotification() && (changed || s.msg.Method == "notifications/resources/updated")
}

// paramCallID is the id of the tool calls that try an Mcp-Param header.
var paramCallID = json.RawMessage(`"mcpv-check-param"`)

// paramHeaderCall is the first call named with --call that gives an
// argument a header mirrors (x-mcp-header), the first such argument in
// the schema's order, and with integer the first that is a JSON integer
// (a string of digits is compared as text): a connection of the era, the
// tool, the call's body, and the header's name and value; t is skipped
// when no call gives one.
func paramHeaderCall(t *T, integer bool) (c *conn, tool string, body []byte, name, value string) {
	for i, call := range t.r.opts.Calls {
		headers, _ := mcp.ParamHeaders(member(t.calledTool(call.Tool), "inputSchema"))
		if len(headers) == 0 {
			continue
		}
		c := t.connWith(connOptions{era: "modern"})
		params, _ := t.r.callParams(t, i, paramCallID)
		body, _ := mcp.EncodeRequest(paramCallID, "tools/call", c.stamp(params))
		for _, ph := range headers {
			if _, err := strconv.ParseInt(string(ph.Argument(member(params, "arguments"))), 10, 64); integer && err != nil {
				continue
			}
			h := http.Header{}
			mcp.SetParamHeaders(h, []mcp.ParamHeader{ph}, body)
			for k := range h {
				return c, call.Tool, body, k, h.Get(k)
			}
		}
	}
	t.skipIf(integer, "no argument of the tools named with --call that a header mirrors (x-mcp-header) is an integer")
	t.Skip("none of the tools named with --call has an argument mirrored in a header (x-mcp-header)")
	return
}

// listenKinds are the lists' news a subscription may ask for: the
// capability that declares it, the filter's key, the notification.
var listenKinds = []struct{ capability, key, method string }{
	{"tools.listChanged", "toolsListChanged", "notifications/tools/list_changed"},
	{"prompts.listChanged", "promptsListChanged", "notifications/prompts/list_changed"},
	{"resources.listChanged", "resourcesListChanged", "notifications/resources/list_changed"},
}

// listenQuiet is how long a subscription's stream is read past its
// first message: what a server sends of its own accord comes at once.
const listenQuiet = 300 * time.Millisecond

// subscribable are the URIs of the first resources listed (16 at most),
// where the server declares resources.subscribe, or none: each, not the
// first alone, since news comes of a resource that changes, which the
// first may never do.
func subscribable(t *T) (uris []string) {
	if t.r.facts.declares("resources.subscribe") {
		items, _ := t.r.facts.items(t.ctx, "resources/list") // a listing that broke is lists.shape's
		for _, r := range items {
			if u, _ := str(member(r, "uri")); u != "" && len(uris) < 16 {
				uris = append(uris, u)
			}
		}
	}
	return uris
}

// logLevels are the log levels, least severe first (RFC 5424's, as the
// logging page has them).
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// logLevel asks, on a session of its own, for log messages of level
// error and above (logging/setLevel; in 2026-07-28 each request's _meta,
// server/utilities/logging#per-request-log-level), then sends a request
// and a list's: no log message below error comes with their answers.
func logLevel(t *T) {
	c := t.fresh(connOptions{era: t.check.needs.era, logLevel: "error"})
	asked := `each request's _meta {"` + mcp.MetaLogLevel + `":"error"}`
	if c.era == "legacy" {
		asked = `logging/setLevel {"level":"error"}`
		if m, _ := t.ask(c, asked, "logging/setLevel", json.RawMessage(`{"level":"error"}`)); m.Error != nil {
			t.Skip("logging/setLevel was refused: %s", errText(m.Error))
		}
	}
	mark := c.mark()
	methods := probeAndList(t, c)
	for _, method := range methods {
		t.request(c, method, nil)
	}
	for _, s := range c.since(mark) {
		level, _ := str(member(s.msg.Params, "level"))
		if s.msg.Method == "notifications/message" && slices.Index(logLevels, level) >= 0 && slices.Index(logLevels, level) < slices.Index(logLevels, "error") {
			t.FailExchange(fmt.Sprintf("%s, then %v", asked, methods), s.raw, "a log message of level %s, below the error asked for", level)
		}
	}
}
