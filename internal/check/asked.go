package check

// What the server asks of its client: a connection that declares
// elicitation (form and URL), sampling and roots gets the prompts and
// calls the --call tools, answer.go answering what the server asks; the
// watches judge every request of the server's and every input request
// of an input_required result against what its connection declared.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/mcpv/mcpv/internal/jsonschema"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// serverAsk is one request of the server's: a request on the wire, or an
// input request of an input_required result.
type serverAsk struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// asksOf are the server's requests s holds, in the order of their keys.
func asksOf(s seen) []serverAsk {
	if s.bad == "" && s.msg.IsRequest() {
		return []serverAsk{{s.msg.Method, s.msg.Params}}
	}
	var reqs map[string]serverAsk
	if s.bad == "" && inputRequired(s) {
		reqs = inputRequests(s.msg.Result)
	}
	var out []serverAsk
	for _, k := range slices.Sorted(maps.Keys(reqs)) {
		out = append(out, reqs[k])
	}
	return out
}

// inputRequests are an input_required result's requests, by key.
func inputRequests(result json.RawMessage) (reqs map[string]serverAsk) {
	rawjson.DecodeLoose(member(result, "inputRequests"), &reqs) // judged by asks.elicitation's schema: none to answer here
	return reqs
}

// askWatch is a watch over the server's requests of method ("": of any):
// problem says how one breaks the check's rule, given what its
// connection declared (nil: not known, the main session's) and its era.
func askWatch(method string, problem func(p, caps json.RawMessage, era string) string) func(*watchCtx, seen) string {
	return func(_ *watchCtx, s seen) string {
		for _, a := range asksOf(s) {
			if why := problem(a.Params, json.RawMessage(s.caps), s.era); (method == "" || a.Method == method) && why != "" {
				return a.Method + ": " + why
			}
		}
		return ""
	}
}

// elicitMode is an elicitation's mode: "form" when it has none.
func elicitMode(p json.RawMessage) string {
	m, _ := str(member(p, "mode"))
	return cmp.Or(m, "form")
}

// elicitationProblem says how an elicitation lacks what its mode must
// include: a message; a form's flat requestedSchema of primitive
// properties; a URL's url, and (the initialize era) its elicitationId.
func elicitationProblem(p, _ json.RawMessage, era string) string {
	if _, ok := str(member(p, "message")); !ok {
		return "no message (a string)"
	}
	switch mode := elicitMode(p); mode {
	case "form":
		rs := member(p, "requestedSchema")
		if t, _ := str(member(rs, "type")); t != "object" {
			return "a form whose requestedSchema is no schema of type object"
		}
		var props map[string]json.RawMessage
		if p := malformed(member(rs, "properties"), &props, "the form's properties"); p != "" {
			return p
		}
		for name, prop := range props {
			t, _ := str(member(prop, "type"))
			items := member(prop, "items")
			flat := slices.Contains([]string{"string", "number", "integer", "boolean"}, t) && member(prop, "properties") == nil ||
				t == "array" && (member(items, "enum") != nil || member(items, "anyOf") != nil)
			if !flat {
				return fmt.Sprintf("the form's property %q is %s: a form is a flat object of primitive properties", clip(name, 60), clip(string(prop), 120))
			}
		}
	case "url":
		if _, ok := str(member(p, "url")); !ok {
			return "a URL elicitation without url (a string)"
		}
		if _, ok := str(member(p, "elicitationId")); !ok && era != "modern" {
			return "a URL elicitation without elicitationId (a string)"
		}
	default:
		return fmt.Sprintf("mode %q, neither form nor url", clip(mode, 40))
	}
	return ""
}

// sensitive names what a form must not ask for (passwords, API keys,
// access tokens, payment credentials): a word of a property's name or
// title, or two words written together ("API key", "apiKey": apikey);
// "token" counts as the last word ("githubToken", not "token budget"; endsName), it and "pwd" unless a word of notCredential
// says what else they are ("pageToken", "pwd" titled "Working directory"), and none before a word of aboutSecret.
var sensitive, aboutSecret, notCredential = []string{"password", "passwd", "pwd", "passphrase", "passcode", "apikey", "accesstoken", "authtoken", "bearertoken",
	"refreshtoken", "secret", "privatekey", "creditcard", "cardnumber", "cvv", "cvv2", "cvc", "token"},
	[]string{"hint", "path", "file", "name", "id", "length", "policy", "strength", "expiry", "expires", "type", "format", "rules"},
	[]string{"page", "next", "previous", "prev", "continuation", "cursor", "base", "quote", "symbol", "address", "contract", "mint", "amount", "swap",
		"count", "limit", "budget", "usage", "directory", "folder", "working", "current"}

