package check

// The lifecycle: initialize and what it answers, version negotiation (a
// version known, unknown, older), capabilities that say what is served,
// nothing asked before initialized, ping, and a stdio server's exit when
// its input ends.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// unknownVersion is a protocol version no server speaks.
const unknownVersion = "1900-01-01"

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

func lifecycleChecks() []*Check {
	return []*Check{
		// These judge initialize and version negotiation.
		legacyCheck("lifecycle.initialize", func(t *T) {
			a := t.versionAnswered(mcp.LatestVersion, "initialize")
			if a.rpcErr != nil {
				t.FailGot(errText(a.rpcErr), "initialize offering %s was refused", mcp.LatestVersion)
			}
			t.Got(clipped(a.result))
			if p := initializeShape(a.result); p != "" {
				t.Fail("%s", p)
			}
			// The whole of it, capabilities (tasks among them) included.
			if sc := schemaOf(a.version); sc != nil {
				if p := t.schemaResultProblem(sc, "InitializeResult", "initialize", a.result); p != "" {
					t.Fail("%s", p)
				}
			}
		}),
		legacyCheck("lifecycle.version-echo", func(t *T) {
			for _, v := range mcp.SupportedVersions {
				a := t.versionAnswered(v, "initialize offering "+v)
				if a.rpcErr != nil || a.version == v || a.version == "" {
					continue
				}
				// v is not supported, the answer says: what it answers
				// instead must be, and offered, echoed.
				if b := t.versionAnswered(a.version, "initialize offering "+a.version); b.version != a.version {
					t.FailExchange(fmt.Sprintf("initialize offering %s, then %s", v, a.version), fmt.Sprintf("%s, then %s", a.version, answerText(b)), "offered %s the server answers %s, a version it supports; offered %s it does not answer %s", v, a.version, a.version, a.version)
				}
			}
			t.Note("versions echoed: %s", t.echoed())
		}),
		legacyCheck("lifecycle.version-unknown", func(t *T) {
			t.Sent("initialize offering " + unknownVersion)
			a := t.versionAnswered(unknownVersion, "initialize")
			t.Got(answerText(a))
			switch {
			case a.rpcErr != nil:
				t.Note("refused with an error, as the lifecycle's own example does")
				return
			case a.version == unknownVersion:
				t.Fail("the server answers with the unknown version itself")
			case len(a.version) != 10 || a.version[4] != '-' || a.version[7] != '-' || !digits(a.version[:4]+a.version[5:7]+a.version[8:]): // no YYYY-MM-DD
				t.Fail("the answer's protocolVersion %q is no protocol version", a.version)
			}
			if b := t.versionAnswer(a.version); b.err == nil && b.version != a.version {
				t.Fail("it answers %s, but offered %s it answers %s: that is no version it supports", a.version, a.version, answerText(b))
			}
		}),
		legacyCheck("lifecycle.version-latest", func(t *T) {
			a := t.versionAnswered(unknownVersion, "initialize")
			t.skipIf(a.rpcErr != nil, "the unknown version was refused with an error")
			latest := ""
			for _, v := range mcp.SupportedVersions {
				if b := t.versionAnswer(v); b.err == nil && b.version == v && v > latest {
					latest = v
				}
			}
			t.Sent("initialize offering " + unknownVersion)
			t.Got(a.version)
			t.failIf(latest != "" && a.version < latest, "it answers %s, though it supports %s", a.version, latest)
		}),
		// These judge capabilities against what the server
		// lists, sends and answers, and what it asks of the client.
		undeclaredCheck("lifecycle.undeclared", "tools"),
		undeclaredCheck("lifecycle.undeclared-prompts", "prompts"),
		undeclaredCheck("lifecycle.undeclared-resources", "resources"),
		// This check asks, where the server does not declare
		// completions, to complete a prompt's argument or a template's variable:
		// a server that answers values supports completions, and must declare
		// them. No values, or a refusal, is no support.
		{ID: "lifecycle.undeclared-completions", run: func(t *T) {
			t.skipIf(t.r.facts.declares("completions"), "the server declares completions")
			blockedByDiscover(t)
			all, answered := completionParams(t), 0
			t.skipIf(len(all) == 0, "no prompt argument or template variable to complete")
			for _, params := range all {
				res, rerr := t.callInput("completion/complete", params)
				if rerr != nil || res == nil {
					continue
				}
				answered++
				var values []json.RawMessage
				t.decode(member(member(res, "completion"), "values"), &values, "completion/complete's completion.values")
				if len(values) > 0 {
					t.FailExchange("completion/complete "+string(params), clipped(res), "completion/complete answers %d values, though the \"completions\" capability is not declared", len(values))
				}
			}
			t.noteIf(answered > 0, "completion/complete answers no values to %d arguments, which is no completion offered", answered)
		}},
		declaredCheck("lifecycle.declared", "legacy"), // 2026-07-28 says MUST: modern.declared-lists
		{ID: "lifecycle.undeclared-notifications", watch: func(w *watchCtx, s seen) string {
			// The capability the notification needs declared, if any.
			c, needed := "resources.subscribe", s.msg.Method == "notifications/resources/updated"
			if list, ok := mcp.ListChanged(s.msg.Method); ok {
				c, needed = list+".listChanged", true
			}
			if needed && s.msg.IsNotification() && !w.f.declares(c) {
				return fmt.Sprintf("%s, though the server does not declare %s", s.msg.Method, c)
			}
			return ""
		}},
		{ID: "lifecycle.logging-declared", run: func(t *T) { // 2026-07-28: a server sends log messages to a request that asks for them, so one call asks
			if i := slices.IndexFunc(t.r.opts.Calls, func(c Call) bool { return !taskRequired(t.r.toolDef(t.ctx, c.Tool)) }); i >= 0 && t.r.facts.era == "modern" && !t.r.facts.declares("logging") {
				params, _ := t.r.callParams(t, i, json.RawMessage(`"mcpv-check-logs"`))
				t.ask(t.fresh(connOptions{logLevel: "debug"}), `tools/call with _meta {"`+mcp.MetaLogLevel+`":"debug"}: `+clip(string(params), 200), "tools/call", params)
			}
		}, watch: spot("a log message (notifications/message), though the server does not declare logging", func(w *watchCtx, s seen) bool {
			return s.msg.IsNotification() && s.msg.Method == "notifications/message" && !w.f.declares("logging")
		})},
		exercised("lifecycle.client-capabilities", needs{era: "legacy"}, spotSaid(func(_ *watchCtx, s seen) bool {
			return s.undeclared != "" && !s.early
		}, func(s seen) string {
			return fmt.Sprintf("%s, though the client did not declare %s", s.msg.Method, s.undeclared)
		})),
		{ID: "lifecycle.declared-methods", run: declaredMethods},
		// These judge the session's course: no request before
		// initialized, ping, and a stdio server's exit when its input ends.
		legacyCheck("lifecycle.early-requests", func(t *T) {
			// Declaring roots, sampling and elicitation: a server asks a
			// client only what it declared.
			c := t.fresh(connOptions{era: "legacy", bare: true, capabilities: answering})
			mark := c.mark()
			m, _ := t.ask(c, "initialize, then nothing for half a second", "initialize", c.initializeParams(mcp.LatestVersion))
			if m.Error != nil {
				t.Skip("initialize was refused: %s", errText(m.Error))
			}
			c.setHeaderVersion(str1(member(m.Result, "protocolVersion")))
			settle(t, 500*time.Millisecond)
			for _, s := range c.since(mark) {
				t.failGotIf(s.msg.IsRequest() && s.msg.Method != "ping", s.raw, "the server sent %s before the initialized notification", s.msg.Method)
			}
			t.must("notifications/initialized", c.notify(t.ctx, "notifications/initialized", nil))
		}),
		legacyCheck("lifecycle.ping", func(t *T) {
			if why := t.r.facts.pingBroken; why != "" && t.r.facts.era == "legacy" {
				// the answer to ping or, ping unanswered, the one that shows the server answers
				t.FailExchange("ping, and at once "+unknownMethod+" (through the session)", cmp.Or(t.r.wire.lastAnswer("ping"), t.r.wire.lastAnswer(unknownMethod)), "%s", why)
			}
			m, _ := t.ask(t.connWith(connOptions{era: "legacy"}), "ping", "ping", nil)
			judgePing(t, m, "")
			if t.r.facts.transport == "stdio" {
				pingFirst(t)
			}
		}),
		{ID: "lifecycle.stdin-close", needs: needs{transport: "stdio"}, run: func(t *T) {
			c := t.fresh(connOptions{})
			barrier(t, c)
			t.Sent("stdin closed, after a request was answered")
			t.must("closing the server's stdin", c.stdio.CloseInput())
			const wait = 5 * time.Second
			select {
			case <-c.stdio.Exited():
			case <-time.After(wait):
				t.Fail("the server was still running %s after its stdin closed", wait)
			case <-t.ctx.Done():
				t.Fail("the server did not exit before the check's time ran out")
			}
		}},
	}
}

