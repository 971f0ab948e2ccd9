package pin

import (
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
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
	return ptr(p.move(kind, key, p.masked(def), nil))
}

// ptr is m when it moved, else nil.
func ptr(m Move, moved bool) *Move {
	if !moved {
		return nil
	}
	return &m
}

// CheckListed is Check of the item the server lists now under key, n
// times (every page's), first the first of them: none is not listed,
// one is checked as Check does, and more than one is refused as listed
// twice, whatever each is.
func (p *Server) CheckListed(kind Kind, key string, first []byte, n int) *Move {
	switch n {
	case 0:
		return p.Check(kind, key, nil)
	case 1:
		return p.Check(kind, key, first)
	}
	return new(ListedTwice(kind, key))
}

// CheckInstructions decides whether the instructions the server gives
// now (nil: none) may reach a model: they may when they are those
// pinned. Otherwise they are refused with the move that says how they
// changed, came or went.
func (p *Server) CheckInstructions(live *string) *Move {
	return ptr(p.instructionsMove(live))
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
	case Twice:
		return fmt.Sprintf("%s is listed more than once by the server (%s): a client cannot tell which one it uses; nothing sent", label, where)
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
	if rest, ok := strings.CutPrefix(line, c.Object); ok && rest != "" {
		line = strings.TrimPrefix(rest, " ")
		if strings.HasPrefix(line, ":") {
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
	// Same is how many entries are of servers that call themselves
	// Server, under config names, when more than one is: which is meant
	// cannot be told.
	Same int
}

func (e *NoEntryError) Error() string {
	what := "this server"
	if e.Server != "" {
		what = fmt.Sprintf("server %q", safetext.Line(e.Server))
	}
	s := fmt.Sprintf("%s pins no entry for %s", e.File, what)
	switch n := len(e.Have); {
	case e.Same > 1:
		s += fmt.Sprintf(" (it pins %d servers that call themselves so; name one with --server NAME)", e.Same)
	case n == 0:
		s += " (it pins no server)"
	case n == 1:
		s += fmt.Sprintf(" (it pins %q)", safetext.Line(e.Have[0]))
	default:
		s += fmt.Sprintf(" (it pins %d servers; name one with --server NAME)", n)
	}
	return s + "; nothing sent"
}

// Entry is the entry of f that a server is held to. A server named by a
// config entry (configName, its name there) is pinned under that name; one
// given by its command line or URL under the name its serverInfo gives
// (infoName). Each is found under the other key too, with a note that
// says so, when the entry there is of a server that calls itself the
// same: a pin made with -s calc is found for the same server given by
// its command line, and the other way round. An entry of a server that
// calls itself otherwise is never taken for it.
func (f *File) Entry(configName, infoName string) (s *Server, note string, err error) {
	var have []string
	for _, s := range f.Servers {
		have = append(have, s.Name)
	}
	if configName != "" {
		if s, ok := f.Server(configName); ok {
			return s, "", nil
		}
		if s, ok := f.Server(infoName); ok && infoName != "" && s.InfoName() == infoName {
			return s, fmt.Sprintf("it pins server %q under the name its serverInfo gives, %q, not its config name; held to that entry", safetext.Line(configName), safetext.Line(infoName)), nil
		}
		return nil, "", &NoEntryError{Server: configName, Have: have}
	}
	if infoName == "" {
		if len(f.Servers) == 1 {
			return f.Servers[0], "", nil // a server that gives no name, and a file of one
		}
		return nil, "", &NoEntryError{Have: have}
	}
	if s, ok := f.Server(infoName); ok {
		return s, "", nil
	}
	var same []*Server
	for _, s := range f.Servers {
		if s.InfoName() == infoName {
			same = append(same, s)
		}
	}
	switch len(same) {
	case 0:
		return nil, "", &NoEntryError{Server: infoName, Have: have}
	case 1:
		return same[0], fmt.Sprintf("it pins server %q under its config name %q; held to that entry", safetext.Line(infoName), safetext.Line(same[0].Name)), nil
	}
	return nil, "", &NoEntryError{Server: infoName, Have: have, Same: len(same)}
}

// InfoName is the name the pinned serverInfo gives, or "".
func (s *Server) InfoName() string { return rawjson.Key(s.Info, "name") }
