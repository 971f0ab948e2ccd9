package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// skillsChange is goodSpec made a server of the skills extension: the
// pdf-processing skill (SKILL.md and a supporting file), its files
// readable, directoryRead declared; skillMD is its SKILL.md as served,
// entry edits the entry.
func skillsChange(skillMD string, entry func(map[string]any)) map[string]string {
	e := map[string]any{
		"uri":         "skill://pdf-processing/SKILL.md",
		"frontmatter": map[string]any{"name": "pdf-processing", "description": "Extract, fill, and assemble PDF documents", "metadata": map[string]any{"version": 2.1}},
		"resources": []any{
			map[string]any{"uri": "skill://pdf-processing/SKILL.md", "digest": mcptest.Digest(skillMD), "size": len(skillMD)},
			map[string]any{"uri": "skill://pdf-processing/references/FORMS.md", "digest": mcptest.Digest(mcptest.FormsMD), "size": len(mcptest.FormsMD)},
		},
	}
	if entry != nil {
		entry(e)
	}
	j := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	read := func(uri, text string) any {
		return map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/markdown", "text": text}}}
	}
	return map[string]string{
		"capabilities": `{"tools":{},"prompts":{},"resources":{},"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}}`,
		"skills":       "[" + j(e) + "]",
		"readResults": j(map[string]any{"skill://pdf-processing/SKILL.md": read("skill://pdf-processing/SKILL.md", skillMD),
			"skill://pdf-processing/references/FORMS.md": read("skill://pdf-processing/references/FORMS.md", mcptest.FormsMD)}),
	}
}

func skillsBroken() []brokenCase {
	good := fake{transport: "stdio", change: skillsChange(mcptest.SkillMD, nil)}
	return []brokenCase{
		{id: "skills.methods", fake: good, break_: merge(skillsChange(mcptest.SkillMD, nil), map[string]string{"methodNotFound": `["skills/get"]`})},
		{id: "skills.entries", fake: good, break_: skillsChange(mcptest.SkillMD, func(e map[string]any) {
			e["resources"] = e["resources"].([]any)[1:] // SKILL.md left out
		})},
		// A SKILL.md whose frontmatter says another description than its
		// entry, its digest and size the entry's own.
		{id: "skills.manifest", fake: good, break_: skillsChange(strings.Replace(mcptest.SkillMD, "Extract, fill", "Extract and fill", 1), nil)},
		{id: "skills.directory", fake: good, break_: merge(skillsChange(mcptest.SkillMD, nil), map[string]string{"methodNotFound": `["resources/directory/read"]`})},
	}
}

func addSkillsCases() { brokenCases = append(brokenCases, skillsBroken()...) }

// A server of skills whose listing is broken gets one failure: the checks
// that need the listing are blocked by the one that names the defect.
func TestSkillsOneDefect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		change  map[string]string
		by      string
		blocked []string
	}{
		{merge(skillsChange(mcptest.SkillMD, nil), map[string]string{"methodNotFound": `["skills/list"]`}), "skills.methods", []string{"skills.entries", "skills.manifest", "skills.directory"}},
		{skillsChange(mcptest.SkillMD, func(e map[string]any) { e["resources"] = 7 }), "skills.entries", []string{"skills.manifest"}},
	} {
		r := runChecks(t, fake{transport: "stdio", change: tc.change}, "skills")
		for id, res := range r {
			switch {
			case id == tc.by && res.Status != Failed, id != tc.by && res.Status == Failed:
				t.Errorf("%s", describeResult(res))
			}
		}
		for _, id := range tc.blocked {
			if r[id].Status != Blocked && !(id == "skills.directory" && r[id].Status == Skipped) {
				t.Errorf("not blocked: %s", describeResult(r[id]))
			}
		}
	}
}
