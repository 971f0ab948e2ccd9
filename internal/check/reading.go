package check

// Reading without side effects: every resource listed reads and its
// contents are well formed, prompts without required arguments get,
// completion answers where declared, and what does not exist (a resource,
// a prompt, a tool, a log level) is an error. Nothing here calls a tool
// or changes the server's state.

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// maxReads bounds the resources read and the prompts got in one run.
const maxReads = 20

func readingChecks() []*Check {
	return []*Check{
		// These read the resources listed and one that does not
		// exist, then get the prompts listed, one without its required argument
		// and one that does not exist.
		resourceReads().answered("reading.resources", "a resource it lists cannot be read"),
		resourceReads().wellFormed("reading.resource-contents", contentsProblem),
		{ID: "reading.contents-uri", needs: needs{capability: "resources"}, run: func(t *T) {
			resourceReads().each(t, func(uri string, res json.RawMessage, rerr *mcp.RPCError) {
				if rerr != nil || contentsProblem(res) != "" {
					return
				}
				var r struct {
					Contents []struct {
						URI string `json:"uri"`
					} `json:"contents"`
				}
				t.decode(res, &r, "resources/read's result")
				for _, c := range r.Contents {
					if c.URI == uri {
						return
					}
				}
				if len(r.Contents) > 0 {
					t.FailExchange(resourceReads().shown(uri), clipped(res), "no content names %q (the first names %q)", uri, r.Contents[0].URI)
				}
			})
		}},
		// This check asks, by a path that climbs out of the directory of the
		// server's first file: resource (with .., then %2e%2e), for a file the
		// server refuses by its own path: served so, the path was not made safe.
		// A server that serves the file by its own path, or a file that is not
		// there, serves files by design and has no traversal to judge. What it
		// served is never shown. 2025-11-25 asks only that every resource URI be
		// validated: there, a warning.
		{ID: "reading.path-traversal", needs: needs{capability: "resources"}, run: func(t *T) {
			dir := ""
			for _, r := range t.listed("resources/list") {
				if u, err := url.Parse(str1(member(r, "uri"))); err == nil && u.Scheme == "file" && path.Dir(u.EscapedPath()) != "/" && dir == "" {
					dir = path.Dir(u.EscapedPath())
				}
			}
			t.skipIf(dir == "", "the server lists no file: resource in a directory below the root")
			const target = "etc/passwd"
			served := func(uri string) bool {
				t.Sent("resources/read " + uri)
				res, rerr := t.callInput("resources/read", rawjson.Marshal(map[string]string{"uri": uri}))
				return rerr == nil && len(member(res, "contents")) > len("[]")
			}
			t.skipIf(served("file:///"+target) || served("file://"+dir+"/mcpv-check-no-such-file"), "the server serves /%s by its own path, or a file it does not have: it serves files outside its resources by design", target)
			up := strings.Repeat("../", strings.Count(dir, "/"))
			for _, climb := range []string{up, strings.ReplaceAll(up, "..", "%2e%2e")} {
				uri := "file://" + dir + "/" + climb + target
				switch why := fmt.Sprintf("%s was served, though /%s by its own path is not: the path climbed out of %s", uri, target, dir); {
				case !served(uri):
				case t.r.facts.era == "modern":
					t.Fail("%s", why)
				default:
					t.Unsure("%s, which 2026-07-28 forbids", why)
				}
			}
		}},
		{ID: "reading.unknown-resource", needs: needs{capability: "resources", era: "legacy"}, run: func(t *T) {
			m := t.askIn(connOptions{era: "legacy"}, "resources/read", json.RawMessage(`{"uri":"mcpv-check://no-such-resource/7"}`))
			switch {
			case m.Error == nil:
				t.FailGot(clipped(m.Result), "answered with a result")
			case m.Error.Code == -32602:
				t.Note("answered -32602, as 2026-07-28 has it")
			case m.Error.Code != -32002:
				t.FailGot(errText(m.Error), "answered with error %d, not -32002 (Resource not found)", m.Error.Code)
			}
		}},
		// The prompts listed, one without its required argument, and one that does not exist.
		promptReads(false).answered("reading.prompts", "a prompt it lists, with no required argument, cannot be got"),
		promptReads(true).wellFormed("reading.prompt-messages", messagesProblem),
		{ID: "reading.missing-argument", needs: needs{capability: "prompts"}, run: func(t *T) {
			for _, p := range t.listed("prompts/list") {
				name, ok := str(member(p, "name"))
				req, readable := requiredArgs(p)
				if !ok || !readable || len(req) == 0 {
					continue
				}
				res, rerr := t.callShown("prompts/get", rawjson.Marshal(map[string]any{"name": name, "arguments": map[string]string{}}))
				wantCode(t, res, rerr, -32602,
					fmt.Sprintf("answered with a result, though %q is required", req[0]),
					"answered with error %d, not -32602")
				return
			}
			t.Skip("no prompt has a required argument")
		}},
		{ID: "reading.unknown-prompt", needs: needs{capability: "prompts"}, run: func(t *T) {
			res, rerr := t.callShown("prompts/get", json.RawMessage(`{"name":"mcpv-check-no-such-prompt"}`))
			wantCode(t, res, rerr, -32602, "answered with a result", "answered with error %d, not -32602")
		}},
		// These call a tool that does not exist, ask for
		// completions and set a log level that does not exist.
		{ID: "reading.unknown-tool", needs: needs{capability: "tools"}, run: func(t *T) {
			t.skipIf(slices.Contains(toolNames(t.listed("tools/list"), nil), noSuchTool), "the server has a tool named %s", noSuchTool)
			if res, rerr := t.callShown("tools/call", json.RawMessage(`{"name":"`+noSuchTool+`","arguments":{}}`)); rerr == nil {
				t.FailGot(clipped(res), "answered with a result, not a JSON-RPC error")
			}
		}},
		completionCheck("reading.completion", func(t *T, all []json.RawMessage) {
			// The rule bounds the values answered; a refusal (of an
			// argument the server has no completions for, say) answers
			// none to judge.
			var refused []string
			for _, params := range all {
				res, rerr := t.callShown("completion/complete", params)
				if rerr != nil {
					refused = append(refused, errText(rerr))
					continue
				}
				if p := completionProblem(res); p != "" {
					t.FailGot(clipped(res), "%s", p)
				}
			}
			if len(refused) == len(all) {
				t.Skip("completion/complete was refused for every argument asked (the first: %s): no values to judge", refused[0])
			}
		}),
		completionCheck("reading.completion-inputs", func(t *T, all []json.RawMessage) {
			// The first request reading.completion sends, without its
			// argument, which CompleteRequest requires.
			res, rerr := t.callShown("completion/complete", rawjson.Marshal(map[string]json.RawMessage{"ref": member(all[0], "ref")}))
			if rerr == nil {
				var values []json.RawMessage
				if json.Unmarshal(member(member(res, "completion"), "values"), &values) == nil && len(values) == 0 {
					t.UnsureGot(clipped(res), "completion/complete without its argument was answered with no values, not refused: whether its input was validated cannot be told")
				}
				t.FailGot(clipped(res), "completion/complete without its argument was answered with a result: its input was not validated")
			}
			t.Got(errText(rerr))
		}),
		{ID: "reading.log-level", needs: needs{capability: "logging"}, run: func(t *T) {
			if t.r.facts.era != "modern" {
				wantError(t, t.askIn(connOptions{era: "legacy"}, "logging/setLevel", json.RawMessage(`{"level":"mcpv-check-loudest"}`)), nil, -32602)
				return
			}
			// 2026-07-28: the level is each request's _meta's.
			c := t.fresh(connOptions{era: "modern", logLevel: "mcpv-check-loudest"})
			methods := probeAndList(t, c)
			m, _ := t.ask(c, methods[len(methods)-1]+` with _meta {"`+mcp.MetaLogLevel+`":"mcpv-check-loudest"}`, methods[len(methods)-1], nil)
			wantError(t, m, nil, -32602)
		}},
	}
}

