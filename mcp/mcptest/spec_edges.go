package mcptest

// The edges a spec may name (Spec.Edges): what a correct server may do
// closest to a fault, each legal by the text of the requirement it is
// near. A checker that fails a server for one of them holds the server to
// more than the specification says.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Edges are what Spec.Edges may name.
var Edges = []string{
	"extra-members",                 // every result but ping's carries a member no schema names
	"meta",                          // every result and notification carries _meta, its keys prefixed and not
	"error-data",                    // every error carries data
	"error-code-fraction",           // every error's code written with a fraction of zero (-32601.0): the schema's integer all the same
	"input-error-bare",              // arguments a tool's inputSchema refuses answered isError with no content at all
	"missing-version-as-2025-03-26", // (modern, HTTP) a request without MCP-Protocol-Version read as 2025-03-26, which has no server/discover: -32601
	"notify-first",                  // a progress notification for the request's token (when it has one) before every response; in the initialize era, with logging declared, a log message too
	"server-pings",                  // (initialize era) a ping of the server's after every answer, under a string id and an integer id past 2^64 by turns
	"timed-pings",                   // (initialize era, stdio) a ping of the server's as initialized comes and every timedPing after, each under a new id
	"crlf",                          // (stdio) every line ends with CR LF
	"ascii-json",                    // every message written in ASCII: other characters escaped \uXXXX, and "/" as "\/" (as Python's json.dumps and PHP's json_encode write)
	"progress-float",                // the slow tool's progress in fractions, with no total
	"cancel-crossing",               // a cancelled slow call sends the rest of its progress and its result at once, as a call that ended as its cancellation came (a crossing, on the wire)
	"stray-response-answered",       // a response that answers no request of the server's is answered -32601 under its id
	"sse-priming",                   // (HTTP, 2026-07-28 era) every event stream opens with a priming event: an id, a retry and empty data, as the initialize era's does
	"sse-polling",                   // (HTTP, initialize era) every event stream but initialize's polled: a priming event, the connection closed, the rest sent to GETs with Last-Event-ID, each closed with a retry until the response (http.go, "polling")
	"sse-resumable",                 // (HTTP, initialize era) every event stream but initialize's kept for GETs with Last-Event-ID, as sse-polling's are, and written as it comes until the response (http.go, "polling")
	"session-every-response",        // (HTTP, initialize era) the session's id on every response
	"json-charset",                  // (HTTP) JSON answered as application/json; charset=utf-8
	"no-sessions",                   // (HTTP, initialize era) no session: none given, none asked for
	"delete-405",                    // (HTTP, initialize era) DELETE answered 405: a client may not end its session
	"batch-reversed",                // (2025-03-26) a batch's responses in the reverse order of its requests
	"listen-notifies",               // (modern) subscriptions/listen acknowledged, then at once a tools/list_changed on the stream
	"dual-era",                      // (modern) a server of both eras: initialize served, and a client that sent it served as of the initialize era from then on
	"listen-cancelled",              // (modern, stdio) subscriptions/listen acknowledged, then at once torn down with a notifications/cancelled naming it, as 2026-07-28 has a server do
	"form-checked",                  // (initialize era, stdio) every tools/call, of a client that declared elicitation, asks a form of a name and an age first, and answers an accepted one whose values do not fit it with an error result
	"asks-edge",                     // with the asks fault: the form without mode, the URL elicitation's url plain HTTP to loopback, the sampling message's content an array, to a client that declares sampling.tools a tool's result, roots/list cancelled
	"param-headers",                 // one more tool whose x-mcp-header annotations keep every constraint closest to breaking one: nested properties, a nullable integer, names that differ by more than case, a property named x-mcp-header (paramHeaderTools)
	// Legal only in the revisions before the one a check reads first:
	"origin-refused-400",     // (HTTP) a foreign Origin refused with 400, not 403, as before 2025-11-25
	"version-header-ignored", // (HTTP) MCP-Protocol-Version not read, as in 2025-03-26, which has none
}

