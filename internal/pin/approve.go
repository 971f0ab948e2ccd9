package pin

import (
	"slices"

	"github.com/mcpv/mcpv/internal/surface"
)

// Approve writes into p the moves of live that approve says to (nil: every
// move), and nothing else: a moved item takes its new definition, a new
// one is added (a new tool with its app), a removed one goes (a tool with
// its app); a tool's app takes its new entry; the identity and the
// instructions take live's when their move is approved (with every move,
// the server's version and protocol version too, and the apps of an
// entry pinned before mcpv pinned them). A key listed twice cannot be
// approved: there is nothing to pin until the server lists it once. It
// returns the moves written.
func (p *Server) Approve(live surface.Server, approve func(Move) bool) ([]Move, error) {
	now, err := Record(p.Name, live)
	if err != nil {
		return nil, err
	}
	now = now.Masked(p.mask) // what is written is what is compared
	all := true
	var done []Move
	for _, m := range p.Compare(live) {
		if m.How == Twice || approve != nil && !approve(m) {
			all = false
			continue
		}
		done = append(done, m)
		switch m.Kind {
		case "server":
			p.Info = now.Info
		case "instructions":
			p.Instructions = now.Instructions
		case App:
			p.Apps = replaced(p.Apps, now.Apps, m.Key)
		default:
			kind := Kind(m.Kind)
			p.Items[kind] = replaced(p.Items[kind], now.Items[kind], m.Key)
			if kind == Tool && p.HasApps {
				p.Apps = replaced(p.Apps, now.Apps, m.Key)
			}
		}
	}
	if all {
		p.Info, p.ProtocolVersion = now.Info, now.ProtocolVersion
		if !p.HasApps {
			p.HasApps = true
			for _, a := range now.Apps {
				if _, ok := p.Find(Tool, a.Key); ok {
					p.Apps = append(p.Apps, a)
				}
			}
		}
	}
	return done, nil
}

// replaced is items with the entry called key as now has it: taken from
// now, or gone when now has none.
func replaced(items, now []Item, key string) []Item {
	items = slices.DeleteFunc(items, func(it Item) bool { return it.Key == key })
	if it, ok := find(now, key); ok {
		items = append(items, it)
	}
	sortItems(items)
	return items
}
