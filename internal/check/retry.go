package check

// Answering a server's input requests, as a client of the 2026-07-28 era
// does: a connection that declares elicitation, sampling and roots asks
// the server's prompts (those without required arguments) until one is
// answered input_required, answers each input request (an elicitation
// declined, a fixed sampled message, no roots) and retries the request
// with the answers and the request state, round after round. The checks
// hold the server to what the era says of a retry: one that lacks an
// answer asked again, one with an answer of no kind refused, answers to
// keys never asked ignored, an elicitation declined or cancelled handled,
// a request state it never gave not taken.

import (
	"encoding/json"
	"fmt"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// answering are the client capabilities of a connection that answers
// the server's input requests (a task's too).
const answering = `{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{}}`

// answeringTasks declares what answering does, and runs the server's
// sampling and elicitations as tasks when it makes them so (answer.go).
const answeringTasks = `{"elicitation":{"form":{},"url":{}},"sampling":{},"roots":{},"tasks":{"cancel":{},"requests":{"sampling":{"createMessage":{}},"elicitation":{"create":{}}}}}`

// askedFor is the request of a client capability's an input_required
// answer asks for; "" when it asks for none.
func askedFor(m mcp.Message) string {
	for _, r := range inputRequests(m.Result) {
		if clientCapabilities[r.Method] != "" && inputRequired(seen{msg: m, era: "modern"}) {
			return r.Method
		}
	}
	return ""
}

// askedOn calls the i-th named tool, for purpose, on a connection of its
// own that declares answering, and returns it with the request of a
// client capability's the call asked for (askedFor).
func askedOn(t *T, i int, purpose string) (*conn, string) {
	c := t.fresh(connOptions{era: "modern", capabilities: answering})
	params, _ := t.r.callParams(t, i, json.RawMessage(fmt.Sprintf(`"mcpv-check-progress-%s-%d"`, purpose, i)))
	m, _ := t.request(c, "tools/call", params)
	return c, askedFor(m)
}

// maxRounds bounds the rounds of one request answered.
const maxRounds = 5

// asking is a request the server answered input_required.
type asking struct {
	c      *conn           // the check's, to retry on
	name   string          // the prompt's; "" when none asks
	result json.RawMessage // its input_required result
}

// ask is the prompt the server answers input_required on a connection
// that can answer, found once a run (onces), with a connection of t's own
// to retry it on; t is skipped when none is.
func ask(t *T) asking {
	a := t.r.asks.get(t, struct{}{}, func() asking { return findAsking(t) })
	t.skipIf(a.name == "", "no prompt without required arguments asks for input (input_required) of a client that can answer")
	a.c = t.fresh(connOptions{era: "modern", capabilities: answering})
	return a
}

// findAsking gets the server's prompts without required arguments (at
// most maxReads) until one is answered input_required; no name when none
// is.
func findAsking(t *T) asking {
	c := t.fresh(connOptions{era: "modern", capabilities: answering})
	names := promptsToGet(t.listed("prompts/list"))
	for _, name := range names[:min(len(names), maxReads)] {
		if m, _ := t.request(c, "prompts/get", promptParams(name, nil, nil)); inputRequired(seen{msg: m, era: "modern"}) {
			return asking{name: name, result: m.Result}
		}
	}
	return asking{}
}

// promptParams are prompts/get's params for name, with input responses
// and a request state when given.
func promptParams(name string, answers json.RawMessage, state *string) json.RawMessage {
	p := map[string]any{"name": name}
	if answers != nil {
		p["inputResponses"] = answers
	}
	if state != nil {
		p["requestState"] = *state
	}
	return rawjson.Marshal(p)
}

// answers are a client's answers to an input_required result's input
// requests: each key's, by its method.
func answers(result json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, a := range inputRequests(result) {
		if res := clientAnswer(a.Method); res != nil && a.Method != "ping" {
			out[k] = res
		}
	}
	return out
}

// state is an input_required result's request state, or nil.
func state(result json.RawMessage) *string {
	if s, ok := str(member(result, "requestState")); ok {
		return &s
	}
	return nil
}

// retry sends a's request again with answers and state, and returns the answer.
func (a asking) retry(t *T, answers any, state *string) mcp.Message {
	params := promptParams(a.name, rawjson.Marshal(answers), state)
	m, _ := t.ask(a.c, "prompts/get "+clipped(params), "prompts/get", params)
	return m
}

// askInput is ask, with the answers to the input asked for; t is
// skipped when the server asks for none, only a request state.
func askInput(t *T) (asking, map[string]json.RawMessage) {
	a := ask(t)
	ans := answers(a.result)
	t.skipIf(len(ans) == 0, "the server asks for no input, only a request state")
	return a, ans
}

func retryChecks() []*Check {
	return []*Check{
		modernCheck("modern.input-missing", needs{capability: "prompts"}, func(t *T) {
			a, _ := askInput(t)
			if m := a.retry(t, map[string]any{}, state(a.result)); m.Error != nil {
				t.FailGot(errText(m.Error), "a retry without its input was refused, not asked again")
			}
		}),
		modernCheck("modern.input-extra", needs{capability: "prompts"}, func(t *T) {
			a := ask(t)
			res := a.result
			for round := 1; round <= maxRounds; round++ {
				ans := answers(res)
				ans["mcpv-check-not-asked"] = json.RawMessage(`{"action":"decline"}`)
				m := a.retry(t, ans, state(res))
				switch {
				case m.Error != nil:
					t.FailGot(errText(m.Error), "round %d: the answers, with one to a key never asked, were refused", round)
				case !inputRequired(seen{msg: m, era: "modern"}):
					return
				}
				res = m.Result
			}
			t.Note("the server still asked for input after %d rounds answered", maxRounds)
		}),
		modernCheck("modern.input-invalid", needs{capability: "prompts"}, func(t *T) {
			a, ans := askInput(t)
			for k := range ans {
				ans[k] = json.RawMessage(`"mcpv-check: no result"`)
			}
			if m := a.retry(t, ans, state(a.result)); m.Error == nil && !inputRequired(seen{msg: m, era: "modern"}) {
				t.FailGot(clipped(m.Result), "answers that are no results (strings) were taken, and the request completed")
			}
		}),
		modernCheck("modern.input-declined", needs{capability: "prompts"}, func(t *T) {
			a, ans := askInput(t)
			asked := inputRequests(a.result)
			for _, action := range []string{"decline", "cancel"} {
				n := 0
				for k := range ans {
					if asked[k].Method == "elicitation/create" {
						ans[k], n = json.RawMessage(`{"action":"`+action+`"}`), n+1
					}
				}
				t.skipIf(n == 0, "the server asks for no elicitation")
				if m := a.retry(t, ans, state(a.result)); m.Error != nil && m.Error.Code == mcp.CodeInternalError {
					// An SDK answers a handler's own refusal -32603 too:
					// whether this one was handled, the server knows.
					t.UnsureGot(errText(m.Error), "an elicitation the user chose to %s was answered with an internal error (-32603): if the server meant to refuse, an error that says so, or a result, tells the user more", action)
				}
			}
		}),
		// A request that declares no capability, sent on a connection after
		// one that declared them: of the prompt that asks for input, and of
		// each named tool refused to a client that declares none (callOnce)
		// that asks one that declares them.
		modernCheck("modern.capabilities-per-request", needs{}, func(t *T) {
			judged := 0
			bare := func(c *conn, method string, params json.RawMessage) string { // what a request that declares no capability is asked for
				params = c.stamp(params)
				m, _, err := c.requestID(t.ctx, c.newID(), method, rawjson.With(params, "_meta", rawjson.With(member(params, "_meta"), mcp.MetaClientCapabilities, []byte(`{}`))))
				t.must(method, err)
				return askedFor(m)
			}
			again := func(c *conn, method string, params json.RawMessage) {
				judged++
				if asked := bare(c, method, params); asked != "" {
					t.Fail("a %s that declared no capability was asked for %s, which only the request before it on the connection declared", method, asked)
				}
			}
			if t.r.facts.declares("prompts") {
				if a := t.r.asks.get(t, struct{}{}, func() asking { return findAsking(t) }); a.name != "" {
					c, params := t.fresh(connOptions{era: "modern", capabilities: answering}), promptParams(a.name, nil, nil)
					t.Sent("prompts/get " + clipped(params) + " declaring no capability, then declaring elicitation, sampling and roots, then the first again, on one connection")
					if asked := bare(c, "prompts/get", params); asked != "" {
						t.Block("modern.input-capabilities", "a request that declared no capability was asked for %s", asked)
					}
					t.request(c, "prompts/get", params)
					again(c, "prompts/get", params)
				}
			}
			for _, i := range t.r.untasked(t) {
				if rec := t.r.callOnce(t, i); rec.refused != nil || rec.needed.Error != nil {
					if c, asked := askedOn(t, i, "declared"); asked != "" {
						params, _ := t.r.callParams(t, i, json.RawMessage(fmt.Sprintf(`"mcpv-check-progress-undeclared-%d"`, i)))
						t.Sent(t.r.opts.Calls[i].Tool + ", refused to a client that declares no capability, asked for " + asked + " by one that declares them; then on that connection declaring none")
						again(c, "tools/call", params)
					}
				}
			}
			t.skipIf(judged == 0, "no prompt without required arguments, and no named tool refused to a client that declares no capability, asks for input (input_required) of a client that can answer")
		}),
		modernCheck("modern.elicitation-validated", needs{capability: "prompts"}, func(t *T) {
			a, ans := askInput(t)
			forms := 0
			for k, r := range inputRequests(a.result) {
				if bad := misfit(r.Params, 12345); r.Method == "elicitation/create" && bad != nil {
					ans[k], forms = bad, forms+1
				}
			}
			t.skipIf(forms == 0, "the server asks for no form it describes")
			if m := a.retry(t, ans, state(a.result)); m.Error == nil && !inputRequired(seen{msg: m, era: "modern"}) {
				t.FailGot(clipped(m.Result), "a form accepted with values of no type its schema allows was taken, and the request completed")
			}
		}),
		modernCheck("modern.stateless", needs{capability: "prompts"}, func(t *T) {
			// Asked afresh on another connection (over stdio, another
			// process of the server's) and answered at once on a.c; then
			// asked and answered on a.c alone.
			a, _ := askInput(t)
			asked := func(c *conn) mcp.Message {
				m, _ := t.request(c, "prompts/get", promptParams(a.name, nil, nil))
				t.skipIf(!inputRequired(seen{msg: m, era: "modern"}), "the prompt %q, asked again, asked for no input", a.name)
				return m
			}
			m := asked(t.fresh(connOptions{era: "modern", capabilities: answering}))
			other := a.retry(t, answers(m.Result), state(m.Result))
			if other.Error == nil {
				return
			}
			if m = asked(a.c); a.retry(t, answers(m.Result), state(m.Result)).Error == nil {
				t.FailGot(errText(other.Error), "the answers to the input asked for were refused on a connection other than the one that asked, and taken on that one: the request's state was kept in the connection")
			}
		}),
		modernCheck("modern.request-state", needs{capability: "prompts"}, func(t *T) {
			a := ask(t)
			s := state(a.result)
			t.skipIf(s == nil, "the server keeps no request state")
			forged := *s + "-mcpv-check"
			if m := a.retry(t, answers(a.result), &forged); m.Error == nil && !inputRequired(seen{msg: m, era: "modern"}) {
				// Whether the state matters is the server's to know: not sure, a warning.
				t.UnsureGot(clipped(m.Result), "a request state the server never gave (%s) was taken, and the request completed; if the state influences authorization, resource access or business logic, the rule asks that it be rejected", fmt.Sprintf("%q", clip(forged, 60)))
			}
		}),
	}
}