// legacyCheck is a check of the initialize era.
func legacyCheck(id string, run func(*T)) *Check { return needs{era: "legacy"}.check(id, run) }

// lintFindings fails t with the lint's findings of severity and rules.
func lintFindings(t *T, severity string, rules ...string) {
	found := t.r.facts.lintOf(severity, rules...)
	if len(found) == 0 {
		return
	}
	for _, f := range found[1:min(len(found), 5)] { // four notes, and a fifth for the rest: a check keeps five
		t.Note("%s: %s", f.Object, f.Message)
	}
	if method, _, ok := strings.Cut(found[0].Message, ":"); ok && slices.Contains(listNames(), method) {
		t.Got(t.r.wire.lastAnswer(method)) // the page, as it came
	}
	t.noteIf(len(found) > 5, "and %d more", len(found)-5)
	t.Fail("%s: %s", found[0].Object, found[0].Message)
}

// versionAnswer is what the server answers to initialize offering one
// version, asked once per run on a connection of its own.
type versionAnswer struct {
	version string // the result's protocolVersion
	result  json.RawMessage
	rpcErr  *mcp.RPCError
	err     error // no answer
}

func answerText(a versionAnswer) string {
	switch {
	case a.err != nil:
		return "no answer: " + a.err.Error()
	case a.rpcErr != nil:
		return errText(a.rpcErr)
	}
	return a.version
}

