package check

// The surface: what the server lists, held to the specification's rules
// by the lint of mcpv test (internal/surface), one check per rule. A
// finding the lint counts as an error fails the check; one it counts as a
// warning (mcpv cannot check a schema, a URI beyond ASCII) is a note.

import (
	"fmt"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// ruleCheck is a check made of one lint rule.
func ruleCheck(id, title string, level Level, spec, section, quote string, rules ...string) *Check {
	return &Check{
		ID: id, Title: title, Level: level, Spec: spec, Section: section, Quote: quote,
		run: func(t *T) {
			t.lintDone()
			for _, f := range t.r.facts.lintOf(surface.SeverityWarning, rules...) {
				t.Note("%s: %s", f.Object, f.Message)
			}
			lintFindings(t, surface.SeverityError, rules...)
		},
	}
}

func surfaceChecks() []*Check {
	return []*Check{
		ruleCheck("surface.tool-names", "tool names are 1 to 128 of A-Z a-z 0-9 _ - .", SHOULD, "2025-11-25", "server/tools#tool-names", "Tool names SHOULD be between 1 and 128 characters in length (inclusive). ... The following SHOULD be the only allowed characters: uppercase and lowercase ASCII letters (A-Z, a-z), digits (0-9), underscore (_), hyphen (-), and dot (.)", surface.RuleToolName),
		ruleCheck("surface.input-schema", "each tool's inputSchema is an object schema, valid in its dialect", MUST, "2025-11-25", "server/tools#tool", "inputSchema: JSON Schema defining expected parameters ... MUST be a valid JSON Schema object (not null)", surface.RuleInputSchema),
		ruleCheck("surface.output-schema", "each outputSchema is valid in its dialect", MUST, "2025-11-25", "basic#schema-validation", "Schemas MUST be valid according to their declared or default dialect", surface.RuleOutputSchema),
		ruleCheck("surface.uris", "resource URIs are RFC 3986 URIs", MUST, "2025-11-25", "server/resources#custom-uri-schemes", "Custom URI schemes MUST be in accordance with RFC3986", surface.RuleURI),
		ruleCheck("surface.uri-templates", "resource templates are RFC 6570 URI templates", MUST, "2025-11-25", "schema#resourcetemplate", "A URI template (according to RFC 6570) that can be used to construct resource URIs. ... @format uri-template ... uriTemplate: string;", surface.RuleURITemplate),
		ruleCheck("surface.annotations", "annotations have the schema's shape", MUST, "2025-11-25", "schema#annotations", `export type Role = "user" | "assistant"; ... audience?: Role[]; ... @minimum 0 @maximum 1 ... priority?: number;`, surface.RuleAnnotations),
		ruleCheck("surface.icons", "icons are objects with a src URI", MUST, "2025-11-25", "schema#icon", "A standard URI pointing to an icon resource. ... @format uri ... src: string;", surface.RuleIcons),
		{
			ID: "surface.param-headers", Title: "x-mcp-header names are unique header tokens, on string, integer or boolean properties reached by properties alone", Level: MUST,
			Spec: "2026-07-28", Section: "server/tools#x-mcp-header",
			Quote: "Constraints on x-mcp-header values: MUST NOT be empty ... MUST match HTTP field-name token syntax (1*tchar, RFC 9110 Section 5.1) ... MUST NOT contain control characters, including carriage return (CR, \\r) or line feed (LF, \\n) ... MUST be case-insensitively unique among all x-mcp-header values in the inputSchema ... MUST only be applied to parameters with primitive types (integer, string, boolean). Parameters with type number are not permitted. ... MUST only be applied to properties that are statically reachable from the schema root",
			needs: needs{era: "modern", capability: "tools"},
			run:   paramHeaderAnnotations,
		},
		ruleCheck("surface.meta-keys", "_meta keys follow the key name format", MUST, "2025-11-25", "basic#meta", "Labels MUST start with a letter and end with a letter or digit ... Unless empty, [the name] MUST begin and end with an alphanumeric character", surface.RuleMeta),
	}
}

// paramHeaderAnnotations holds every listed tool's x-mcp-header
// annotations to the constraints a client reads them by (mcp.ParamHeaders):
// a client over Streamable HTTP leaves a tool that breaks one out of its
// list.
func paramHeaderAnnotations(t *T) {
	var found []string
	for _, tool := range t.listed("tools/list") {
		name, _ := str(member(tool, "name"))
		for _, p := range mcp.ParamHeaderProblems(member(tool, "inputSchema")) {
			if found = append(found, fmt.Sprintf("tool %q, %v", name, p)); len(found) == 1 {
				t.Got(clipped(tool))
			}
		}
	}
	if len(found) == 0 {
		return
	}
	for _, f := range found[1:min(len(found), 5)] {
		t.Note("%s", f)
	}
	if len(found) > 5 {
		t.Note("and %d more", len(found)-5)
	}
	t.Fail("%s: a client over Streamable HTTP leaves the tool out of its list", found[0])
}