func (s *Spec) edge(name string) bool { return slices.Contains(s.Edges, name) }

// edgeMeta is the _meta the meta edge adds: a prefixed key, a plain one,
// and one of the protocol's own prefix that no revision defines.
var edgeMeta = map[string]json.RawMessage{
	"com.example.mcpv/trace":         json.RawMessage(`"t-1"`),
	"note":                           json.RawMessage(`{"a":[1,2]}`),
	"io.modelcontextprotocol/future": json.RawMessage(`true`),
}

// edgeResult is a result's members through the edges that add to it.
func (s *Spec) edgeResult(method string, r map[string]json.RawMessage) {
	if s.edge("extra-members") && method != "ping" {
		r["mcpv-extra"] = json.RawMessage(`{"kept":[true,null,1.5e3]}`)
	}
	if s.edge("meta") {
		r["_meta"] = withEdgeMeta(r["_meta"])
	}
}

// withEdgeMeta is a _meta object with edgeMeta's keys added.
func withEdgeMeta(meta json.RawMessage) json.RawMessage {
	m, ok := object(meta)
	if !ok { // a result without _meta (or with one that is no object) gets one
		m = map[string]json.RawMessage{}
	}
	for k, v := range edgeMeta {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	return mustJSON(m)
}

// noteWithMeta is line with _meta in its params, when it is a
// notification whose params are an object (or absent); its members stay
// in their order.
func noteWithMeta(line string) string {
	b := []byte(line)
	if !json.Valid(b) || !rawjson.IsObject(b) || rawjson.Member(b, "method") == nil || rawjson.Member(b, "id") != nil {
		return line
	}
	p := rawjson.Member(b, "params")
	if p == nil {
		p = []byte("{}")
	} else if !rawjson.IsObject(p) {
		return line
	}
	return string(rawjson.With(b, "params", rawjson.With(p, "_meta", withEdgeMeta(rawjson.Member(p, "_meta")))))
}

// before sends what the notify-first edge sends ahead of a response: a
// log message of level debug only while logging/setLevel (in the modern
// era the request's _meta) asked for none above it.
func (s *Spec) before(st *specState, m msg, out specOut) {
	if !s.edge("notify-first") || m.Method == "initialize" || m.Method == "server/discover" {
		return
	}
	if token := member(member(m.Params, "_meta"), "progressToken"); token != nil {
		out.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":0,"message":"starting"}}`, token))
	}
	debug := locked(&st.mu, func() bool { return slices.Index(logLevels, st.logLevel) <= 0 })
	if asked, _ := stringMember(member(m.Params, "_meta"), "io.modelcontextprotocol/logLevel"); s.Era == "modern" { // the level the request asks, none unasked
		debug = asked == "debug" || asked != "" && s.has("log-level-ignored")
	}
	if (s.declared("logging") != nil || s.has("log-asked-undeclared")) && debug {
		out.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","logger":"spec","data":{"answering":` + mustString(m.Method) + `}}}`)
	}
}

// serverPing is the ping the server-pings edge sends after an answer:
// under a string id and an integer past 2^64 by turns, each new.
func serverPing() string {
	n := srvRequests.Add(1)
	id := pick(n%2 == 0, fmt.Sprintf("1844674407370955%d", 1616+n), fmt.Sprintf(`"srv-ping-%d"`, n))
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
}

// progressStep is the slow tool's i-th progress notification's params
// after its token: whole steps of a total, or with the progress-float
// edge fractions and no total.
func (s *Spec) progressStep(i int) string {
	switch {
	case s.edge("progress-float"):
		return fmt.Sprintf(`"progress":%s,"message":"step %d"`, strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", float64(i)/4), "0"), "."), i)
	case s.has("progress-string"):
		return fmt.Sprintf(`"progress":"%d","total":%d`, i, slowSteps)
	case s.has("total-string"):
		return fmt.Sprintf(`"progress":%d,"total":"%d"`, i, slowSteps)
	}
	return fmt.Sprintf(`"progress":%d,"total":%d`, i, slowSteps)
}

// asciiJSON is a line of JSON with every character past ASCII escaped
// \uXXXX (a surrogate pair past the basic plane) and every "/" as "\/":
// the same JSON, as a JSON encoder that keeps to ASCII writes it.
func asciiJSON(line string) string {
	var b strings.Builder
	for _, r := range line {
		switch {
		case r == '/':
			b.WriteString(`\/`)
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// nestedProperty is a form's properties whose one is an object of its
// own, which a form's flat schema has not.
const nestedProperty = `{"who":{"type":"object","properties":{"name":{"type":"string"}}}}`

// asks sends, with the asks fault, as a tools/call or prompts/get is
// answered in the initialize era (before its response), what a server
// may ask of a client that declared it (caps): a form elicitation, a URL
// elicitation and its completion, a sampling request and roots/list, as
// the faults named asks-* break them.
func (s *Spec) asks(m msg, caps json.RawMessage, out specOut) {
	if s.Era == "modern" || m.Method != "tools/call" && m.Method != "prompts/get" || !s.has("asks") {
		return
	}
	n := srvRequests.Add(1) * 10000 // the asks' progressTokens: numbers from here, each new
	ask := func(method, params string) (id string) {
		id = srvID("srv-asks")
		if s.has("asks-id-reuse") {
			id = "srv-asks-again"
		}
		if method != "ping" { // each with a progressToken of its own, or all with one (asks-progress-reuse)
			n++
			tok := fmt.Sprintf(`"%d"`, n)
			switch {
			case s.has("asks-progress-reuse"):
				tok = `"srv-progress"`
			case s.edge("asks-edge") && n%2 == 0: // "1" and 1 are two tokens
				tok = fmt.Sprint(n - 1)
			}
			params = `{"_meta":{"progressToken":` + tok + `}` + pick(params == "{}", "", ",") + params[1:]
		}
		out.send(`{"jsonrpc":"2.0","id":"` + id + `","method":"` + method + `","params":` + params + `}`)
		return id
	}
	cancel := func(id string) {
		out.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + id + `"}}`)
	}
	if el := member(caps, "elicitation"); el != nil {
		props := `{"name":{"type":"string","title":"Name"},"age":{"type":"integer"},"colours":{"type":"array","items":{"type":"string","enum":["red","blue"]}}}`
		switch {
		case s.has("asks-nested"):
			props = nestedProperty
		case s.has("asks-password"):
			props = `{"name":{"type":"string"},"password":{"type":"string","title":"Password"}}`
		case s.has("asks-huge-schema"):
			var b strings.Builder
			for i := range 20000 {
				fmt.Fprintf(&b, `"p%d":{"type":"string"},`, i)
			}
			props = `{` + b.String() + `"deep":` + strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000) + `}`
		}
		form := `{"mode":"form","message":"Who are you?","requestedSchema":{"type":"object","properties":` + props + `}}`
		if s.edge("asks-edge") { // no mode, words near a password's or a token's, web addresses offered as values
			form = `{"message":"Who are you?","requestedSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":` + strings.Replace(props, `{`, `{"secretary":{"type":"string"},"passportCountry":{"type":"string"},"max_tokens":{"type":"integer","title":"Token budget"},`+
				`"site":{"type":"string","format":"uri","description":"Your site, as https://example.com","default":"https://example.com"},"api":{"type":"string","enum":["https://eu.example.com","https://us.example.com"]},`, 1) + `}}`
		}
		if s.has("asks-no-message") {
			form = `{"requestedSchema":{"type":"object","properties":` + props + `}}`
		}
		if s.has("asks-form-link") {
			form = `{"mode":"form","message":"Who are you? Sign up at https://example.com/signup first.","requestedSchema":{"type":"object","properties":` + props + `}}`
		}
		for range pick(s.has("asks-loop"), 2000, 1) {
			ask("elicitation/create", form)
		}
		if member(el, "url") != nil || s.has("asks-url-always") {
			id := srvID("el")
			url := "https://example.com/consent"
			for _, u := range [][2]string{{"asks-bad-url", "https://exa mple.com/%zz"}, {"asks-edge", "http://127.0.0.1:8080/consent?page_token=p2&lang=en#step=2"}, // a page token and a step are not the user's
				{"asks-url-private", "https://example.com/consent?user=ada%40example.com"}, {"asks-js-url", "javascript:alert(1)"}} { // the last given wins
				if s.has(u[0]) || s.edge(u[0]) {
					url = u[1]
				}
			}
			params := map[string]string{"mode": "url", "message": "Consent, please.", "url": url, "elicitationId": id}
			if s.has("asks-no-id") {
				delete(params, "elicitationId")
			}
			b, _ := json.Marshal(params)
			ask("elicitation/create", string(b))
			if s.has("asks-complete-unknown") {
				id = "el-never-sent"
			}
			if !s.has("asks-no-id") { // which has no id to complete
				out.send(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"` + id + `"}}`)
			}
		}
	}
	for range pick(s.has("asks-ping-storm"), 12, 1) { // a ping is health; a dozen in a row is a storm
		ask("ping", `{}`)
	}
	if member(caps, "sampling") != nil {
		msgs := pick(s.edge("asks-edge"), `[{"role":"user","content":[{"type":"text","text":"Sum 2 and 2."}]}]`, // asks-edge: the content an array
			`[{"role":"user","content":{"type":"text","text":"Sum 2 and 2."}}]`)
		more := ""
		switch tools := member(member(caps, "sampling"), "tools") != nil; {
		case tools && (s.edge("asks-edge") || s.has("asks-sampling-output")): // a tool's result, of its outputSchema or not
			sum := pick(s.has("asks-sampling-output"), `"four"`, "4")
			more = `,"tools":[{"name":"add","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}}]`
			msgs = `[{"role":"user","content":{"type":"text","text":"Sum 2 and 2."}},{"role":"assistant","content":[{"type":"tool_use","id":"u1","name":"add","input":{"a":2,"b":2}}]},` +
				`{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[{"type":"text","text":"4"}],"structuredContent":{"sum":` + sum + `}}]}]`
		case s.has("asks-sampling-tools"):
			more = `,"tools":[{"name":"add","inputSchema":{"type":"object"}}]`
		case s.has("asks-sampling-context"):
			more = `,"includeContext":"thisServer"`
		case s.has("asks-sampling-task") || member(member(member(member(caps, "tasks"), "requests"), "sampling"), "createMessage") != nil: // to a client that runs it as a task, as it may
			more = `,"task":{"ttl":60000}`
		case s.has("asks-sampling-mixed"):
			msgs = `[{"role":"user","content":{"type":"text","text":"Sum."}},{"role":"assistant","content":[{"type":"tool_use","id":"u1","name":"add","input":{}}]},{"role":"user","content":[{"type":"tool_result","toolUseId":"u1","content":[]},{"type":"text","text":"and?"}]}]`
		case s.has("asks-sampling-orphan"):
			msgs = `[{"role":"user","content":{"type":"text","text":"Sum."}},{"role":"assistant","content":{"type":"text","text":"4"}},{"role":"user","content":[{"type":"tool_result","toolUseId":"u9","content":[]}]}]`
		}
		if id := ask("sampling/createMessage", `{"messages":`+msgs+`,"maxTokens":1000000000`+more+`}`); s.has("asks-task-cancelled") && strings.Contains(more, "task") {
			cancel(id)
		}
	}
	if member(caps, "roots") != nil {
		if id := ask("roots/list", `{}`); s.edge("asks-edge") { // a request the client runs as no task, cancelled as any may be
			cancel(id)
		}
	}
}
