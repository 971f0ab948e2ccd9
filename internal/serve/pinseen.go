package serve

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/uritemplate"
	"github.com/mcpv/mcpv/mcp"
)

// pinSeen is what serve has seen of an upstream session's lists: each
// item by its key, with the members a pin holds, as last listed. The
// server's list_changed forgets its list, and what was asked before it.
type pinSeen struct {
	mu    sync.Mutex // guards the fields below
	gen   uint64     // moved by every list_changed
	lists map[pin.Kind]*seenList
	bytes int // of every list
	// twice are the keys a page listed more than once, by kind, until
	// the list changes: withheld from every page after.
	twice map[pin.Kind]map[string]bool
	// docs are the documents of apps read for the pin, by URI, until a
	// resource changes (docGen moves then).
	docs   map[string]surface.Document
	docGen uint64
	// unwalkable are the lists whose walk failed (or that are too large
	// to keep), until they change: a page is not a reason to walk them
	// again.
	unwalkable map[pin.Kind]bool
}

// seenList is one list as seen. A complete one is never changed once
// kept (a new one takes its place), so that it may be read without the
// lock.
type seenList struct {
	defs     map[string]json.RawMessage
	order    []string                // the keys in the order listed
	parsed   []*uritemplate.Template // a template list's templates, in order (nil where one cannot be read)
	complete bool
	bytes    int
	// twice are the keys a walk found more than once; apps, of a tool
	// list walked whole, the tools whose _meta speaks of ui, as listed.
	twice map[string]bool
	apps  map[string]json.RawMessage
	// uis are, of a resource list walked whole, the _meta.ui of each
	// resource that has one (an app document's, as listed).
	uis map[string]json.RawMessage
}

// noteTwice keeps a key a page listed more than once (asked for at mark).
func (s *pinSeen) noteTwice(kind pin.Kind, key string, mark uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != mark {
		return
	}
	if s.twice[kind] == nil {
		lazy.Put(&s.twice, kind, map[string]bool{})
	}
	if len(s.twice[kind]) < maxSaid {
		s.twice[kind][key] = true
	}
}

// listedTwice reports whether the key of kind was seen listed more than
// once, on a page or in a walk.
func (s *pinSeen) listedTwice(kind pin.Kind, key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.twice[kind][key] {
		return true
	}
	l := s.lists[kind]
	return l != nil && l.twice[key]
}

// doc is the app document at uri as last read for the pin, and the
// generation of the documents, to give keepDoc with one read now.
func (s *pinSeen) doc(uri string) (surface.Document, bool, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[uri]
	return d, ok, s.docGen
}

// keepDoc keeps an app document read (from gen), a bounded number.
func (s *pinSeen) keepDoc(uri string, d surface.Document, gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.docGen != gen || len(s.docs) >= maxSaid {
		return
	}
	lazy.Put(&s.docs, uri, d)
}

// mark is the generation of the lists, taken before a page or a walk is
// asked for.
func (s *pinSeen) mark() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// note keeps one item of a page a client listed (asked for at mark).
func (s *pinSeen) note(kind pin.Kind, key string, def json.RawMessage, mark uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != mark {
		return
	}
	l := s.lists[kind]
	if l == nil {
		l = &seenList{defs: map[string]json.RawMessage{}}
		lazy.Put(&s.lists, kind, l)
	}
	old, had := l.defs[key]
	if had && bytes.Equal(old, def) || s.bytes+len(key)+len(def) > maxSeenBytes {
		return
	}
	if l.complete {
		// The server changed it without a word: the list kept is read
		// without the lock, so a new one takes its place.
		c := *l
		c.defs, c.order, c.parsed = maps.Clone(l.defs), slices.Clone(l.order), slices.Clone(l.parsed)
		c.twice, c.apps, c.uis = maps.Clone(l.twice), maps.Clone(l.apps), maps.Clone(l.uis)
		l = &c
		s.lists[kind] = l
	}
	grow := len(def) - len(old)
	if !had {
		grow += len(key)
		l.order = append(l.order, key)
		if kind == pin.Template {
			t, _ := uritemplate.Parse(key)
			l.parsed = append(l.parsed, t)
		}
	}
	l.defs[key] = def
	l.bytes += grow
	s.bytes += grow
}

// keep keeps a list walked whole (from mark), in place of what was kept.
func (s *pinSeen) keep(kind pin.Kind, l *seenList, mark uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := 0
	if o := s.lists[kind]; o != nil {
		old = o.bytes
	}
	if s.gen != mark {
		return
	}
	if s.bytes-old+l.bytes > maxSeenBytes {
		lazy.Put(&s.unwalkable, kind, true)
		return
	}
	lazy.Put(&s.lists, kind, l)
	s.bytes += l.bytes - old
}

// failed remembers that the list of kind, as it was at mark, could not
// be walked, until it changes.
func (s *pinSeen) failed(kind pin.Kind, mark uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == mark {
		lazy.Put(&s.unwalkable, kind, true)
	}
}

// walkFailed reports whether the list of kind could not be walked since
// it last changed.
func (s *pinSeen) walkFailed(kind pin.Kind) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unwalkable[kind]
}

// whole is the list of kind walked whole, if one is kept.
func (s *pinSeen) whole(kind pin.Kind) *seenList {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.lists[kind]; l != nil && l.complete {
		return l
	}
	return nil
}

// changed forgets the lists a list_changed of the server is about.
func (s *pinSeen) changed(method string) {
	if method == "notifications/resources/list_changed" || method == "notifications/resources/updated" {
		s.mu.Lock()
		s.docs, s.docGen = nil, s.docGen+1 // a document may have changed with its resource
		s.mu.Unlock()
	}
	lists := mcp.ChangedLists(method)
	if lists == nil { // an update changes no list
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	for _, l := range lists {
		k := pin.Kind(l.Item)
		delete(s.twice, k)
		delete(s.unwalkable, k)
		if l := s.lists[k]; l != nil {
			s.bytes -= l.bytes
			delete(s.lists, k)
		}
	}
}
