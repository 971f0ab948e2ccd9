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

// CheckInstructions decides whether the instructions the server gives
// now (nil: none) may reach a model: they may when they are those
// pinned. Otherwise they are refused with the move that says how they
// changed, came or went.
func (p *Server) CheckInstructions(live *string) *Move {
	m, moved := p.instructionsMove(live)
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
		switch n := len(m.Changes) - 1; {
		case n == 1:
			s += " and 1 more change"
		case n > 1:
			s += fmt.Sprintf(" and %d more changes", n)
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
		_, live := surface.Excerpts("", string(m.Live), 200)
		lines = append(lines, "+ "+live)
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

// NoEntryError is a pin file that pins no entry for the server a command
// talks to: held to a pin that says nothing of it, the server is refused
// whole.
type NoEntryError struct {
	File   string
	Server string   // the name looked for ("" when the server gives none)
	Have   []string // the servers the file pins
}

func (e *NoEntryError) Error() string {
	what := "this server"
	if e.Server != "" {
		what = fmt.Sprintf("server %q", safetext.Line(e.Server))
	}
	s := fmt.Sprintf("%s pins no entry for %s", e.File, what)
	switch len(e.Have) {
	case 0:
		s += " (it pins no server)"
	case 1:
		s += fmt.Sprintf(" (it pins %q)", safetext.Line(e.Have[0]))
	default:
		s += fmt.Sprintf(" (it pins %d servers; name one with --server NAME)", len(e.Have))
	}
	return s + "; nothing sent"
}

// Entry is the entry of f that a server is held to: the one called
// configName (a config entry's name), else f's only entry when the server
// has no config name, else the one called infoName (the name the server
// gives itself).
func (f *File) Entry(configName, infoName string) (*Server, error) {
	var have []string
	for _, s := range f.Servers {
		have = append(have, s.Name)
	}
	if configName != "" {
		if s, ok := f.Server(configName); ok {
			return s, nil
		}
		return nil, &NoEntryError{Server: configName, Have: have}
	}
	if len(f.Servers) == 1 {
		return f.Servers[0], nil
	}
	if s, ok := f.Server(infoName); ok && infoName != "" {
		return s, nil
	}
	return nil, &NoEntryError{Server: infoName, Have: have}
}
