package check

// The surface: what the server lists, held to the specification's rules
// by the lint of mcpv test (internal/surface), one check per rule. A
// finding the lint counts as an error fails the check; one it counts as a
// warning (mcpv cannot check a schema, a URI beyond ASCII) is a note.

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// ruleCheck is a check made of one lint rule.
func ruleCheck(id string, rules ...string) *Check {
	return &Check{ID: id, run: func(t *T) {
		t.lintDone()
		for _, f := range t.r.facts.lintOf(surface.SeverityWarning, rules...) {
			t.Note("%s: %s", f.Object, f.Message)
		}
		lintFindings(t, surface.SeverityError, rules...)
	}}
}

func surfaceChecks() []*Check {
	return []*Check{
		ruleCheck("surface.tool-names", surface.RuleToolName),
		ruleCheck("surface.input-schema", surface.RuleInputSchema),
		ruleCheck("surface.output-schema", surface.RuleOutputSchema),
		ruleCheck("surface.uris", surface.RuleURI),
		ruleCheck("surface.uri-templates", surface.RuleURITemplate),
		ruleCheck("surface.annotations", surface.RuleAnnotations),
		ruleCheck("surface.icons", surface.RuleIcons),
		// This check holds every listed tool's x-mcp-header
		// annotations to the constraints a client reads them by (mcp.ParamHeaders):
		// a client over Streamable HTTP leaves a tool that breaks one out of its
		// list.
		modernCheck("surface.param-headers", needs{capability: "tools"}, func(t *T) {
			var found []string
			for _, tool := range t.listed("tools/list") {
				for _, p := range mcp.ParamHeaderProblems(member(tool, "inputSchema")) {
					if found = append(found, fmt.Sprintf("tool %q, %v", str1(member(tool, "name")), p)); len(found) == 1 {
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
			t.noteIf(len(found) > 5, "and %d more", len(found)-5)
			t.Fail("%s: a client over Streamable HTTP leaves the tool out of its list", found[0])
		}),
		// This check finds the x-mcp-header annotations of every listed
		// tool on a property that, by its name, its title or its header's name,
		// holds a credential or personal data: intermediaries see headers.
		modernCheck("surface.param-header-secrets", needs{capability: "tools"}, func(t *T) {
			for _, tool := range t.listed("tools/list") {
				name, _ := str(member(tool, "name"))
				schema := member(tool, "inputSchema")
				headers, _ := mcp.ParamHeaders(schema) // those that break a constraint are surface.param-headers'
				for _, h := range headers {
					prop := schema
					for _, p := range h.Path() {
						prop = member(member(prop, "properties"), p)
					}
					path := strings.Join(h.Path(), ".")
					s := cmp.Or(sensitiveField(path, prop, headerSecrets), sensitiveField(h.Name(), prop, headerSecrets))
					t.failGotIf(s != "", clipped(tool), "tool %q, property %q: x-mcp-header %q mirrors a sensitive argument (%s) in a header, which network intermediaries see", name, path, h.Name(), s)
				}
			}
		}),
		ruleCheck("surface.meta-keys", surface.RuleMeta),
	}
}

// headerSecrets are what no argument mirrored in a header should be:
// credentials (as a form's, asks.elicitation-sensitive) and personal data.
var headerSecrets = append(slices.Clip(sensitive), "email", "phone", "ssn", "passport")
