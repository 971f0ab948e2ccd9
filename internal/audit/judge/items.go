package judge

import (
	"encoding/json"

	"github.com/mcpv/mcpv/internal/audit"
)

// ItemsOf are the items of t's surface to judge: the server's
// instructions, then each tool, prompt, resource and template as the
// server sent it. (Audit empties t's lists: take them first.)
func ItemsOf(t audit.Target) []Item {
	s := t.Surface
	line := func(kind, name string) int {
		if t.Lines == nil {
			return 0
		}
		return t.Lines(kind, name)
	}
	var out []Item
	if s.Instructions != nil && *s.Instructions != "" {
		b, _ := json.Marshal(map[string]string{"instructions": *s.Instructions})
		out = append(out, Item{Server: s.Name, Kind: "instructions", Source: t.Source, JSON: b})
	}
	for _, l := range []struct {
		kind, key string
		items     []json.RawMessage
	}{{"tool", "name", s.Tools}, {"prompt", "name", s.Prompts}, {"resource", "uri", s.Resources}, {"resource template", "uriTemplate", s.ResourceTemplates}} {
		for _, raw := range l.items {
			var m map[string]json.RawMessage
			var name string
			if json.Unmarshal(raw, &m) != nil || json.Unmarshal(m[l.key], &name) != nil {
				continue // no item a rule could place: the audit says so (unread-text)
			}
			out = append(out, Item{Server: s.Name, Kind: l.kind, Name: name, Source: t.Source, Line: line(l.kind, name), JSON: raw})
		}
	}
	return out
}