// noSuchTool is the tool the checks call that no server lists.
const noSuchTool = "mcpv-check-no-such-tool"

// reads are what the reading checks read, once a run (readOnce) and up
// to maxReads: the resources listed, or the prompts listed without a
// required argument.
type reads struct {
	each       func(t *T, fn func(name string, res json.RawMessage, rerr *mcp.RPCError))
	shown      func(name string) string // the read, as a failure quotes it
	capability string                   // what the server declares that has them
}

// answered is the check (a SHOULD of 2025-11-25) that every read is
// answered with a result: it fails, saying why, on the first read
// answered with an error.
func (rd reads) answered(id, why string) *Check {
	return &Check{ID: id, needs: needs{capability: rd.capability}, run: func(t *T) {
		rd.each(t, func(name string, res json.RawMessage, rerr *mcp.RPCError) {
			if rerr != nil {
				t.FailExchange(rd.shown(name), errText(rerr), "%s", why)
			}
		})
	}}
}

// wellFormed is the check (a MUST of 2025-11-25) that every result read
// keeps its schema: it fails on the first whose result breaks it, as
// problem says ("" when it keeps it); reads answered with an error are
// answered's.
func (rd reads) wellFormed(id string, problem func(res json.RawMessage) string) *Check {
	return &Check{ID: id, needs: needs{capability: rd.capability}, run: func(t *T) {
		rd.each(t, func(name string, res json.RawMessage, rerr *mcp.RPCError) {
			if rerr != nil {
				return
			}
			if p := problem(res); p != "" {
				t.FailExchange(rd.shown(name), clipped(res), "%s", p)
			}
		})
	}}
}

