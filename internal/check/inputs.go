package check

// A tool called with arguments its inputSchema refuses: the server must
// not take them as valid, and says so as a tool execution error (isError),
// which a model can correct itself by, rather than as a protocol error.
// Only the tools the user named with --call are called so, as for every
// call of the check: a server that does not validate runs such a call.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

func inputChecks() []*Check {
	return []*Check{
		callCheck("tools.validate-inputs", func(t *T) {
			eachInvalid(t, func(b badCall) {
				if b.err == nil && !slices.Equal(rawjson.Member(b.result, "isError"), []byte("true")) {
					t.FailExchange(b.sent, clipped(b.result), "the call of %s with %s was answered as if its arguments were valid (a result without isError)", b.tool, b.broken)
				}
			})
		}),
		callCheck("tools.input-errors", func(t *T) {
			eachInvalid(t, func(b badCall) {
				if b.err != nil {
					t.FailExchange(b.sent, errText(b.err), "the call of %s with %s was answered with a protocol error, where the revision reports invalid arguments as a result with isError, which a model can correct itself by", b.tool, b.broken)
				}
			})
		}),
	}
}

// badCall is a call of a --call tool with arguments its inputSchema
// refuses, and what the server answered.
type badCall struct {
	tool, broken, sent string
	params, result     json.RawMessage
	err                *mcp.RPCError
}

// eachInvalid calls each --call tool whose inputSchema has an argument to
// break (invalidArgs) with it broken, once a run, and gives fn each
// answer; the check is skipped when no tool has one.
func eachInvalid(t *T, fn func(badCall)) {
	called := false
	for _, i := range t.r.callable(t) {
		b := t.r.invalid.get(t, i, func() *badCall { return t.r.callInvalid(t, i) })
		if b == nil {
			continue
		}
		called = true
		fn(*b)
	}
	t.skipIf(!called, "no tool named with --call has an argument its inputSchema requires or types")
}

// callInvalid calls the i-th --call tool with the arguments the user gave
// broken (invalidArgs); nil when there is nothing to break.
func (r *runner) callInvalid(t *T, i int) *badCall {
	params, def := r.callParams(t, i, json.RawMessage(fmt.Sprintf(`"mcpv-check-invalid-%d"`, i)))
	args := map[string]json.RawMessage{}
	t.decode(member(params, "arguments"), &args, "the arguments built for --call")
	var s argSchema
	t.decode(member(def, "inputSchema"), &s, fmt.Sprintf("the inputSchema of %q", r.opts.Calls[i].Tool))
	broken, how := invalidArgs(s, args)
	if how == "" {
		return nil
	}
	p, _ := json.Marshal(map[string]any{"name": r.opts.Calls[i].Tool, "arguments": broken})
	b := &badCall{tool: r.opts.Calls[i].Tool, broken: how, sent: "tools/call " + clip(string(p), 200), params: p}
	m, _ := t.request(t.fresh(connOptions{}), "tools/call", p)
	b.result, b.err = m.Result, m.Error
	return b
}

// argSchema is what invalidArgs reads of a tool's inputSchema.
type argSchema struct {
	Required   []string                   `json:"required"`
	Properties map[string]json.RawMessage `json:"properties"`
}

// invalidArgs are args broken as s refuses them: a required argument
// left out, else a typed one given a value of another type; how says
// which, "" when the schema requires and types nothing.
func invalidArgs(s argSchema, args map[string]json.RawMessage) (map[string]json.RawMessage, string) {
	out := map[string]json.RawMessage{}
	maps.Copy(out, args)
	for _, name := range s.Required {
		if _, ok := s.Properties[name]; ok || len(s.Properties) == 0 {
			delete(out, name)
			return out, fmt.Sprintf("the required argument %q left out", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		typ, _ := str(member(s.Properties[name], "type"))
		wrong := map[string]string{"string": "12345", "number": `"mcpv-check: not a number"`, "integer": `"mcpv-check: not an integer"`,
			"boolean": `"mcpv-check: not a boolean"`, "object": `"mcpv-check: not an object"`, "array": `"mcpv-check: not an array"`}[typ]
		if wrong != "" {
			out[name] = json.RawMessage(wrong)
			return out, fmt.Sprintf("%q, typed %s, given %s", name, typ, wrong)
		}
	}
	return nil, ""
}
