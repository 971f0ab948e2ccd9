package serve

// Pins: a served server held to a pin file (mcpv pin). What moved since
// it was pinned (an item changed, new, named like a pinned one, renamed,
// or gone, and the instructions) is withheld from every client as the
// guard withholds what it hides: left out of every list and of the
// initialize result, and a request for it refused. An item is offered
// when the guard allows it and it is as pinned.
//
// Each move is said once on serve's log. The file is looked at again, at
// most once per Pin.Poll, when the pin is needed; when it changed
// (approved), each upstream session's lists are walked again, and the
// clients hear that a list changed when what they may see of it did. A
// file that cannot be used any more leaves the pin as it was, said once.
//
// What serve has seen of an upstream session's lists is kept until the
// server says a list changed; a request for an item is checked against
// it, or against what the server lists now (pinitems.go).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/safetext"
)

// Pin is the pin file a served server is held to.
type Pin struct {
	// Label is the file as the user named it, for messages.
	Label string
	// Entry, when set, is the name of the file's entry for the server;
	// else the file's only entry, else the one named as its serverInfo.
	Entry string
	// Approve is the command that approves the moves, for the log.
	Approve string
	// Read reads and parses the file, bounded.
	Read func() (*pin.File, error)
	// Stat tells whether the file changed since it was read.
	Stat func() (fs.FileInfo, error)
	// Poll is how often, at most, the file is looked at for a change;
	// DefaultPinPoll when 0.
	Poll time.Duration
	// Strict refuses a server whose instructions are not those pinned
	// (--pin-strict): its session is not admitted. Without it, the
	// instructions are withheld and said once.
	Strict bool
}

// DefaultPinPoll is how often, at most, serve looks at a pin file for a
// change.
const DefaultPinPoll = time.Second

// maxSaid bounds the moves said one by one: a server that makes up new
// items without end fills no log.
const maxSaid = 1024

// pinGate is the pin a Server holds its upstream sessions to.
type pinGate struct {
	cfg  *Pin
	log  *slog.Logger
	mask func([]byte) []byte // the entry and what it is compared with go through it

	mu     sync.Mutex         // guards the fields below
	file   *pin.File          // as last read whole
	entry  *pin.Server        // the server's entry in file; nil until known
	name   string             // the serverInfo name of the first session admitted
	looked time.Time          // when the file was last looked at
	info   fs.FileInfo        // what it was then; nil when it could not be looked at
	bad    bool               // a file that cannot be used was said, since the last good one
	note   string             // the last note of an entry found under the server's other name, said
	said   map[string]bool    // the moves said, by their line
	ups    map[*upstream]bool // the upstream sessions held to the pin
	ctx    context.Context    // ends when serving does: the walks after a change stop
	cancel context.CancelFunc // ends ctx
	walks  sync.WaitGroup     // the walks after a change
}