// versionAnswers are the answers asked so far, by version offered.
type versionAnswers struct {
	mu   sync.Mutex // guards asks
	asks map[string]*versionAsk
	wg   sync.WaitGroup // the asks under way, which Run waits for
}

type versionAsk struct {
	done chan struct{}
	a    versionAnswer
}

// versionAnswer is what initialize offering offered is answered with.
// The first ask starts every ask the lifecycle checks make (each known
// version, and an unknown one), at once, each on a connection of its own
// under the run's context; the check waits with its clock standing, as
// each ask is a server's start.
func (t *T) versionAnswer(offered string) versionAnswer {
	r := t.r
	r.versions.mu.Lock()
	if f := r.facts; f.era == "legacy" && r.versions.asks[mcp.LatestVersion] == nil {
		// What the main session was answered, offering the latest version.
		if res := f.main.InitializeResult().Raw(); res != nil && f.offeredLatest {
			done := make(chan struct{})
			close(done)
			r.versions.asks[mcp.LatestVersion] = &versionAsk{done: done, a: versionAnswer{version: str1(member(res, "protocolVersion")), result: res}}
		}
	}
	for _, v := range append([]string{offered, unknownVersion}, mcp.SupportedVersions...) {
		if _, asked := r.versions.asks[v]; asked {
			continue
		}
		ask := &versionAsk{done: make(chan struct{})}
		r.versions.asks[v] = ask
		r.versions.wg.Go(func() { // version ask: ends when the server has answered, or its bounds (the run's among them) ran out
			ctx, cancel := context.WithTimeoutCause(r.ctx, r.opts.StartTimeout+r.opts.CheckTimeout, &outOfTime{d: r.opts.StartTimeout + r.opts.CheckTimeout})
			defer cancel()
			askOnce := func() versionAnswer {
				c, err := r.dial(ctx, connOptions{era: "legacy", bare: true})
				if err != nil {
					return versionAnswer{err: err}
				}
				defer c.close()
				m, _, err := c.request(ctx, "initialize", c.initializeParams(v))
				if err != nil {
					return versionAnswer{err: err}
				}
				if m.Error != nil {
					return versionAnswer{rpcErr: m.Error}
				}
				got, _ := str(member(m.Result, "protocolVersion"))
				c.setHeaderVersion(got)
				return versionAnswer{version: got, result: m.Result}
			}
			r.startCopy(ctx, func() error { ask.a = askOnce(); return ask.a.err }) // ask.a holds the error
			close(ask.done)
		})
	}
	ask := r.versions.asks[offered]
	r.versions.mu.Unlock()
	var a versionAnswer
	t.starting(func(ctx context.Context) {
		select {
		case <-ask.done:
			a = ask.a
		case <-ctx.Done():
			a = versionAnswer{err: context.Cause(ctx)}
		}
	})
	return a
}

// versionAnswered is versionAnswer, failing t on what kept the answer
// from coming (doing names the asking).
func (t *T) versionAnswered(offered, doing string) versionAnswer {
	a := t.versionAnswer(offered)
	t.must(doing, a.err)
	return a
}

// echoed are the known versions the server echoes, as a list.
func (t *T) echoed() string {
	out := slices.DeleteFunc(slices.Clone(mcp.SupportedVersions), func(v string) bool {
		a := t.versionAnswer(v)
		return a.err != nil || a.version != v
	})
	if len(out) == 0 {
		return "none"
	}
	return fmt.Sprint(out)
}

