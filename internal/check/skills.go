package check

// The skills extension (io.modelcontextprotocol/skills), where the server
// declares it: its methods served, each entry of the extension's shape
// (internal/skills reads it as a host does), each skill's SKILL.md read
// and verified against its entry (digest, size, frontmatter), and a
// skill's directory read where directoryRead is declared. Only what the
// server lists is read, the first maxReads skills.

import (
	"encoding/json"

	"github.com/mcpv/mcpv/internal/skills"
	"github.com/mcpv/mcpv/mcp"
)

// maxSkillPages bounds the pages of skills/list a run reads.
const maxSkillPages = 100

func skillsChecks() []*Check {
	return []*Check{
		{ID: "skills.methods", run: func(t *T) {
			entries := listSkills(t)
			uri := "skill://mcpv-check-no-such-skill/SKILL.md"
			if len(entries) > 0 {
				uri = entries[0].URI
			}
			params, _ := json.Marshal(map[string]string{"uri": uri})
			if _, rerr := t.call("skills/get", params); rerr != nil && rerr.Code == mcp.CodeMethodNotFound {
				t.FailExchange("skills/get "+string(params), errText(rerr), "skills/get is not found")
			}
		}},
		{ID: "skills.entries", run: func(t *T) {
			for _, e := range listSkills(t) {
				if e.err != nil {
					t.FailExchange("skills/list", clipped(e.raw), "%v", e.err)
				}
			}
		}},
		{ID: "skills.manifest", run: func(t *T) {
			read := 0
			for _, e := range listSkills(t) {
				t.blockIf(e.err != nil, "skills.entries", "an entry is not of the extension's shape: %v", e.err)
				if read++; read > maxReads {
					t.Note("the first %d skills were read", maxReads)
					break
				}
				t.Sent("resources/read " + e.URI)
				if _, _, err := skills.Load(t.ctx, t.r.main, e.Skill, func(string, ...any) {}); err != nil {
					if _, ok := err.(*skills.Error); ok {
						t.Fail("%v", err)
					}
					t.failErr("reading "+e.URI, err)
				}
			}
			t.skipIf(read == 0, "the server lists no skill")
		}},
		{ID: "skills.directory", run: func(t *T) {
			var settings struct {
				DirectoryRead bool `json:"directoryRead"`
			}
			t.decode(member(member(t.r.facts.capabilities(), "extensions"), mcp.SkillsExtension), &settings, "the skills extension's settings")
			t.skipIf(!settings.DirectoryRead, "the server does not declare directoryRead")
			entries := listSkills(t)
			t.skipIf(len(entries) == 0 || entries[0].err != nil, "the server lists no skill whose directory to read")
			params, _ := json.Marshal(map[string]string{"uri": entries[0].Root()})
			res, rerr := t.callShown("resources/directory/read", params)
			switch {
			case rerr != nil:
				t.FailGot(errText(rerr), "a skill's directory was not read")
			case member(res, "resources") == nil:
				t.FailGot(clipped(res), "the result has no resources")
			}
		}},
	}
}

// skillEntry is one entry of skills/list, read as a host reads it.
type skillEntry struct {
	skills.Skill
	raw json.RawMessage
	err error // how it breaks the extension's rules
}

// listSkills walks skills/list to its end (bounded); the check is
// skipped where the server declares no skills, and blocked by
// skills.methods where skills/list is not found.
func listSkills(t *T) []skillEntry {
	t.skipIf(!t.r.main.HasExtension(mcp.SkillsExtension), "the server does not declare %s", mcp.SkillsExtension)
	var out []skillEntry
	var cursor *string
	for range maxSkillPages {
		params := json.RawMessage(`{}`)
		if cursor != nil {
			params, _ = json.Marshal(map[string]string{"cursor": *cursor})
		}
		res, rerr := t.call("skills/list", params)
		if rerr != nil {
			t.Sent("skills/list " + string(params))
			t.Got(errText(rerr))
			switch {
			case rerr.Code != mcp.CodeMethodNotFound:
				t.Fail("skills/list was refused")
			case t.check.ID == "skills.methods":
				t.Fail("skills/list is not found")
			}
			t.Block("skills.methods", "skills/list is not found")
		}
		var page struct {
			Skills []json.RawMessage `json:"skills"`
			Next   *string           `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil || page.Skills == nil {
			t.FailExchange("skills/list "+string(params), clipped(res), "a page of skills/list has no skills array")
		}
		for _, raw := range page.Skills {
			s, err := skills.Parse(raw)
			out = append(out, skillEntry{Skill: s, raw: raw, err: err})
		}
		if page.Next == nil || *page.Next == "" {
			return out
		}
		cursor = page.Next
	}
	t.Note("skills/list was read for %d pages, and ended there", maxSkillPages)
	return out
}

// capabilities are the capabilities the server declared.
func (f *facts) capabilities() json.RawMessage { return member(f.init, "capabilities") }
