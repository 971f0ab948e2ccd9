package check

// Schema portability (--portable): each tool's input and output schema
// graded against the subset of JSON Schema a model provider accepts
// (internal/portable), a check per host. A host's rule is not the
// specification's: what breaks it is a warning, a failure with --strict.

import (
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/portable"
)

func portableChecks() []*Check {
	var out []*Check
	for _, h := range portable.Hosts() {
		spec, section := hostSpec(h.Source)
		out = append(out, &Check{
			ID: "portable." + h.ID, Title: "every tool's schemas are inside the subset " + h.Name + " accepts", Level: HOST,
			Spec: spec, Section: section, Quote: h.Subset,
			needs: needs{capability: "tools", portable: h.ID},
			run: func(t *T) {
				var found []portable.Finding
				tools := t.listed("tools/list")
				for _, tl := range tools {
					name, _ := str(member(tl, "name"))
					for _, which := range []string{"inputSchema", "outputSchema"} {
						for _, f := range portable.Grade(member(tl, which), which, h.ID) { // none when tl has no such schema
							f.Schema = fmt.Sprintf("tool %q %s", name, f.Schema)
							found = append(found, f)
						}
					}
				}
				if len(found) == 0 {
					t.Note("%d tools' schemas graded", len(tools))
					return
				}
				t.Sent("tools/list")
				for _, f := range found[1:min(len(found), 5)] {
					t.Note("%s", f)
				}
				t.Fail("%d places %s rejects: %s", len(found), h.ID, found[0])
			},
		})
	}
	return out
}

// hostSpec is how the catalogue names a host's documentation: the host
// ("OpenAI") and the page with its section ("structured-outputs#...").
func hostSpec(source string) (spec, section string) {
	for prefix, name := range map[string]string{
		"https://platform.openai.com/docs/guides/":               "OpenAI",
		"https://platform.claude.com/docs/en/build-with-claude/": "Anthropic",
		"https://ai.google.dev/gemini-api/docs/":                 "Gemini",
	} {
		if rest, ok := strings.CutPrefix(source, prefix); ok {
			return name, rest
		}
	}
	return source, ""
}
