// Package serverstate keeps what mcpv may remember of a server from one
// run to the next, in one file of the state directory per server: the era
// it spoke (so that the next run need not probe for it), and the list
// results it allows to be kept (their ttlMs and cacheScope, in the
// 2026-07-28 era; a result that gives no hints, in either era, for the
// user's DefaultTTL), so that a call while the tool list is fresh finds
// its tool without asking.
//
// A server is known by everything that makes it the server it is
// (Identity): a stdio server by its command, arguments, directory,
// framing and whole environment, with the size and time of each file they
// name (the program rebuilt is another server); an HTTP server by its URL,
// transport and CA file. A result of cacheScope "private" is kept for the
// credentials that asked alone, told apart by a hash of them, never their
// value; where the credentials cannot be told apart, nothing private is
// kept.
//
// The lists are kept by internal/listcache's rules, the era for EraLife,
// and the file is trusted only when it is the user's alone and mcpv's
// own: a regular file (not a link), owned by the user and readable by
// nobody else, no larger than MaxFileBytes, in a directory that safedir
// finds private, its JSON the one its digest line says (file.go).
// Anything else is ignored (Ignored says why, for --verbose), and
// overwritten by the next save. What is kept is compared with what the
// server says by what it means, not by its bytes (rawjson.Same): a server
// that spaces its JSON is the same server every run. A save writes only
// what changed, as a new file renamed into place, so that runs at once
// never see half a file; the directory is kept under MaxDirBytes by
// removing the files least recently written. Nothing here fails a
// command: a file that cannot be read is none, and one that cannot be
// written is not.
package serverstate

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/listcache"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// EraLife is how long an era is remembered after the server last said it:
// a server of the initialize era is probed again after that, in case it
// has learnt the modern one.
const EraLife = 24 * time.Hour

// Identity is what tells one server, and one set of credentials, from
// another.
type Identity struct {
	// Server is a digest of what makes the server the one it is.
	Server string
	// Credentials is a digest of the credentials sent to it, "" when
	// there are none beyond what Server holds (a stdio server's
	// environment). Private says they can be told apart: results of
	// cacheScope "private" may be kept for them.
	Credentials string
	Private     bool
}

// Store is what is kept of one server. It is safe for concurrent use.
type Store struct {
	dir, root, path string
	id              Identity
	now             func() time.Time
	dirBytes        int64 // MaxDirBytes, but in tests
	// Ignored says why the file was not read, "" when it was or there
	// was none.
	Ignored string
	// Trace, when set, is told of each request answered from what was
	// kept (for --verbose).
	Trace func(line string)
	// DefaultTTL is how long a list result that gives no hints of its own
	// (listcache.Hinted) is kept, in either era; 0 keeps none.
	DefaultTTL time.Duration
	// Fresh answers no lookup from what was kept: every list is asked of
	// the server, and what it answers kept for the next run.
	Fresh bool

	mu       sync.Mutex // guards era, recalled and served
	era      *eraRecord
	recalled *mcp.Recall     // what Recall gave the run
	served   map[string]bool // the lists a lookup was answered from in this run

	lists listcache.Cache
	dirty atomic.Bool // something to save

	// sum is the digest of the file as read or last written: a save that
	// would write what it holds writes nothing. Save alone uses it.
	sum []byte
}

// file is what a state file holds.
type file struct {
	Version int              `json:"version"`
	Server  string           `json:"server"` // Identity.Server: a file copied under another name is not this server's
	Era     *eraRecord       `json:"era,omitempty"`
	Lists   []listcache.Kept `json:"lists,omitempty"`
	// Credentials is Identity.Credentials of the run that kept the
	// private results among Lists.
	Credentials string `json:"credentials,omitempty"`
}

const fileVersion = 1

// eraRecord is the era the server last said it spoke.
type eraRecord struct {
	State mcp.State `json:"state"`
	Seen  time.Time `json:"seen"`
	// Until is how long server/discover's result may be taken for the
	// server's answer (its ttlMs); zero when not at all. Private is its
	// cacheScope, for Credentials alone.
	Until       time.Time `json:"until,omitzero"`
	Private     bool      `json:"private,omitempty"`
	Credentials string    `json:"credentials,omitempty"`
}

// Open reads what is kept of the server id names, in dir (a directory of
// the state root, root); now is the clock (nil: time.Now). It never
// fails: a file it cannot trust is none (Store.Ignored says why).
func Open(dir, root string, id Identity, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	s := &Store{dir: dir, root: root, path: pathOf(dir, id.Server), id: id, now: now, served: map[string]bool{}, dirBytes: MaxDirBytes}
	s.lists.Now = now
	f, sum, why := read(root, dir, s.path)
	if f == nil || f.Version != fileVersion || f.Server != id.Server {
		if why == "" && f != nil {
			why = "it is another server's, or of another version"
		}
		s.Ignored = why
		return s
	}
	s.era, s.sum = f.Era, sum
	s.lists.Import(f.Lists, id.Private && f.Credentials == id.Credentials)
	return s
}

// Recall is the era to start the run in, nil when none is remembered (or
// not for long enough ago to be trusted still): the client probes.
func (s *Store) Recall() *mcp.Recall {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.era
	now := s.now()
	if e == nil || now.Sub(e.Seen) > EraLife || now.Before(e.Seen.Add(-time.Minute)) {
		return nil
	}
	r := &mcp.Recall{State: e.State, Where: s.path}
	if e.State.Modern && now.Before(e.Until) {
		r.Fresh = !e.Private || s.id.Private && e.Credentials == s.id.Credentials
	}
	s.recalled = r
	return r
}

