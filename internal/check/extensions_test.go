package check

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// appsChange is goodSpec made a server of MCP Apps: shaped carries an app
// (mcptest's fixture page), listed and readable as ui://fixture/shaped.html,
// and the server declares io.modelcontextprotocol/ui; edit changes the
// app's pieces to break them.
// The specifications of the extensions, as checks.tsv names them: the
// extensions overview the 2026-07-28 revision links (SEP-2133; the rule on
// identifiers is stated in that revision's schema), MCP Apps, the Server
// Card (SEP-2127), the tasks extension's draft and the skills extension.
const (
	extSpec      = "SEP-2133"
	appsSpec     = "ext-apps 2026-01-26"
	cardSpec     = "SEP-2127"
	extTasksSpec = "ext-tasks"
	skillsSpec   = "ext-skills"
)

func appsChange(t testing.TB, edit func(tools, resources []map[string]any, read map[string]any, caps map[string]any)) map[string]string {
	t.Helper()
	var spec struct {
		Tools     []map[string]any `json:"tools"`
		Resources []map[string]any `json:"resources"`
		Caps      map[string]any   `json:"capabilities"`
	}
	if err := json.Unmarshal([]byte(goodSpec), &spec); err != nil {
		t.Fatal(err)
	}
	uri := "ui://fixture/shaped.html"
	for _, tool := range spec.Tools {
		if tool["name"] == "shaped" {
			tool["_meta"] = map[string]any{"ui": map[string]any{"resourceUri": uri}}
		}
	}
	spec.Resources = append(spec.Resources, map[string]any{"uri": uri, "name": "shaped app", "mimeType": "text/html;profile=mcp-app"})
	spec.Caps["extensions"] = map[string]any{"io.modelcontextprotocol/ui": map[string]any{}}
	content := map[string]any{"uri": uri, "mimeType": "text/html;profile=mcp-app", "text": fmt.Sprintf(mcptest.AppPage, false),
		"_meta": map[string]any{"ui": map[string]any{"csp": map[string]any{"connectDomains": []string{"https://api.test"}}, "prefersBorder": true}}}
	if edit != nil {
		edit(spec.Tools, spec.Resources, content, spec.Caps)
	}
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	return map[string]string{"tools": j(spec.Tools), "resources": j(spec.Resources), "capabilities": j(spec.Caps),
		"readResults": j(map[string]any{uri: map[string]any{"contents": []any{content}}})}
}

// appsFake is the stdio fake of appsChange.
func appsFake(t testing.TB) fake { return fake{transport: "stdio", change: appsChange(t, nil)} }

func shapedMeta(tools []map[string]any) map[string]any {
	for _, tool := range tools {
		if tool["name"] == "shaped" {
			return tool["_meta"].(map[string]any)
		}
	}
	return nil
}

// appBroken are the broken cases of the extensions' checks, each of the
// app fixture broken one way.
func appBroken(t testing.TB) []brokenCase {
	good := appsFake(t)
	brk := func(id string, edit func(tools, resources []map[string]any, read map[string]any, caps map[string]any)) brokenCase {
		return brokenCase{id: id, fake: good, break_: appsChange(t, edit)}
	}
	return []brokenCase{
		brk("extensions.identifiers", func(_, _ []map[string]any, _, caps map[string]any) {
			caps["extensions"] = map[string]any{"io.modelcontextprotocol/ui": map[string]any{}, "ui": map[string]any{}}
		}),
		brk("extensions.declared-served", func(tools, _ []map[string]any, _, _ map[string]any) { delete(shapedMeta(tools), "ui") }),
		brk("extensions.served-declared", func(_, _ []map[string]any, _, caps map[string]any) { delete(caps, "extensions") }),
		brk("apps.tool-meta", func(tools, _ []map[string]any, _, _ map[string]any) {
			shapedMeta(tools)["ui"].(map[string]any)["visibility"] = []string{"model", "everyone"}
		}),
		brk("apps.resource-uri", func(tools, _ []map[string]any, _, _ map[string]any) {
			shapedMeta(tools)["ui"].(map[string]any)["resourceUri"] = "mem://a"
		}),
		brk("apps.deprecated-key", func(tools, _ []map[string]any, _, _ map[string]any) {
			m := shapedMeta(tools)
			m["ui/resourceUri"] = m["ui"].(map[string]any)["resourceUri"]
			delete(m, "ui")
		}),
		brk("apps.resource-exists", func(tools, _ []map[string]any, _, _ map[string]any) {
			shapedMeta(tools)["ui"].(map[string]any)["resourceUri"] = "ui://fixture/gone.html"
		}),
		brk("apps.mime-type", func(_, _ []map[string]any, read, _ map[string]any) { read["mimeType"] = "text/html" }),
		brk("apps.content", func(_, _ []map[string]any, read, _ map[string]any) {
			delete(read, "text")
			read["blob"] = "not base64!"
		}),
		brk("apps.html", func(_, _ []map[string]any, read, _ map[string]any) {
			read["text"] = strings.Replace(read["text"].(string), "<!DOCTYPE html>", "", 1)
		}),
		brk("apps.csp", func(_, _ []map[string]any, read, _ map[string]any) {
			read["_meta"] = map[string]any{"ui": map[string]any{"csp": map[string]any{"resourceDomains": []string{"https:"}}}}
		}),
		brk("apps.csp-encrypted", func(_, _ []map[string]any, read, _ map[string]any) {
			read["_meta"] = map[string]any{"ui": map[string]any{"csp": map[string]any{"connectDomains": []string{"http://api.test"}}}}
		}),
		brk("apps.resource-meta", func(_, _ []map[string]any, read, _ map[string]any) {
			read["_meta"] = map[string]any{"ui": map[string]any{"prefersBorder": "yes"}}
		}),
		brk("apps.listed-mime-type", func(_, resources []map[string]any, _, _ map[string]any) {
			resources[len(resources)-1]["mimeType"] = "text/html"
		}),
		{id: "apps.text-fallback", fake: good, break_: func() map[string]string {
			c := appsChange(t, nil)
			c["callResults"] = `{"shaped":{"content":[],"structuredContent":{"n":1}}}`
			return c
		}()},
	}
}

