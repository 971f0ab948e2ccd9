package pin

import (
	"fmt"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/surface"
)

// Check decides whether a command may use the item of kind called key
// that the server lists now as raw (nil: the server does not list it):
// it may when it is pinned and its pinned members are what was pinned.
// Otherwise it is refused, with the move that says why: moved, new
// (named like a pinned one, or renamed from one), or no longer listed.
func (p *Server) Check(kind Kind, key string, raw []byte) *Move {
	var def []byte
	if raw != nil {
		var err error
		if _, def, err = Pinned(kind, raw); err != nil {
			def = raw // no object: not what was pinned, whatever it is
		}
	}
	m, moved := p.move(kind, key, def, nil)
	if !moved {
		return nil
	}
	return &m
}

// Refusal is an item a command refuses to use because it moved from its
// pin: the exit code of its own, a line that says which and how, and a
// short diff.
type Refusal struct {
	File   string // the pin file, as the user named it
	Server string // its entry
	Move   Move
}

func (e *Refusal) Error() string {
	m := e.Move
	where := fmt.Sprintf("%s, server %q", e.File, e.Server)
	label := safetext.Line(m.Label())
	switch m.How {
	case Removed:
		return fmt.Sprintf("%s is pinned (%s) but the server no longer lists it; nothing sent", label, where)
	case New:
		s := fmt.Sprintf("%s is not pinned (%s)", label, where)
		switch {
		case m.LooksLike != "":
			s += fmt.Sprintf(": it is named like pinned %s %q", m.Kind, safetext.Line(m.LooksLike))
		case m.RenamedFrom != "":
			s += fmt.Sprintf(": it has the definition of pinned %s %q, which the server no longer lists", m.Kind, safetext.Line(m.RenamedFrom))
		}
		return s + "; nothing sent"
	}
	s := fmt.Sprintf("%s moved since it was pinned (%s)", label, where)
	if len(m.Changes) > 0 {
		s += ": " + m.Changes[0].Message
		if len(m.Changes) > 1 {
			s += fmt.Sprintf(" and %d more changes", len(m.Changes)-1)
		}
	}
	return s + "; nothing sent"
}

// MaxDetails bounds the lines of a refusal's diff.
const MaxDetails = 12

// Details are the refusal's short diff, a line each, made safe.
func (e *Refusal) Details() []string { return MoveLines(e.Move, MaxDetails) }

// MoveLines are a move's changes on lines made safe, at most max of them
// (then a line that says how many more there are).
func MoveLines(m Move, max int) []string {
	var lines []string
	for _, c := range m.Changes {
		for _, l := range c.Lines(100) {
			lines = append(lines, trimObject(l, c))
		}
	}
	if m.How == New && m.Live != nil {
		lines = append(lines, "+ "+safetext.Clip(safetext.Line(string(m.Live)), 200))
	}
	if len(lines) > max {
		more := len(lines) - (max - 1)
		lines = append(lines[:max-1], fmt.Sprintf("… and %d more lines", more))
	}
	return lines
}

// trimObject is a change's line without the object's label, which the
// refusal's line names already.
func trimObject(line string, c surface.Change) string {
	if len(line) > len(c.Object) && line[:len(c.Object)] == c.Object {
		line = line[len(c.Object):]
		if len(line) > 0 && line[0] == ' ' {
			line = line[1:]
		}
		if len(line) > 0 && line[0] == ':' {
			line = "(the item)" + line
		}
	}
	return line
}