// resourceReads read each resource listed, up to maxReads, once per run.
func resourceReads() reads {
	return reads{func(t *T, fn func(uri string, res json.RawMessage, rerr *mcp.RPCError)) {
		items := t.listed("resources/list")
		var uris []string
		for _, it := range items {
			if uri, ok := str(member(it, "uri")); ok {
				uris = append(uris, uri)
			}
		}
		eachRead(t, "resources/read", func(uri string) json.RawMessage { return rawjson.Marshal(map[string]string{"uri": uri}) }, uris, fn, fmt.Sprintf("%d resources listed; the first %d were read", len(items), maxReads),
			"%s asks for input (input_required), which mcpv check does not give: not read", "the server lists no resource")
	}, func(uri string) string { return "resources/read " + uri }, "resources"}
}

// promptReads get the prompts listed without a required argument; filled,
// the prompts of required arguments too, each given a placeholder: what a
// prompt answers is judged though no prompt can be got bare, and a
// placeholder refused is no finding (wellFormed leaves errors alone).
func promptReads(filled bool) reads {
	return reads{func(t *T, fn func(name string, res json.RawMessage, rerr *mcp.RPCError)) { eachPrompt(t, fn, filled) },
		func(name string) string { return fmt.Sprintf("prompts/get %q", name) }, "prompts"}
}

// placeholder is the value a prompt's required argument is given when
// the prompt is got to see what it answers.
const placeholder = "example"

// eachPrompt gets each prompt listed without a required argument, up to
// maxReads, once per run; filled, it gets the prompts with required
// arguments as well, a placeholder in each.
func eachPrompt(t *T, fn func(name string, res json.RawMessage, rerr *mcp.RPCError), filled bool) {
	prompts := t.listed("prompts/list")
	names := promptsToGet(prompts)
	args := map[string]map[string]string{}
	for _, p := range prompts {
		name, ok := str(member(p, "name"))
		if req, readable := requiredArgs(p); filled && ok && readable && len(req) > 0 {
			args[name] = map[string]string{}
			for _, a := range req {
				args[name][a] = placeholder
			}
			names = append(names, name)
		}
	}
	for _, p := range prompts {
		if _, readable := requiredArgs(p); !readable {
			name, _ := str(member(p, "name"))
			t.blockIf(len(names) == 0, "jsonrpc.schema", "the arguments of prompt %q cannot be read, so which it requires is not known", clip(name, 100))
			t.Note("prompt %q not got: its arguments cannot be read (jsonrpc.schema)", clip(name, 100))
		}
	}
	params := func(name string) json.RawMessage {
		if a, ok := args[name]; ok {
			return rawjson.Marshal(map[string]any{"name": name, "arguments": a})
		}
		return rawjson.Marshal(map[string]string{"name": name})
	}
	over, none := fmt.Sprintf("the first %d prompts without required arguments were got", maxReads), "the server lists no prompt without required arguments"
	if filled {
		over, none = fmt.Sprintf("the first %d prompts were got (required arguments given %q)", maxReads, placeholder), "the server lists no prompt"
	}
	eachRead(t, "prompts/get", params, names, fn, over,
		"prompt %q asks for input (input_required), which mcpv check does not give: not got", none)
}

