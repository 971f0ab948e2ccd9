package pin

import (
	"cmp"
	"slices"

	"github.com/mcpv/mcpv/internal/surface"
)

// Approve writes into p the moves of live that approve says to (nil: every
// move), and nothing else: a moved item takes its new definition, a new
// one is added, a removed one goes; the identity and the instructions take
// live's when their move is approved (with every move, the server's
// version and protocol version too). It returns the moves written.
func (p *Server) Approve(live surface.Server, approve func(Move) bool) ([]Move, error) {
	now, err := Record(p.Name, live)
	if err != nil {
		return nil, err
	}
	all := true
	var done []Move
	for _, m := range p.Compare(live) {
		if approve != nil && !approve(m) {
			all = false
			continue
		}
		done = append(done, m)
		switch m.Kind {
		case "server":
			p.Info = now.Info
		case "instructions":
			p.Instructions = now.Instructions
		default:
			kind := Kind(m.Kind)
			items := slices.DeleteFunc(p.Items[kind], func(it Item) bool { return it.Key == m.Key })
			if it, ok := now.Find(kind, m.Key); ok {
				items = append(items, it)
			}
			slices.SortFunc(items, func(a, b Item) int { return cmp.Compare(a.Key, b.Key) })
			p.Items[kind] = items
		}
	}
	if all {
		p.Info, p.ProtocolVersion = now.Info, now.ProtocolVersion
	}
	return done, nil
}