// Learnt is told the era the server spoke in the run (mcp.Client.Learnt).
func (s *Store) Learnt(st mcp.State, discovered json.RawMessage, ok bool) {
	if !ok {
		return
	}
	now := s.now()
	rec := &eraRecord{State: st, Seen: now}
	if ttl, scope, fresh := listcache.FreshFor(discovered); st.Modern && fresh && (scope == "public" || s.id.Private) {
		rec.Until, rec.Private = now.Add(ttl), scope == "private"
		if rec.Private {
			rec.Credentials = s.id.Credentials
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.era
	if old != nil && (old.State.Modern != st.Modern || old.State.Version != st.Version) {
		// Another era: the lists kept in the one before are another
		// server's.
		for _, change := range mcp.Changes {
			s.lists.Notified(change)
		}
	}
	if old != nil && old.State.Modern == rec.State.Modern && old.State.Version == rec.State.Version &&
		rawjson.Same(old.State.InitializeResult.Raw(), rec.State.InitializeResult.Raw()) {
		if s.recalled != nil && !s.recalled.State.Modern || now.Sub(old.Seen) < EraLife/24 && old.Until.IsZero() && rec.Until.IsZero() {
			// Said by an initialize only (no probe: the era stays as
			// old as its probe), or said again within the hour: no
			// file to write for it.
			return
		}
	}
	s.era = rec
	s.dirty.Store(true)
}

// ForgetEra drops the era remembered, and the lists kept with it: the
// server neither confirmed nor corrected them (mcp.ChangedError), and the
// next run finds its era afresh.
func (s *Store) ForgetEra() {
	s.mu.Lock()
	s.era = nil
	s.mu.Unlock()
	for _, change := range mcp.Changes {
		s.lists.Notified(change)
	}
	s.dirty.Store(true)
}

// Kept implements mcp.KeptLists.
func (s *Store) Kept(method string, params json.RawMessage, seek string, lookup bool) (json.RawMessage, func(json.RawMessage, bool)) {
	var r listcache.Request
	var ok bool
	if lookup && !s.Fresh {
		var res json.RawMessage
		if res, r, ok = s.lists.Lookup(method, params, seek); res != nil {
			s.mu.Lock()
			s.served[listOf(method)] = true
			s.mu.Unlock()
			if s.Trace != nil {
				s.Trace(method + ": answered from the list the server let be kept, still fresh")
			}
			return res, nil
		}
	} else {
		r, ok = s.lists.Ask(method, params)
	}
	if !ok {
		return nil, nil
	}
	return nil, func(result json.RawMessage, modern bool) {
		ttl, scope, fresh := listcache.FreshFor(result)
		if !modern || !fresh {
			if modern && listcache.Hinted(result) {
				return
			}
			// No hints (the initialize era has none: a ttlMs there
			// means nothing): for the credentials that asked alone.
			ttl, scope = s.DefaultTTL, "private"
		}
		if ttl <= 0 || scope == "private" && !s.id.Private {
			return
		}
		s.lists.KeepFor(r, result, ttl, scope == "private")
		s.dirty.Store(true)
	}
}

// Opened is told the state of the session a run opened: a server whose
// serverInfo, capabilities or instructions are not those the lists were
// kept from (another version behind the same command line or URL) is
// another server, and nothing kept of it answers.
func (s *Store) Opened(st mcp.State) {
	s.mu.Lock()
	old := s.era
	s.mu.Unlock()
	if old == nil || described(old.State.InitializeResult) == described(st.InitializeResult) {
		return
	}
	for _, change := range mcp.Changes {
		s.lists.Notified(change)
	}
	s.dirty.Store(true)
}

// described is what an initialize result (or the modern era's discover
// result) says the server is, in the canonical form of what it means
// however the server wrote it: its serverInfo, capabilities and
// instructions.
func described(r mcp.InitializeResult) string {
	if r.Raw() == nil {
		return ""
	}
	info, _ := rawjson.Canonical(r.ServerInfo)
	caps, _ := rawjson.Canonical(rawjson.Marshal(r.Capabilities))
	return string(info) + "\x00" + string(caps) + "\x00" + *cmp.Or(r.Instructions, new(string))
}

// listOf is the list a kept method belongs to, as a list_changed
// notification names it: its capability (tools/list: tools,
// resources/templates/list: resources).
func listOf(method string) string {
	l, _ := mcp.ListOf(method)
	return l.Capability
}

// Served reports whether a lookup of the list ("tools", "prompts",
// "resources") was answered from what was kept, in this run.
func (s *Store) Served(list string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served[list]
}

// Forget drops what is kept of the list: the server showed it changed
// (it refused a call made from it, or a name it did not hold).
func (s *Store) Forget(list string) {
	s.Notified("notifications/" + list + "/list_changed")
	s.mu.Lock()
	delete(s.served, list)
	s.mu.Unlock()
}

// Notified is told each notification from the server: a list_changed
// drops what is kept of that list.
func (s *Store) Notified(method string) {
	if _, ok := mcp.ListChanged(method); ok {
		s.lists.Notified(method)
		s.dirty.Store(true)
	}
}

// Save writes what is kept, when it changed in this run (not when it is
// what the file holds already); an error is the file's alone, and the
// caller may pass over it.
func (s *Store) Save() error {
	if !s.dirty.Load() {
		return nil
	}
	s.mu.Lock()
	f := file{Version: fileVersion, Server: s.id.Server, Era: s.era}
	s.mu.Unlock()
	for _, k := range s.lists.Export() {
		if k.Private && !s.id.Private {
			continue
		}
		f.Lists = append(f.Lists, k)
	}
	if slices.ContainsFunc(f.Lists, func(k listcache.Kept) bool { return k.Private }) {
		f.Credentials = s.id.Credentials
	}
	return s.write(f)
}
