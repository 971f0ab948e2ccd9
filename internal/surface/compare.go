package surface

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpv/mcpv/internal/canon"
)

// CompareServers tells how the surface new differs from old, each change
// with its class: who the server says it is (its name and title are
// security-relevant, its version and protocol version compatible), its
// instructions (security-relevant), each list as Diff tells it, and the
// resources by URI. What one side does not know (a snapshot's identity,
// its resources) is not compared. A new tool or prompt named like
// another of its kind (canon.LookAlike), or carrying the description of
// one that went, is security-relevant, whatever else it is.
func CompareServers(old, new Server) []Change {
	var d differ
	if old.HasIdentity && new.HasIdentity {
		d.identity(old, new)
		d.instructions(old.Instructions, new.Instructions)
	}
	d.changes = append(d.changes, Diff(old.Snapshot, new.Snapshot)...)
	if old.HasResources && new.HasResources {
		d.objects("resource", old.Resources, new.Resources, func(raw json.RawMessage) string { return stringMember(raw, "uri") }, d.resource)
	}
	d.lookAlikes("tool", old.Tools, new.Tools)
	d.lookAlikes("prompt", old.Prompts, new.Prompts)
	return d.changes
}

// DiffItem tells how one item of a kind ("tool", "prompt", "resource",
// "resource template") differs from what it was.
func DiffItem(kind string, old, new json.RawMessage) []Change {
	var d differ
	var compare func(string, map[string]any, map[string]any)
	switch kind {
	case "tool":
		compare = d.tool
	case "prompt":
		compare = d.prompt
	case "resource template":
		compare = d.template
	default:
		compare = d.resource
	}
	compare(label(kind, old), decode(old), decode(new))
	return d.changes
}

// resource compares a resource's members: its URI names it, its texts
// are a model's to read.
func (d *differ) resource(label string, o, n map[string]any) {
	for _, k := range memberKeys(o, n, "uri") {
		ov, inO := o[k]
		nv, inN := n[k]
		d.member(label, k, ov, inO, nv, inN)
	}
}

// identity compares who the servers say they are.
func (d *differ) identity(old, new Server) {
	o, n := decode(old.Info), decode(new.Info)
	for _, k := range memberKeys(o, n) {
		ov, inO := o[k]
		nv, inN := n[k]
		if jsonText(ov, inO) == jsonText(nv, inN) {
			continue
		}
		class := ClassCompatible
		if k == "name" || k == "title" {
			class = ClassSecurity
		}
		d.addClass(class, "server", "serverInfo"+pathKey(k), "%s changed from %s to %s", k, jsonText(ov, inO), jsonText(nv, inN))
	}
	if old.ProtocolVersion != new.ProtocolVersion && old.ProtocolVersion != "" && new.ProtocolVersion != "" {
		d.addClass(ClassCompatible, "server", "protocolVersion", "protocol version changed from %q to %q", old.ProtocolVersion, new.ProtocolVersion)
	}
}

// instructions compares the servers' instructions, which a host gives a
// model: any change is security-relevant.
func (d *differ) instructions(old, new *string) {
	switch {
	case old == nil && new == nil, old != nil && new != nil && *old == *new:
		return
	case old == nil:
		d.addClass(ClassSecurity, "server", "instructions", "instructions added").New = *new
	case new == nil:
		d.addClass(ClassSecurity, "server", "instructions", "instructions removed").Old = *old
	default:
		c := d.addClass(ClassSecurity, "server", "instructions", "instructions changed")
		c.Old, c.New = *old, *new
	}
}

// lookAlikes makes security-relevant each item added to a list that is
// named like another of the list (old or new), or carries the
// description of an item that went: a definition moved to a look-alike
// name, or renamed, is what a rug pull looks like. Each name is read
// once: a list of thousands costs its length, not its square.
func (d *differ) lookAlikes(kind string, old, new []json.RawMessage) {
	oldNames, newNames := map[string]bool{}, map[string]bool{}
	skeletons := map[string][]string{} // skeleton -> the names of both lists that have it
	for _, l := range []struct {
		items []json.RawMessage
		names map[string]bool
	}{{old, oldNames}, {new, newNames}} {
		for _, it := range l.items {
			n := nameOf(it)
			l.names[n] = true
			if sk := canon.Skeleton(n); !slices.Contains(skeletons[sk], n) {
				skeletons[sk] = append(skeletons[sk], n)
			}
		}
	}
	gone := map[string]string{} // description -> the first item of old that new no longer lists with it
	for _, it := range old {
		n, desc := nameOf(it), stringMember(it, "description")
		if _, seen := gone[desc]; !newNames[n] && desc != "" && !seen {
			gone[desc] = n
		}
	}
	added := map[string]int{} // an object's label -> its change "added"
	for i, c := range d.changes {
		if c.Path == "" && c.Message == "added" {
			added[c.Object] = i
		}
	}
	for _, it := range new {
		name := nameOf(it)
		i, ok := added[label(kind, it)]
		if oldNames[name] || !ok {
			continue
		}
		c := &d.changes[i]
		if like := likeOf(name, skeletons); like != "" {
			c.Class, c.Message = max(c.Class, ClassSecurity), fmt.Sprintf("added, named like %s %q", kind, like)
		} else if from := gone[stringMember(it, "description")]; from != "" {
			c.Class, c.Message = max(c.Class, ClassSecurity), fmt.Sprintf("added, with the description of removed %s %q (renamed)", kind, from)
		}
	}
}

// likeOf is another name of the same skeleton as name, or "".
func likeOf(name string, skeletons map[string][]string) string {
	for _, other := range skeletons[canon.Skeleton(name)] {
		if other != name {
			return other
		}
	}
	return ""
}