// endsName reports whether a word of sensitive or headerSecrets, followed
// by after, says what a property holds: some do only as the last word of
// its name or title, or before a word of their own ("email address"), as
// "token budget", "emailSubject" and "phoneModel" hold something else. A
// switch, not a table: no allocation when the program starts.
func endsName(word, after string) bool {
	switch word {
	case "token":
		return after == ""
	case "email":
		return slices.Contains([]string{"", "address", "addresses", "addr", "to", "from", "cc", "bcc"}, after)
	case "phone", "passport":
		return slices.Contains([]string{"", "number", "numbers", "num", "no", "nr", "e164"}, after)
	}
	return true
}

// sensitiveProblem is a form that asks for sensitive information, which
// only URL mode may ask for.
func sensitiveProblem(p, _ json.RawMessage, _ string) string {
	var props map[string]json.RawMessage
	if elicitMode(p) != "form" || json.Unmarshal(member(member(p, "requestedSchema"), "properties"), &props) != nil {
		return "" // its shape is asks.elicitation's
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if s := sensitiveField(name, props[name], sensitive); s != "" {
			return fmt.Sprintf("a form asks for %q (%s): sensitive information is asked for in URL mode alone", clip(name, 60), s)
		}
	}
	return ""
}

// sensitiveField is the word of words (sensitive's, or another list) that
// a string property of a schema named name is for, by its name and its
// title, or "".
func sensitiveField(name string, prop json.RawMessage, words []string) string {
	wordsOf := func(s string) []string {
		var b strings.Builder
		lower := false
		for _, r := range s {
			if lower && unicode.IsUpper(r) {
				b.WriteByte(' ') // camelCase: apiKey is api key
			}
			lower = unicode.IsLower(r)
			b.WriteRune(unicode.ToLower(r))
		}
		return append(strings.FieldsFunc(b.String(), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), "") // "" ends them
	}
	title, _ := str(member(prop, "title"))
	if typ, _ := str(member(prop, "type")); typ != "string" || member(prop, "enum") != nil {
		return "" // a flag or a choice holds no secret
	}
	all := append(wordsOf(name), wordsOf(title)...)
	for i, w := range all[:len(all)-1] {
		for n, s := range []string{w, w + all[i+1]} { // one word, or two
			after := append(all[i+1+n:], "")[0]
			other := (s == "token" || s == "pwd") && slices.ContainsFunc(all, func(w string) bool { return slices.Contains(notCredential, w) })
			if slices.Contains(words, s) && !slices.Contains(aboutSecret, after) && endsName(s, after) && !other {
				return s
			}
		}
	}
	return ""
}

// modeProblem is an elicitation of a mode its connection did not declare
// (an elicitation capability of neither mode declares form).
func modeProblem(p, caps json.RawMessage, _ string) string {
	declared := member(caps, "elicitation")
	if declared == nil {
		return "" // lifecycle.client-capabilities' and modern.input-capabilities'
	}
	mode := elicitMode(p)
	if member(declared, mode) != nil || mode == "form" && member(declared, "url") == nil {
		return ""
	}
	return fmt.Sprintf("mode %q, which the client did not declare (it declares elicitation %s)", clip(mode, 40), clip(string(declared), 80))
}

// samplingProblem says how a sampling request's messages break the rules
// of roles, tool results (each of a tool use made before) and their
// balance with tool uses.
func samplingProblem(p, _ json.RawMessage, _ string) string {
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if p := malformed(member(p, "messages"), &msgs, "the messages"); p != "" {
		return p
	}
	var pending, made []string // the tool uses of the message before, and of every message before
	for i, m := range msgs {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("message %d has role %q, neither user nor assistant", i, clip(m.Role, 40))
		}
		blocks := blocksOf(m.Content)
		if len(blocks) == 0 {
			return fmt.Sprintf("message %d has no content", i)
		}
		results, uses := map[string]bool{}, []string(nil)
		for _, b := range blocks {
			switch t, _ := str(member(b, "type")); t {
			case "tool_result":
				id, _ := str(member(b, "toolUseId"))
				if !slices.Contains(made, id) {
					return fmt.Sprintf("message %d holds a result of the tool use %q, which no message before made", i, clip(id, 40))
				}
				results[id] = true
			case "tool_use":
				uses = append(uses, str1(member(b, "id")))
			}
		}
		if len(results) > 0 && (m.Role != "user" || len(results) != len(blocks)) {
			return fmt.Sprintf("message %d holds tool results beside other content", i)
		}
		for _, id := range pending {
			if !results[id] {
				return fmt.Sprintf("message %d, after tool uses, has no result of the tool use %q", i, clip(id, 40))
			}
		}
		pending, made = uses, append(made, uses...)
	}
	return ""
}