func isObject(raw json.RawMessage) bool { return rawjson.IsObject(raw) }

// undeclaredCheck is the check that a server that lists what capability
// (tools, prompts, resources) offers declares it, as each page of the
// specification on them says in the same words: where the server does
// not declare capability, it asks for the lists of it. A server that
// lists something supports it, and must declare it; an empty list, or a
// refusal, is no support (servers built on an SDK answer every list,
// empty).
func undeclaredCheck(id, capability string) *Check {
	return &Check{ID: id, run: func(t *T) {
		t.skipIf(t.r.facts.declares(capability), "the server declares %s", capability)
		blockedByDiscover(t)
		for _, l := range mcp.Lists {
			if l.Capability != capability {
				continue
			}
			res, rerr := t.callInput(l.Method, nil)
			if rerr != nil || res == nil {
				continue
			}
			var items []json.RawMessage
			t.decode(member(res, l.Key), &items, l.Method+"'s "+l.Key)
			if len(items) == 0 {
				t.Note("%s answers an empty list, which is no %s offered", l.Method, capability)
				continue
			}
			t.FailExchange(l.Method, t.r.wire.lastAnswer(l.Method), "%s lists %d, though the %q capability is not declared", l.Method, len(items), capability)
		}
	}}
}

// declaredCheck is the check, in era, that each list the server declares
// is served: the lint's warning of one answered "method not found".
func declaredCheck(id, era string) *Check {
	return &Check{ID: id, needs: needs{era: era}, run: func(t *T) {
		t.lintDone()
		lintFindings(t, surface.SeverityWarning, surface.RuleCapabilities)
	}}
}

// blockedByDiscover blocks t when a 2026-07-28 server's discover result
// has no capabilities object: what it declares cannot be read.
func blockedByDiscover(t *T) {
	if f := t.r.facts; f.era == "modern" && !isObject(member(f.init, "capabilities")) {
		t.Block("modern.discover", "the server/discover result has no capabilities object: what the server declares cannot be read")
	}
}

// pingFirst sends ping to a server process of its own before initialize
// (the one request a client may send before it), and initialize at once
// after it: the ping is judged when it is answered, and fails when it
// is not, though initialize and a ping sent once the server was told it is
// initialized were (within twenty times that ping's time, 2 s at least).
func pingFirst(t *T) {
	c := t.fresh(connOptions{era: "legacy", bare: true})
	id := c.newID()
	msg, _ := mcp.EncodeRequest(id, "ping", nil)
	ch := c.expect(id, "ping")
	defer c.unexpect(id)
	t.Sent("ping to a new process, and at once initialize; then, initialized, ping")
	t.must("ping before initialize", c.write(t.ctx, msg))
	if m, _ := t.request(c, "initialize", c.initializeParams(mcp.LatestVersion)); m.Error == nil {
		_ = c.notify(t.ctx, "notifications/initialized", nil) // a connection that broke says so below
	}
	start := time.Now() // the server has started: a ping's time is its own (the session's was answered)
	t.request(c, "ping", nil)
	ctx, cancel := context.WithTimeout(t.ctx, min(max(2*time.Second, 20*time.Since(start)), t.r.opts.CheckTimeout/2))
	defer cancel()
	m, err := c.await(ctx, ch)
	if errors.Is(err, context.DeadlineExceeded) && t.ctx.Err() == nil {
		t.Fail("ping before initialize was not answered, though initialize and a ping sent after it were (within %s)", time.Since(start).Round(time.Millisecond))
	} else if err != nil {
		t.failErr("ping before initialize", err)
	}
	if m.Error != nil && t.r.facts.era == "modern" {
		// A server of both eras takes its era from how a client opens
		// (2026-07-28 basic/versioning): a ping with no _meta before
		// initialize opens neither, and may be refused as the newer's.
		t.UnsureGot(errText(m.Error), "ping before initialize was answered with an error, by a server that speaks the 2026-07-28 era too, where a request without _meta is refused")
	}
	judgePing(t, m, " before initialize")
}

// judgePing fails t unless m is ping's empty result.
func judgePing(t *T, m mcp.Message, when string) {
	if m.Error != nil {
		t.FailGot(errText(m.Error), "ping%s was answered with an error", when)
	}
	t.Got(clipped(m.Result))
	var members map[string]json.RawMessage
	t.failIf(json.Unmarshal(m.Result, &members) != nil, "the result%s is not a JSON object", when)
	for k := range members {
		t.failIf(k != "_meta" && k != "resultType", "the result%s is not empty: it has %q", when, k)
	}
}