// newPinGate reads the pin file; the server's entry is found now when
// no serverInfo is needed for it, else when the first upstream session
// is admitted.
func newPinGate(cfg *Pin, log *slog.Logger, mask func([]byte) []byte) (*pinGate, error) {
	info, _ := cfg.Stat()
	f, err := cfg.Read()
	if err != nil {
		return nil, err
	}
	g := &pinGate{cfg: cfg, log: log, mask: mask, file: f, info: info, looked: time.Now(), said: map[string]bool{}, ups: map[*upstream]bool{}}
	g.ctx, g.cancel = context.WithCancel(context.Background())
	if cfg.Entry != "" || len(f.Servers) <= 1 {
		if g.entry, err = g.entryOf(f, ""); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// entryOf is the server's entry in f, the server calling itself name,
// masked as what the server lists is; an entry found under the server's
// other name is said once.
func (g *pinGate) entryOf(f *pin.File, name string) (*pin.Server, error) {
	e, note, err := f.Entry(g.cfg.Entry, name)
	e = e.Masked(g.mask)
	if ne, ok := errors.AsType[*pin.NoEntryError](err); ok {
		ne.File = g.cfg.Label
	}
	if note != "" && note != g.note {
		g.note = note
		g.log.Info("serve: " + safetext.Line(g.cfg.Label+": "+note))
	}
	return e, err
}

// admit holds an upstream session to the pin: its entry is found by its
// serverInfo's name when not known yet, and a change of the file reaches
// it from now on.
func (g *pinGate) admit(u *upstream) error {
	init := u.conn.State().InitializeResult
	name := init.ServerName()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.entry == nil {
		e, err := g.entryOf(g.file, name)
		if err != nil {
			return err
		}
		g.entry = e
	}
	g.name = cmp.Or(g.name, name)
	if g.cfg.Strict {
		if m := g.entry.CheckInstructions(init.Instructions); m != nil {
			return &pin.Refusal{File: g.cfg.Label, Server: g.entry.Name, Move: *m}
		}
	}
	g.ups[u] = true
	return nil
}

// current is the entry the server is held to now, the file looked at
// again first when Poll has passed; nil only before any session was
// admitted to a file whose entry needs the server's name.
func (g *pinGate) current() *pin.Server {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.look()
	return g.entry
}

// look reads the file again when it changed; g.mu is held.
func (g *pinGate) look() {
	now := time.Now()
	if now.Sub(g.looked) < cmp.Or(max(g.cfg.Poll, 0), DefaultPinPoll) {
		return
	}
	g.looked = now
	fi, err := g.cfg.Stat()
	if err != nil {
		g.info = nil
		if errors.Is(err, fs.ErrNotExist) {
			err = errors.New("it is gone")
		} else if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err
		}
		g.unusable(fmt.Errorf("pin file %s: %v", g.cfg.Label, err))
		return
	}
	if g.info != nil && os.SameFile(g.info, fi) && fi.Size() == g.info.Size() && fi.ModTime().Equal(g.info.ModTime()) {
		return
	}
	g.info = fi
	f, err := g.cfg.Read()
	if err != nil {
		g.unusable(err)
		return
	}
	if g.entry == nil {
		g.file, g.bad = f, false // the entry is found when a session is admitted
		return
	}
	entry, err := g.entryOf(f, g.name)
	if err != nil {
		g.unusable(err)
		return
	}
	old := g.entry
	g.file, g.entry, g.bad = f, entry, false
	same := !slices.ContainsFunc(pin.Kinds, func(kind pin.Kind) bool { return !sameKind(old, entry, kind) })
	if same || g.ctx.Err() != nil {
		return // nothing a client may see changed, or serving is over
	}
	for u := range g.ups {
		if u.ended() {
			delete(g.ups, u) // gone: nothing to list
			continue
		}
		g.walks.Go(func() { // walk after a pin's change: ends when u's lists are walked (each bounded by pinWalkWait), or serving ends
			u.relist(g.ctx, old, entry)
		})
	}
}

// unusable says, once until the file can be used again, that it cannot
// be; the pin stays as it was. g.mu is held.
func (g *pinGate) unusable(err error) {
	if g.bad {
		return
	}
	g.bad = true
	why := strings.TrimSuffix(err.Error(), "; nothing sent") // a NoEntryError's, which says it for a command
	g.log.Info("serve: " + safetext.Line(why) + "; holding the server to the pin as it was read before")
}

// say tells the log of a move, once.
func (g *pinGate) say(m pin.Move) {
	line := "serve: " + safetext.Clip(safetext.Line(g.moveLine(m)), 1000)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.said[line] || len(g.said) > maxSaid {
		return
	}
	g.said[line] = true
	if len(g.said) > maxSaid { // once: the next ones are not said
		line = fmt.Sprintf("serve: more than %d items moved since they were pinned in %s; mcpv pin --check %s tells them all", maxSaid, safetext.Line(g.cfg.Label), safetext.Line(g.cfg.Label))
	}
	g.log.Info(line)
}

// moveLine says how an item moved, and that it is withheld.
func (g *pinGate) moveLine(m pin.Move) string {
	label := m.Label()
	s := fmt.Sprintf("%s moved since it was pinned in %s", label, g.cfg.Label)
	switch {
	case m.How == pin.Twice: // no approval makes it one
		return fmt.Sprintf("%s listed twice: the server lists it more than once, and a client cannot tell which one it uses; withheld until it lists it once", label)
	case m.Kind == "instructions":
		s = fmt.Sprintf("the instructions moved since they were pinned in %s", g.cfg.Label)
	case m.How == pin.Removed:
		s = fmt.Sprintf("%s moved since it was pinned in %s: the server no longer lists it", label, g.cfg.Label)
	case m.How == pin.New && m.LooksLike != "":
		s = fmt.Sprintf("%s is not pinned in %s: it is named like pinned %s %q", label, g.cfg.Label, m.Kind, m.LooksLike)
	case m.How == pin.New && m.RenamedFrom != "":
		s = fmt.Sprintf("%s is not pinned in %s: it has the definition of pinned %s %q, which the server no longer lists", label, g.cfg.Label, m.Kind, m.RenamedFrom)
	case m.How == pin.New:
		s = fmt.Sprintf("%s is not pinned in %s: it is new", label, g.cfg.Label)
	}
	if m.How == pin.Moved && m.Kind != "instructions" && len(m.Changes) > 0 {
		s += ": " + m.Changes[0].Message
		if len(m.Changes) > 1 {
			s += fmt.Sprintf(" and %d more changes", len(m.Changes)-1)
		}
	}
	return s + "; withheld until approved (" + g.cfg.Approve + ")"
}

// close stops the walks after a change, and waits for them; no walk
// starts after it.
func (g *pinGate) close() {
	g.mu.Lock()
	g.cancel()
	g.mu.Unlock()
	g.walks.Wait()
}

// sameKind reports whether two entries pin the same items of kind.
func sameKind(a, b *pin.Server, kind pin.Kind) bool {
	return slices.EqualFunc(a.Items[kind], b.Items[kind], func(x, y pin.Item) bool {
		return x.Key == y.Key && x.Digest == y.Digest
	})
}
