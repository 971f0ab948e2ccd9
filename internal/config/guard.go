package config

import (
	"strings"

	"github.com/mcpv/mcpv/internal/yamlnode"
)

// Guard is what an entry lets the clients of 'mcpv serve' see and use:
// glob patterns for tools by name, resources by URI, prompts by name, and
// read_only for only the tools that say readOnlyHint.
type Guard struct {
	AllowTools, DenyTools         []string
	AllowResources, DenyResources []string
	AllowPrompts, DenyPrompts     []string
	ReadOnly                      bool
}

// ParseGuard reads an entry's guard: block; no block (nil) is no guard.
func ParseGuard(name string, n *yamlnode.Node) (*Guard, error) {
	if n == nil {
		return nil, nil
	}
	if n.Kind != yamlnode.Object {
		return nil, yamlnode.ErrorAt(n, "server %q: guard must be an object, not %s", name, n.Kind.Noun())
	}
	g := &Guard{}
	lists := map[string]*[]string{
		"allow_tools": &g.AllowTools, "deny_tools": &g.DenyTools,
		"allow_resources": &g.AllowResources, "deny_resources": &g.DenyResources,
		"allow_prompts": &g.AllowPrompts, "deny_prompts": &g.DenyPrompts,
	}
	at := map[string]*yamlnode.Node{} // each list's node
	for i, k := range n.Keys {
		v := n.Vals[i]
		if k.Text == "read_only" {
			if v.Kind != yamlnode.Bool {
				return nil, yamlnode.ErrorAt(v, "server %q: guard.read_only must be true or false, not %s", name, v.Kind.Noun())
			}
			g.ReadOnly = v.JSON == "true"
			continue
		}
		to, ok := lists[k.Text]
		if !ok {
			return nil, yamlnode.ErrorAt(k, "server %q: unknown guard key %q (want allow_tools, deny_tools, allow_resources, deny_resources, allow_prompts, deny_prompts or read_only)", name, k.Text)
		}
		list, err := ParseStrings(name, "guard."+k.Text, v)
		if err != nil {
			return nil, err
		}
		*to = list
		at[k.Text] = v
	}
	if err, ok := g.Validate().(*EmptyPatternError); ok {
		return nil, yamlnode.ErrorAt(at[err.List], "server %q: guard.%s", name, err)
	}
	return g, nil
}

// Validate reports a pattern that is empty or all spaces, which matches
// nothing (an allow list holding one would hide everything it seems to
// offer): an *EmptyPatternError naming the list.
func (g Guard) Validate() error {
	for _, l := range []struct {
		key      string
		patterns []string
	}{
		{"allow_tools", g.AllowTools}, {"deny_tools", g.DenyTools},
		{"allow_resources", g.AllowResources}, {"deny_resources", g.DenyResources},
		{"allow_prompts", g.AllowPrompts}, {"deny_prompts", g.DenyPrompts},
	} {
		for _, p := range l.patterns {
			if strings.TrimSpace(p) == "" {
				return &EmptyPatternError{List: l.key}
			}
		}
	}
	return nil
}

// EmptyPatternError is a guard list holding an empty pattern; List is
// its key in a config entry's guard (allow_tools...).
type EmptyPatternError struct{ List string }

func (e *EmptyPatternError) Error() string {
	return e.List + ": an empty pattern matches nothing"
}