// samplingDeclared says how a sampling request uses param (but as
// "none"), though the client did not declare key of sampling.
func samplingDeclared(key, param string) func(p, caps json.RawMessage, _ string) string {
	return func(p, caps json.RawMessage, _ string) string {
		s, v := member(caps, "sampling"), member(p, param)
		if s == nil || member(s, key) != nil || v == nil || string(v) == `"none"` {
			return ""
		}
		return fmt.Sprintf("a request with %s, though the client declared sampling %s", param, clip(string(s), 80))
	}
}

// maxPings pings in a row within pingWindow, each answered, are too
// many: a server that checks a connection's health needs one answer at a
// time, and a keep-alive of a second or more never sends them so close.
const maxPings, pingWindow = 10, 5 * time.Second

// maxAnswered bounds the server's requests a connection answers.
const maxAnswered = 256

// exerciseAsks gives the server occasions to ask, once a run, on a
// connection that declares what it may ask of.
func exerciseAsks(t *T) {
	defer func() { // said too when the exchanges end early (out of time)
		if n := t.r.unanswered.Load(); n > 0 {
			t.Note("the server asked %d requests more than mcpv check answers (%d a connection, %d waiting at once): those were left unanswered", n, maxAnswered, maxAnswers)
		}
	}()
	t.r.asksOnce.Do(func() { askOn(t, answering, "asks") })
}

// askOn gets, on a connection that declares caps, the server's prompts
// without required arguments and calls the tools named with --call (not
// those that require a task), then waits for what the server asked.
func askOn(t *T, caps, purpose string) {
	c := t.fresh(connOptions{capabilities: caps})
	if t.r.facts.declares("prompts") {
		names := promptsToGet(t.listed("prompts/list"))
		for _, name := range names[:min(len(names), maxReads)] {
			t.request(c, "prompts/get", promptParams(name, nil, nil))
		}
	}
	for i, call := range t.r.opts.Calls {
		params, _ := t.r.callParams(t, i, json.RawMessage(fmt.Sprintf(`"mcpv-check-progress-%s-%d"`, purpose, i)))
		switch {
		case taskRequired(t.r.toolDef(t.ctx, call.Tool)):
		case member(json.RawMessage(caps), "tasks") != nil:
			cancelAtTask(t, c, i, params)
		default:
			t.request(c, "tools/call", params)
		}
	}
	barrier(t, c)
}