// eachRead asks method, once per run, of each of names (with the params
// params makes of it) up to maxReads, and gives fn the answer. t notes over when there are
// more, and asks (of the name) for one the server asks input for, which
// is not read; it is skipped, saying none, when there is no name.
func eachRead(t *T, method string, params func(name string) json.RawMessage, names []string, fn func(name string, res json.RawMessage, rerr *mcp.RPCError), over, asks, none string) {
	for i, name := range names {
		if i == maxReads {
			t.Note("%s", over)
			break
		}
		res, rerr := t.r.readOnce(t, method, params(name))
		if res == nil && rerr == nil {
			t.Note(asks, clip(name, 100))
			continue
		}
		fn(name, res, rerr)
	}
	t.skipIf(len(names) == 0, "%s", none)
}

// promptsToGet are the names of the prompts listed that have no required
// argument: those a prompts/get without arguments gets. A prompt whose
// arguments cannot be read (a required that is no boolean) is not among
// them: which it requires is not known (jsonrpc.schema names it).
func promptsToGet(prompts []json.RawMessage) []string {
	var out []string
	for _, p := range prompts {
		name, ok := str(member(p, "name"))
		if req, readable := requiredArgs(p); ok && readable && len(req) == 0 {
			out = append(out, name)
		}
	}
	return out
}

// readOnce asks the main session once per run for what several checks
// look at: a resource's contents, a prompt's messages.
func (r *runner) readOnce(t *T, method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	a := r.reads.get(t, method+" "+string(params), func() mcp.Message {
		res, rerr := t.callInput(method, params)
		return mcp.Message{Result: res, Error: rerr}
	})
	return a.Result, a.Error
}

// completionCheck is a check of what completion/complete answers to the
// requests completionParams makes; it is skipped when there is none.
func completionCheck(id string, run func(t *T, all []json.RawMessage)) *Check {
	return &Check{ID: id, needs: needs{capability: "completions"}, run: func(t *T) {
		all := completionParams(t)
		t.skipIf(len(all) == 0, "no prompt argument or template variable to complete")
		run(t, all)
	}}
}

// requiredArgs are the names of a prompt's required arguments; readable
// is false when its arguments do not decode (a required that is no
// boolean): which it requires is not known (jsonrpc.schema names it).
func requiredArgs(prompt json.RawMessage) (names []string, readable bool) {
	var p struct {
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	}
	if json.Unmarshal(prompt, &p) != nil {
		return nil, false
	}
	for _, a := range p.Arguments {
		if a.Required {
			names = append(names, a.Name)
		}
	}
	return names, true
}

// completionParams asks to complete each argument of each prompt, then
// each template's first variable, with an empty value: at most 6 of them
// (2 of them templates' where there are), since a server may complete
// some arguments and not others.
func completionParams(t *T) []json.RawMessage {
	var prompts, templates []json.RawMessage
	add := func(to *[]json.RawMessage, ref map[string]string, arg string) {
		if arg != "" && len(*to) < 6 {
			*to = append(*to, rawjson.Marshal(map[string]any{"ref": ref, "argument": map[string]string{"name": arg, "value": ""}}))
		}
	}
	for _, p := range t.listed("prompts/list") {
		var pr struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		if json.Unmarshal(p, &pr) == nil && pr.Name != "" {
			for _, a := range pr.Arguments {
				add(&prompts, map[string]string{"type": "ref/prompt", "name": pr.Name}, a.Name)
			}
		}
	}
	for _, tp := range t.listed("resources/templates/list") {
		uri, _ := str(member(tp, "uriTemplate"))
		add(&templates, map[string]string{"type": "ref/resource", "uri": uri}, firstVariable(uri))
	}
	all := append(prompts[:min(len(prompts), 6-min(len(templates), 2))], templates...) // two of six for templates, where there are
	return all[:min(len(all), 6)]
}

// firstVariable is the name of a URI template's first variable.
func firstVariable(tmpl string) string {
	i := strings.IndexByte(tmpl, '{')
	j := strings.IndexByte(tmpl, '}')
	if i < 0 || j < i {
		return ""
	}
	e := strings.TrimLeft(tmpl[i+1:j], "+#./;?&")
	e, _, _ = strings.Cut(e, ",")
	e, _, _ = strings.Cut(e, ":")
	return strings.TrimSuffix(e, "*")
}