// apps.csp is failed as mcpv app refuses the app, for a domain that
// admits everything; the content checks of an app whose resource cannot
// be read are blocked by apps.resource-exists, not passed.
func TestAppsRatedAsMcpvApp(t *testing.T) {
	t.Parallel()
	star := fake{transport: "stdio", change: appsChange(t, func(_, _ []map[string]any, read, _ map[string]any) {
		read["_meta"] = map[string]any{"ui": map[string]any{"csp": map[string]any{"connectDomains": []string{"*"}}}}
	})}
	if r := runChecks(t, star, "apps.csp")["apps.csp"]; r.Status != Failed || r.Level != MUST {
		t.Errorf("connectDomains [\"*\"]: %s", describeResult(r))
	}
	gone := fake{transport: "stdio", change: appsChange(t, func(tools, _ []map[string]any, _, _ map[string]any) {
		shapedMeta(tools)["ui"].(map[string]any)["resourceUri"] = "ui://fixture/gone.html"
	})}
	for id, r := range runChecks(t, gone, "apps") {
		switch id {
		case "apps.mime-type", "apps.content", "apps.html", "apps.csp", "apps.csp-encrypted", "apps.resource-meta", "apps.listed-mime-type":
			if r.Status != Blocked || r.BlockedBy != "apps.resource-exists" {
				t.Errorf("an app that cannot be read: %s", describeResult(r))
			}
		}
	}
}

// specLinks are where the extensions' requirements are stated: the page
// of each Spec and Section page the catalogue names (the Section's
// fragment is added).
var specLinks = map[string]string{
	cardSpec + " discovery":               "https://github.com/modelcontextprotocol/experimental-ext-server-card/blob/main/docs/discovery.md",
	cardSpec + " schema":                  "https://github.com/modelcontextprotocol/experimental-ext-server-card/blob/main/schema.ts",
	extSpec + " " + "extensions/overview": "https://modelcontextprotocol.io/extensions/overview",
	appsSpec + " apps":                    "https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx",
	skillsSpec + " skills":                "https://github.com/modelcontextprotocol/ext-skills/blob/main/specification/stable/skills.mdx",
	extTasksSpec + " tasks":               "https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md",
	"OpenAI structured-outputs":           "https://platform.openai.com/docs/guides/structured-outputs",
	"Anthropic structured-outputs":        "https://platform.claude.com/docs/en/build-with-claude/structured-outputs",
	"Gemini function-calling":             "https://ai.google.dev/gemini-api/docs/function-calling",
}

// goodCard is a card that agrees with the fixture server.
const goodCard = `{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"local.test/fixture-server","version":"0","description":"A fixture."}`

func cardBroken() []brokenCase {
	good := fake{transport: "http", change: map[string]string{"card": goodCard}}
	return []brokenCase{
		{id: "card.valid", fake: good, break_: map[string]string{"card": strings.Replace(goodCard, "local.test/fixture-server", "no-slash", 1)}},
		{id: "card.agrees", fake: good, break_: map[string]string{"card": strings.Replace(goodCard, `"version":"0"`, `"version":"9.9.9"`, 1)}},
	}
}

func addAppAndCardCases() {
	brokenCases = append(brokenCases, appBroken(&testing.T{})...)
	brokenCases = append(brokenCases, cardBroken()...)
}

// A server with apps that keep the extension passes every check there is
// (and the checks of apps run); a server without apps skips them.
func TestAppsChecks(t *testing.T) {
	t.Parallel()
	results := goodRun(t, appsFake(t))
	for _, r := range results {
		if r.Status == Failed {
			t.Errorf("%s", describeResult(r))
		}
		if (r.Area == "apps" || r.Area == "extensions") && r.Status != Passed {
			t.Errorf("%s did not run: %s", r.ID, describeResult(r))
		}
	}
	for id, r := range goodRun(t, stdio) {
		if strings.HasPrefix(id, "apps.") && (r.Status != Skipped || !strings.Contains(r.Message, "carries an app") && !strings.Contains(r.Message, "--call")) {
			t.Errorf("a server without apps: %s", describeResult(r))
		}
	}
}

// A card that lists a version the server does not speak disagrees, asked
// version by version.
func TestCardVersionNotSpoken(t *testing.T) {
	t.Parallel()
	f := fake{transport: "http", change: map[string]string{"card": cardWithRemote(`["2025-11-25","2024-10-07"]`)}}
	if r := runChecks(t, f, "card.agrees")["card.agrees"]; r.Status != Failed || !strings.Contains(r.Message, "2024-10-07") {
		t.Errorf("%s", describeResult(r))
	}
}