// cancelAtTask calls a tool on c, which runs the server's requests as
// tasks, and cancels the call once the server has made one while it runs:
// a server that gives up what the call began gives up that task too, by
// tasks/cancel (utilities.cancel-task).
func cancelAtTask(t *T, c *conn, i int, params json.RawMessage) {
	id := json.RawMessage(fmt.Sprintf(`"mcpv-check-task-call-%d"`, i))
	msg, _ := mcp.EncodeRequest(id, "tools/call", c.stamp(params))
	ch := c.expect(id, "tools/call")
	defer c.unexpect(id)
	tasked := func() (n int) { withLock(&c.mu, func() { n = len(c.tasked.order) }); return n }
	before := tasked()    // the tasks an earlier call made are not this one's
	go c.send(t.ctx, msg) // a call cancelled at its task: over HTTP the POST lasts as the call does, and ends with the check's time at the latest
	for tasked() == before {
		select {
		case <-ch:
			return
		case <-t.ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case <-ch: // answered with the task made: nothing left to cancel
		return
	default:
	}
	t.must("notifications/cancelled", c.notify(t.ctx, "notifications/cancelled", json.RawMessage(fmt.Sprintf(`{"requestId":%s,"reason":"mcpv check"}`, id))))
}

// urlProblem says how a URL elicitation's url is no valid URL or, with
// https, not HTTPS (plain HTTP to loopback is development's).
func urlProblem(https bool) func(p, _ json.RawMessage, _ string) string {
	return func(p, _ json.RawMessage, _ string) string {
		raw, ok := str(member(p, "url"))
		if elicitMode(p) != "url" || !ok {
			return ""
		}
		u, err := url.Parse(raw)
		switch {
		case err == nil && (u.Scheme == "" || u.Opaque == "" && u.Host == "" && u.Scheme != "file"):
			err = errors.New("it names no scheme and host")
		case err != nil || !https || u.Scheme == "https":
		case u.Scheme != "http" || !loopback(u.Hostname()):
			return fmt.Sprintf("url %q is of scheme %s, not https", clip(raw, 120), clip(u.Scheme, 20))
		}
		if err != nil && !https {
			return fmt.Sprintf("url %q is no valid URL: %v", clip(raw, 120), err)
		}
		return ""
	}
}

// privateURLProblem is a URL elicitation's url that carries something
// about the user: credentials before its host, or a parameter of its query
// or fragment named for a credential or personal data (headerSecrets'
// words), or holding an email address. Said by name, never by value.
func privateURLProblem(p, _ json.RawMessage, _ string) string {
	raw, _ := str(member(p, "url"))
	u, err := url.Parse(raw)
	if elicitMode(p) != "url" || err != nil {
		return "" // asks.elicitation-url's
	}
	if u.User != nil {
		return "the url carries credentials before its host"
	}
	for _, part := range []string{u.RawQuery, u.Fragment} {
		params, _ := url.ParseQuery(part) // what parses is judged
		for _, k := range slices.Sorted(maps.Keys(params)) {
			if w := sensitiveField(k, json.RawMessage(`{"type":"string"}`), headerSecrets); w != "" && strings.Join(params[k], "") != "" {
				return fmt.Sprintf("the url's parameter %q carries a %s", clip(k, 60), w)
			}
			if slices.ContainsFunc(params[k], jsonschema.IsEmail) {
				return fmt.Sprintf("the url's parameter %q carries an email address", clip(k, 60))
			}
		}
	}
	return ""
}

// linkProblem is a form elicitation with a web address in a text
// written for the user to read (its message, a title, a description): a
// page to visit is URL mode's. A value the form offers or asks for (a
// default, a choice, an example, a property of format uri) is no link,
// nor are a schema's own members ($schema, $id) and _meta. Said by where
// it stands, never by the address, which may hold a secret.
func linkProblem(p, _ json.RawMessage, _ string) string {
	var v any
	if elicitMode(p) != "form" || json.Unmarshal(p, &v) != nil {
		return ""
	}
	return linkIn("message", v)
}

func linkIn(key string, v any) string {
	switch v := v.(type) {
	case string:
		if l := strings.ToLower(v); strings.Contains(l, "https://") || strings.Contains(l, "http://") {
			return fmt.Sprintf("the form's %s holds a web address to visit", clip(key, 60))
		}
	case []any:
		for _, e := range v {
			if why := linkIn(key, e); why != "" {
				return why
			}
		}
	case map[string]any:
		if f, _ := v["format"].(string); strings.HasPrefix(f, "uri") || strings.HasPrefix(f, "iri") {
			return "" // a field that asks for an address says so
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if strings.HasPrefix(k, "$") || slices.Contains([]string{"_meta", "default", "enum", "const", "examples", "mode"}, k) {
				continue
			}
			if why := linkIn(k, v[k]); why != "" {
				return why
			}
		}
	}
	return ""
}

// blocksOf are a sampling message's content blocks: an array of them, or
// one.
func blocksOf(content json.RawMessage) []json.RawMessage {
	var blocks []json.RawMessage
	if content != nil && (json.Unmarshal(content, &blocks) != nil || blocks == nil) {
		blocks = []json.RawMessage{content} // one block, not an array of them
	}
	return blocks
}

// samplingOutputProblem is a sampling request's tool result whose
// structuredContent does not conform to the outputSchema of its tool: the
// tool, among the request's tools, that the tool use it answers named.
func samplingOutputProblem(p, _ json.RawMessage, _ string) string {
	var msgs []struct {
		Content json.RawMessage `json:"content"`
	}
	var tools []json.RawMessage
	if json.Unmarshal(member(p, "messages"), &msgs) != nil || json.Unmarshal(member(p, "tools"), &tools) != nil {
		return "" // no tools, or messages of another shape (asks.sampling-messages')
	}
	used := map[string]json.RawMessage{} // a tool use's id: its tool
	for _, m := range msgs {
		for _, b := range blocksOf(m.Content) {
			switch t, _ := str(member(b, "type")); t {
			case "tool_use":
				name := str1(member(b, "name"))
				for _, tool := range tools {
					if str1(member(tool, "name")) == name {
						used[str1(member(b, "id"))] = tool
					}
				}
			case "tool_result":
				id, _ := str(member(b, "toolUseId"))
				if used[id] == nil || member(b, "structuredContent") == nil {
					continue
				}
				for _, f := range surface.CheckResult(context.Background(), used[id], b) {
					if f.Rule == surface.RuleStructuredResult && f.Severity == surface.SeverityError { // a broken schema is no fault of the result
						return fmt.Sprintf("the result of the tool use %q: %s", clip(id, 40), f.Message)
					}
				}
			}
		}
	}
	return ""
}

func askedChecks() []*Check {
	return []*Check{
		{ID: "asks.elicitation", run: exerciseAsks, watch: askWatch("elicitation/create", elicitationProblem)},
		{ID: "asks.elicitation-sensitive", run: exerciseAsks, watch: askWatch("elicitation/create", sensitiveProblem)},
		{ID: "asks.elicitation-mode", run: func(t *T) { askOn(t, `{"elicitation":{"form":{}}}`, "asks-form") }, watch: askWatch("elicitation/create", modeProblem)},
		{ID: "asks.elicitation-url", run: exerciseAsks, watch: askWatch("elicitation/create", urlProblem(false))},
		{ID: "asks.elicitation-https", run: exerciseAsks, watch: askWatch("elicitation/create", urlProblem(true))},
		{ID: "asks.elicitation-url-private", run: exerciseAsks, watch: askWatch("elicitation/create", privateURLProblem), private: true},
		{ID: "asks.elicitation-links", run: exerciseAsks, watch: askWatch("elicitation/create", linkProblem), private: true},
		{ID: "asks.elicitation-complete", needs: needs{era: "legacy"}, run: exerciseAsks, watch: spotSaid(func(_ *watchCtx, s seen) bool { return s.completeBad != "" }, func(s seen) string { return s.completeBad })},
		{ID: "asks.url-required", needs: needs{era: "legacy"}, run: exerciseAsks, watch: spot("a -32042 error whose data.elicitations are not URL elicitations, each with its elicitationId", func(_ *watchCtx, s seen) bool {
			return s.msg.Error != nil && s.msg.Error.Code == -32042 && !urlRequired(s.msg.Error.Data)
		})},
		{ID: "asks.sampling-messages", run: exerciseAsks, watch: askWatch("sampling/createMessage", samplingProblem)},
		{ID: "asks.sampling-tool-output", run: func(t *T) {
			exerciseAsks(t) // a server that asks no sampling there gets no call more
			if t.r.sampled.Load() {
				askOn(t, `{"sampling":{"tools":{}}}`, "asks-tools")
			}
		}, watch: askWatch("sampling/createMessage", samplingOutputProblem)},
		{ID: "asks.sampling-tools", run: exerciseAsks, watch: askWatch("sampling/createMessage", samplingDeclared("tools", "tools"))},
		{ID: "asks.sampling-context", run: exerciseAsks, watch: askWatch("sampling/createMessage", samplingDeclared("context", "includeContext"))},
		{ID: "utilities.ping-rate", needs: needs{era: "legacy"}, run: exerciseAsks, watch: spot(fmt.Sprintf("%d pings of the server's in a row within %s, each answered, with nothing else between", maxPings, pingWindow), func(_ *watchCtx, s seen) bool {
			return s.pingStorm
		})},
		// A request of the server's is active at least until its answer is
		// begun: one that comes before, with its progressToken, shares it.
		{ID: "asks.progress-token-unique", needs: needs{era: "legacy"}, run: exerciseAsks, watch: spotSaid(func(_ *watchCtx, s seen) bool { return s.sharedToken != "" }, func(s seen) string {
			return fmt.Sprintf("a request (%s) with progressToken %s, which a request of the server's not answered yet holds", s.msg.Method, clip(s.sharedToken, 60))
		})},
		// This check calls the tools named with --call on a connection that
		// declares form elicitation and answers every form accepted, with values
		// of no type its properties allow (misfit), each holding notOfItsType. A
		// server that checks what it receives refuses them (an error, a result
		// of isError, the form asked again); one whose result shows them took
		// them as they came. A result that shows none may have checked them or
		// not (or not waited for the answer): nothing tells.
		{ID: "asks.elicitation-validated", needs: needs{era: "legacy"}, run: func(t *T) {
			exerciseAsks(t) // a server that asks no form there gets no call more
			t.skipIf(!t.r.formed.Load(), "no tool named with --call, nor a prompt, asked a form elicitation of a client that declares it")
			var misfits atomic.Int32
			c := t.fresh(connOptions{capabilities: `{"elicitation":{"form":{}}}`, elicit: func(p json.RawMessage) json.RawMessage {
				// A form that asks nothing has nothing to misfit; one with a flag
				// or a choice may be a confirmation, which a server that does not
				// check may take any value in as a yes: all declined, as
				// answer.go does.
				props := string(member(member(p, "requestedSchema"), "properties"))
				if a := misfit(p, []string{notOfItsType}); a != nil && string(member(a, "content")) != "{}" && !strings.Contains(props, `"boolean"`) && !strings.Contains(props, `"enum"`) && !strings.Contains(props, `"oneOf"`) && !strings.Contains(props, `"const"`) {
					misfits.Add(1)
					return a
				}
				return clientAnswer("elicitation/create")
			}})
			judged, silent := 0, 0
			for _, i := range t.r.callable(t) {
				before := misfits.Load()
				params, _ := t.r.callParams(t, i, json.RawMessage(fmt.Sprintf(`"mcpv-check-progress-form-%d"`, i)))
				m, _ := t.request(c, "tools/call", params)
				n := misfits.Load() - before
				if n == 0 {
					continue
				}
				judged++
				// Its structured result holding them shows them used; a text that
				// quotes them may be a refusal that says what it refused.
				taken := n == 1 && m.Error == nil && string(member(m.Result, "isError")) != "true" // neither refused nor asked again
				if taken && strings.Contains(string(member(m.Result, "structuredContent")), notOfItsType) {
					t.FailGot(clipped(m.Result), "%s took a form accepted with values of no type its schema allows, and its structured result holds them", t.r.opts.Calls[i].Tool)
					return
				}
				if taken {
					silent++
				}
			}
			t.skipIf(judged == 0, "no tool named with --call asked a form elicitation of a client that declares it")
			t.noteIf(silent > 0, "%d of %d calls answered a form of misfit values with a result whose structured content holds none of them: whether the server checked them does not show", silent, judged)
		}},
		{ID: "asks.task-undeclared", needs: needs{era: "legacy"}, run: exerciseAsks, watch: askWatch("", func(p, caps json.RawMessage, _ string) string {
			if member(p, "task") == nil || len(caps) == 0 || member(caps, "tasks") != nil {
				return ""
			}
			return "a request made as a task (params.task), though the client declared no tasks capability"
		})},
	}
}

// notOfItsType is the value misfit gives a property not of type string.
const notOfItsType = "mcpv-check: not of its type"

// misfit is an elicitation's answer, accepted, each property of its form
// given a value of no type it allows (str for one of type string); nil
// for one that is no form.
func misfit(p json.RawMessage, str any) json.RawMessage {
	var props map[string]struct{ Type any }
	if elicitMode(p) != "form" || json.Unmarshal(member(member(p, "requestedSchema"), "properties"), &props) != nil {
		return nil
	}
	content := map[string]any{}
	for name, prop := range props {
		content[name] = map[bool]any{true: str, false: notOfItsType}[prop.Type == "string"]
	}
	return rawjson.Marshal(map[string]any{"action": "accept", "content": content})
}

// urlRequired says whether a -32042 error's data lists the elicitations to
// complete first, each of URL mode with its elicitationId.
func urlRequired(data json.RawMessage) bool {
	var d struct{ Elicitations []map[string]any }
	ok := json.Unmarshal(data, &d) == nil && len(d.Elicitations) > 0
	for _, e := range d.Elicitations {
		_, id := e["elicitationId"].(string)
		ok = ok && e["mode"] == "url" && id
	}
	return ok
}
