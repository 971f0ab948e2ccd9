package config

import "github.com/mcpv/mcpv/internal/yamlnode"

// extensionsOf reads an entry's extensions: an object of extension names
// (an identifier, or the short name mcpv knows it by) to booleans, false
// turning one off for the server. Which names are known is the session's
// to say, which reads NoExtensions.
func extensionsOf(name string, n *yamlnode.Node) (off []string, err error) {
	if n == nil || n.Kind == yamlnode.Null {
		return nil, nil
	}
	if n.Kind != yamlnode.Object {
		return nil, yamlnode.ErrorAt(n, "server %q: extensions must be an object of extension names to booleans, not %s", name, n.Kind.Noun())
	}
	for i, k := range n.Keys {
		v := n.Vals[i]
		if v.Kind != yamlnode.Bool {
			return nil, yamlnode.ErrorAt(v, "server %q: extensions.%s must be a boolean (false turns it off), not %s", name, k.Text, v.Kind.Noun())
		}
		if v.JSON == "false" {
			off = append(off, k.Text)
		}
	}
	return off, nil
}
