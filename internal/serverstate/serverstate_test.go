package serverstate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// place is a state directory of a test's own: root, and dir under it.
func place(t *testing.T) (dir, root string) {
	root = t.TempDir()
	return filepath.Join(root, "mcpv", "servers"), root
}

var (
	server  = Identity{Server: strings.Repeat("ab", 32), Private: true}
	modern  = mcp.State{Version: mcp.ModernVersion, Modern: true, InitializeResult: initOf(`{"protocolVersion":"2026-07-28","capabilities":{"tools":{}}}`)}
	toolsRQ = json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
)

// initOf is raw, an initialize result the test writes well formed, parsed.
func initOf(raw string) mcp.InitializeResult {
	r, err := mcp.ParseInitializeResult(json.RawMessage(raw))
	if err != nil {
		panic(err)
	}
	return r
}

// keepTools has s keep a tools/list page of one tool, as a server of
// the modern era answered it.
func keepTools(t *testing.T, s *Store, result string) {
	t.Helper()
	keepIn(t, s, result, true)
}

// keepIn has s keep a tools/list page as a server of the era answered it.
func keepIn(t *testing.T, s *Store, result string, modern bool) {
	t.Helper()
	res, keep := s.Kept("tools/list", toolsRQ, "", false)
	if res != nil || keep == nil {
		t.Fatalf("a listing: %s, keep %v", res, keep != nil)
	}
	keep(json.RawMessage(result), modern)
}

// lookupTool is a call's lookup of tool t1: the kept page, or nil.
func lookupTool(s *Store) json.RawMessage {
	res, _ := s.Kept("tools/list", toolsRQ, "t1", true)
	return res
}

// TestKeptBetweenRuns: what one run learns and keeps is the next run's,
// from one file the user's alone: the era (with server/discover's result
// fresh for its ttlMs), and the lists for theirs; a listing is never
// answered from them, a lookup is, and says so.
func TestKeptBetweenRuns(t *testing.T) {
	dir, root := place(t)
	clk := &clock{t: time.Unix(1_000_000, 0)}
	s := Open(dir, root, server, clk.now)
	if s.Ignored != "" || s.Recall() != nil {
		t.Fatalf("a first run: ignored %q, recall %+v", s.Ignored, s.Recall())
	}
	s.Learnt(modern, json.RawMessage(`{"ttlMs":60000,"cacheScope":"public","resultType":"complete"}`), true)
	keepTools(t, s, `{"tools":[{"name":"t1","inputSchema":{"type":"object"}}],"ttlMs":30000,"resultType":"complete"}`)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Dir(dir)} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, mode %v; want 0700", p, err, fi.Mode())
		}
	}
	fi, err := os.Stat(pathOf(dir, server.Server))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the state file: %v, mode %v; want 0600", err, fi.Mode())
	}

	clk.t = clk.t.Add(10 * time.Second)
	s = Open(dir, root, server, clk.now)
	if s.Ignored != "" {
		t.Fatal(s.Ignored)
	}
	r := s.Recall()
	if r == nil || !r.Fresh || !r.State.Modern || string(r.State.InitializeResult.Raw()) != string(modern.InitializeResult.Raw()) {
		t.Fatalf("Recall = %+v", r)
	}
	var traced []string
	s.Trace = func(line string) { traced = append(traced, line) }
	if res, keep := s.Kept("tools/list", toolsRQ, "", false); res != nil || keep == nil {
		t.Errorf("a listing answered from what was kept: %s", res)
	}
	if s.Served("tools") {
		t.Error("served before any lookup")
	}
	if res := lookupTool(s); !strings.Contains(string(res), `"t1"`) || !s.Served("tools") || len(traced) != 1 {
		t.Errorf("lookup = %s, served %v, traced %q", res, s.Served("tools"), traced)
	}

	clk.t = clk.t.Add(25 * time.Second) // past the list's ttl, within discover's
	s = Open(dir, root, server, clk.now)
	if lookupTool(s) != nil {
		t.Error("a list past its ttl answered")
	}
	if r := s.Recall(); r == nil || !r.Fresh {
		t.Errorf("Recall = %+v, want discover's result still fresh", r)
	}
	clk.t = clk.t.Add(time.Minute)
	s = Open(dir, root, server, clk.now)
	if r := s.Recall(); r == nil || r.Fresh {
		t.Errorf("Recall = %+v, want the era without a fresh result", r)
	}
	clk.t = clk.t.Add(EraLife)
	s = Open(dir, root, server, clk.now)
	if r := s.Recall(); r != nil {
		t.Errorf("an era a day old recalled: %+v", r)
	}
	// Another server's identity reads nothing of it.
	other := Open(dir, root, Identity{Server: strings.Repeat("cd", 32), Private: true}, clk.now)
	if other.Recall() != nil {
		t.Error("another server recalled this one's era")
	}
}

// TestNothingKeptWithoutATTL: ttlMs 0, none, or an incomplete result keep
// nothing; a list_changed, or a Forget (a refused call), drops what was.
func TestNothingKeptWithoutATTL(t *testing.T) {
	dir, root := place(t)
	clk := &clock{t: time.Unix(1_000_000, 0)}
	s := Open(dir, root, server, clk.now)
	for _, res := range []string{
		`{"tools":[{"name":"t1"}],"ttlMs":0}`,
		`{"tools":[{"name":"t1"}]}`,
		`{"tools":[{"name":"t1"}],"ttlMs":-5}`,
		`{"tools":[{"name":"t1"}],"ttlMs":"60000"}`,
		`{"tools":[{"name":"t1"}],"ttlMs":1000,"resultType":"input_required"}`,
	} {
		keepTools(t, s, res)
		if lookupTool(s) != nil {
			t.Errorf("%s kept", res)
		}
	}
	s.Learnt(modern, json.RawMessage(`{"ttlMs":0}`), true)
	s.Save()
	if r := Open(dir, root, server, clk.now).Recall(); r == nil || r.Fresh {
		t.Errorf("discover with ttlMs 0: Recall %+v, want the era alone", r)
	}

	// A server that says its list stays fresh for ever is believed for a
	// day at most.
	keepTools(t, s, `{"tools":[{"name":"t1"}],"ttlMs":1e300}`)
	s.Learnt(modern, json.RawMessage(`{"ttlMs":1e300}`), true)
	s.Save()
	clk.t = clk.t.Add(24*time.Hour + time.Second)
	if s := Open(dir, root, server, clk.now); lookupTool(s) != nil || s.Recall() != nil {
		t.Error("a ttlMs of 1e300 kept the list, or the era, for more than a day")
	}
	clk.t = clk.t.Add(-24*time.Hour - time.Second)

	keepTools(t, s, `{"tools":[{"name":"t1"}],"ttlMs":60000}`)
	s.Notified("notifications/tools/list_changed")
	if lookupTool(s) != nil {
		t.Error("kept after tools/list_changed")
	}
	keepTools(t, s, `{"tools":[{"name":"t1"}],"ttlMs":60000}`)
	s.Save()
	s = Open(dir, root, server, clk.now)
	if lookupTool(s) == nil {
		t.Fatal("not kept")
	}
	s.Forget("tools")
	if lookupTool(s) != nil || s.Served("tools") {
		t.Error("kept after Forget")
	}
	s.Save()
	if lookupTool(Open(dir, root, server, clk.now)) != nil {
		t.Error("what was forgotten is back in the next run")
	}
}

// TestPrivateResults: a result of cacheScope "private" is kept for the
// credentials that asked alone (by their digest), and not at all where
// they cannot be told apart; a public one is every credential's.
func TestPrivateResults(t *testing.T) {
	dir, root := place(t)
	clk := &clock{t: time.Unix(1_000_000, 0)}
	alice := Identity{Server: server.Server, Credentials: "alice", Private: true}
	bob := Identity{Server: server.Server, Credentials: "bob", Private: true}
	unknown := Identity{Server: server.Server, Credentials: "?", Private: false}

	s := Open(dir, root, alice, clk.now)
	keepTools(t, s, `{"tools":[{"name":"t1"}],"ttlMs":60000,"cacheScope":"private"}`)
	s.Learnt(modern, json.RawMessage(`{"ttlMs":60000,"cacheScope":"private"}`), true)
	s.Save()
	if s := Open(dir, root, alice, clk.now); lookupTool(s) == nil || !s.Recall().Fresh {
		t.Error("alice's private results are not hers in the next run")
	}
	if s := Open(dir, root, bob, clk.now); lookupTool(s) != nil || s.Recall() == nil || s.Recall().Fresh {
		t.Error("bob got alice's private results")
	}
	s = Open(dir, root, unknown, clk.now)
	if lookupTool(s) != nil {
		t.Error("credentials that cannot be told apart got a private result")
	}
	keepTools(t, s, `{"tools":[{"name":"t1"}],"ttlMs":60000,"cacheScope":"private"}`)
	if lookupTool(s) != nil {
		t.Error("a private result kept for credentials that cannot be told apart")
	}
	keepTools(t, s, `{"tools":[{"name":"t1"}],"ttlMs":60000,"cacheScope":"public"}`)
	s.Save()
	if lookupTool(Open(dir, root, bob, clk.now)) == nil {
		t.Error("a public result is not every credential's")
	}
}

// TestFilesNotTrusted: a state file that is a link, another user's, not
// private, not a regular file, too large, damaged, another server's, or
// not written by mcpv (edited by hand, written whole by another program:
// its JSON is not the one its digest line says), is ignored, never
// followed or believed; the next save puts a file of its own in its
// place, and a link's target is left as it was.
func TestFilesNotTrusted(t *testing.T) {
	good := func(t *testing.T, dir, root string) []byte {
		s := Open(dir, root, server, nil)
		s.Learnt(modern, nil, true)
		if err := s.Save(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(pathOf(dir, server.Server))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name  string
		plant func(t *testing.T, path string, content []byte)
	}{
		{"a link to a file", func(t *testing.T, path string, content []byte) {
			target := filepath.Join(t.TempDir(), "bashrc")
			os.WriteFile(target, content, 0o600)
			os.Symlink(target, path)
		}},
		{"readable by others", func(t *testing.T, path string, content []byte) { os.WriteFile(path, content, 0o644) }},
		{"a directory", func(t *testing.T, path string, _ []byte) { os.Mkdir(path, 0o700) }},
		{"damaged", func(t *testing.T, path string, content []byte) { os.WriteFile(path, content[:len(content)/2], 0o600) }},
		{"too large", func(t *testing.T, path string, _ []byte) {
			os.WriteFile(path, []byte(`{"version":1,"pad":"`+strings.Repeat("x", MaxFileBytes)+`"}`), 0o600)
		}},
		{"another server's", func(t *testing.T, path string, content []byte) {
			os.WriteFile(path, []byte(strings.Replace(string(content), server.Server, strings.Repeat("ef", 32), 1)), 0o600)
		}},
		{"edited by hand", func(t *testing.T, path string, content []byte) {
			edited := strings.Replace(string(content), `"tools":{}`, `"tools":{},"sampling":{}`, 1)
			if edited == string(content) {
				t.Fatalf("nothing to edit in %s", content)
			}
			os.WriteFile(path, []byte(edited), 0o600)
		}},
		{"written whole by another program", func(t *testing.T, path string, _ []byte) {
			f := file{Version: fileVersion, Server: server.Server, Era: &eraRecord{State: modern, Seen: time.Now()}}
			b, _ := json.Marshal(f)
			os.WriteFile(path, b, 0o600)
		}},
		{"another user's", func(t *testing.T, path string, content []byte) {
			if os.Getuid() != 0 {
				t.Skip("needs a second user: root can make a file another user's")
			}
			os.WriteFile(path, content, 0o600)
			if err := os.Chown(path, 65534, 65534); err != nil {
				t.Skip(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, root := place(t)
			content := good(t, dir, root)
			path := pathOf(dir, server.Server)
			os.Remove(path)
			tt.plant(t, path, content)
			s := Open(dir, root, server, nil)
			if s.Ignored == "" || s.Recall() != nil {
				t.Fatalf("believed: ignored %q, recall %+v", s.Ignored, s.Recall())
			}
			var target string
			if l, err := os.Readlink(path); err == nil {
				target = l
			}
			if fi, err := os.Lstat(path); err == nil && fi.IsDir() {
				return // a directory in its place: nothing is written there, nothing hangs
			}
			s.Learnt(modern, nil, true)
			if err := s.Save(); err != nil {
				t.Fatalf("Save: %v", err)
			}
			if target != "" {
				if b, _ := os.ReadFile(target); string(b) != string(content) {
					t.Errorf("written through the link: %s", b)
				}
			}
			if s := Open(dir, root, server, nil); s.Ignored != "" || s.Recall() == nil {
				t.Errorf("after the save: ignored %q", s.Ignored)
			}
		})
	}
}

// TestNothingHangsOnAFIFO: a named pipe where the state file should be is
// not waited on.
func TestNothingHangsOnAFIFO(t *testing.T) {
	dir, root := place(t)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(pathOf(dir, server.Server)); err != nil {
		t.Skip(err)
	}
	done := make(chan *Store, 1)
	go func() { done <- Open(dir, root, server, nil) }()
	select {
	case s := <-done:
		if s.Ignored == "" {
			t.Error("a FIFO believed")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Open waits on a FIFO")
	}
}

// TestAStateDirectoryOfOthers: a state directory others may write to is
// not used at all: nothing read, nothing written.
func TestAStateDirectoryOfOthers(t *testing.T) {
	dir, root := place(t)
	s := Open(dir, root, server, nil)
	s.Learnt(modern, nil, true)
	s.Save()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	s = Open(dir, root, server, nil)
	if s.Ignored == "" || s.Recall() != nil {
		t.Fatalf("a directory others write to believed: %q", s.Ignored)
	}
	s.Learnt(modern, nil, true)
	if err := s.Save(); err == nil {
		t.Error("saved into a directory others write to")
	}
}

// TestBoundedOnDisk: a server's file stays under MaxFileBytes (its largest
// lists left out), and the directory under MaxDirBytes (the files least
// recently written removed first).
func TestBoundedOnDisk(t *testing.T) {
	dir, root := place(t)
	clk := &clock{t: time.Unix(1_000_000, 0)}
	s := Open(dir, root, server, clk.now)
	big := `{"tools":[{"name":"t1","description":"` + strings.Repeat("d", 3<<20) + `"}],"ttlMs":60000}`
	keepTools(t, s, big)
	res, keep := s.Kept("prompts/list", toolsRQ, "", false)
	if res != nil {
		t.Fatal(res)
	}
	keep(json.RawMessage(`{"prompts":[{"name":"`+strings.Repeat("p", 2<<20)+`"}],"ttlMs":60000}`), true)
	if err := s.Save(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(pathOf(dir, server.Server))
	if err != nil || fi.Size() > MaxFileBytes {
		t.Fatalf("the file: %v, %d bytes", err, fi.Size())
	}
	s = Open(dir, root, server, clk.now)
	if res, _ := s.Kept("prompts/list", toolsRQ, "", true); res == nil {
		t.Error("the smaller list left out too")
	}

	// Files of many servers: the oldest go once the directory is full
	// (a directory of 1 MiB here, of MaxDirBytes in use).
	const dirBytes = 1 << 20
	small := `{"tools":[{"name":"t1","description":"` + strings.Repeat("d", 100<<10) + `"}],"ttlMs":60000}`
	n := dirBytes/(100<<10) + 4
	var first string
	for i := range n {
		id := Identity{Server: strings.Repeat(string(rune('a'+i%26)), 30) + string(rune('a'+i/26)) + strings.Repeat("0", 33), Private: true}
		s := Open(dir, root, id, clk.now)
		s.dirBytes = dirBytes
		keepTools(t, s, small)
		if err := s.Save(); err != nil {
			t.Fatal(err)
		}
		p := pathOf(dir, id.Server)
		if i == 0 {
			first = p
		}
		past := time.Unix(int64(1_000_000+i), 0)
		os.Chtimes(p, past, past)
	}
	var total int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fi, _ := e.Info()
		total += fi.Size()
	}
	if total > dirBytes {
		t.Errorf("the directory holds %d bytes, more than %d", total, dirBytes)
	}
	if _, err := os.Stat(first); err == nil {
		t.Error("the file least recently written is still there")
	}
}

// TestConcurrentSaves: runs that save at once each write a whole file of
// their own and rename it into place: the file read after is one of
// theirs, whole, and nothing half-written is left behind.
func TestConcurrentSaves(t *testing.T) {
	dir, root := place(t)
	clk := &clock{t: time.Unix(1_000_000, 0)}
	done := make(chan error)
	const runs = 16
	for i := range runs {
		go func() {
			s := Open(dir, root, server, clk.now)
			_, keep := s.Kept("tools/list", toolsRQ, "", false)
			keep(json.RawMessage(`{"tools":[{"name":"t1","description":"run `+strings.Repeat("x", i*1000)+`"}],"ttlMs":60000}`), true)
			done <- s.Save()
		}()
	}
	for range runs {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	s := Open(dir, root, server, clk.now)
	if s.Ignored != "" || lookupTool(s) == nil {
		t.Errorf("after saves at once: ignored %q", s.Ignored)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left in the directory: %q", names)
	}
}

// TestForgottenWhenTheServerChanged: a server found in another era than
// the one remembered takes the kept lists with it; one that contradicted
// what was kept (ForgetEra) leaves nothing for the next run, which finds
// its era afresh. Recall names the file, for the error that says so.
func TestForgottenWhenTheServerChanged(t *testing.T) {
	dir, root := place(t)
	clk := &clock{t: time.Unix(1_000_000, 0)}
	s := Open(dir, root, server, clk.now)
	s.Learnt(modern, json.RawMessage(`{"ttlMs":60000,"resultType":"complete"}`), true)
	keepTools(t, s, `{"tools":[{"name":"t1","inputSchema":{"type":"object"}}],"ttlMs":30000,"resultType":"complete"}`)
	s.Save()

	s = Open(dir, root, server, clk.now)
	if r := s.Recall(); r == nil || r.Where != pathOf(dir, server.Server) {
		t.Fatalf("Recall = %+v, want it to name %s", r, pathOf(dir, server.Server))
	}
	s.Learnt(mcp.State{Version: "2025-11-25"}, nil, true)
	if lookupTool(s) != nil {
		t.Error("a list kept in the modern era answers a server of the initialize era")
	}
	s.Save()

	s = Open(dir, root, server, clk.now)
	if r := s.Recall(); r == nil || r.State.Modern {
		t.Fatalf("Recall = %+v, want the initialize era", r)
	}
	s.ForgetEra()
	s.Save()
	if r := Open(dir, root, server, clk.now).Recall(); r != nil {
		t.Errorf("Recall after ForgetEra = %+v", r)
	}
}

// TestDefaultTTL: a list that gives no hints is kept for DefaultTTL, in
// either era, for the credentials that asked alone; one that says
// anything of it (ttlMs 0, malformed) is not; Fresh answers no lookup but
// keeps what the server says; another serverInfo drops what was kept.
func TestDefaultTTL(t *testing.T) {
	dir, root := place(t)
	clk := &clock{t: time.Unix(1_000_000, 0)}
	v1 := mcp.State{Version: "2025-11-25", InitializeResult: initOf(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}`)}
	open := func(id Identity, fresh bool) *Store {
		s := Open(dir, root, id, clk.now)
		s.DefaultTTL, s.Fresh = 5*time.Minute, fresh
		s.Opened(v1)
		return s
	}
	s := open(server, false)
	for _, res := range []string{`{"tools":[{"name":"t1"}],"ttlMs":0}`, `{"tools":[{"name":"t1"}],"ttlMs":"600000"}`} {
		keepTools(t, s, res)
		if lookupTool(s) != nil {
			t.Errorf("%s, in the modern era, kept for the default", res)
		}
	}
	keepIn(t, s, `{"tools":[{"name":"t1"}],"ttlMs":0}`, false) // a ttlMs means nothing in the initialize era
	if lookupTool(s) == nil {
		t.Error("a list of the initialize era not kept for the default")
	}
	keepTools(t, s, `{"tools":[{"name":"t1"}]}`)
	s.Learnt(v1, nil, true)
	s.Save()
	clk.t = clk.t.Add(4 * time.Minute)
	if lookupTool(open(server, false)) == nil {
		t.Fatal("a list without hints not kept for the default")
	}
	s = open(server, true)
	if lookupTool(s) != nil {
		t.Error("Fresh answered a lookup")
	}
	keepIn(t, s, `{"tools":[{"name":"t1"},{"name":"t2"}]}`, false)
	s.Save()
	if res := lookupTool(open(server, false)); !strings.Contains(string(res), `"t1"`) {
		t.Errorf("what a Fresh run listed not kept: %s", res)
	}
	clk.t = clk.t.Add(6 * time.Minute)
	if lookupTool(open(server, false)) != nil {
		t.Error("kept past the default")
	}

	s = open(server, false)
	keepTools(t, s, `{"tools":[{"name":"t1"}]}`)
	s.Save()
	s = Open(dir, root, server, clk.now)
	s.Opened(mcp.State{Version: "2025-11-25", InitializeResult: initOf(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"2"}}`)})
	if lookupTool(s) != nil {
		t.Error("kept for a server of another serverInfo")
	}
	s = open(server, false)
	keepIn(t, s, `{"tools":[{"name":"t1"}]}`, false)
	s.Save()
	s = Open(dir, root, server, clk.now)
	s.Opened(mcp.State{Version: "2025-11-25", InitializeResult: initOf(`{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"},"instructions":"Call t1 first."}`)})
	if lookupTool(s) != nil {
		t.Error("kept for a server of other instructions")
	}

	noCreds := Identity{Server: strings.Repeat("ef", 32)}
	s = open(noCreds, false)
	keepTools(t, s, `{"tools":[{"name":"t1"}]}`)
	if lookupTool(s) != nil {
		t.Error("a list without hints kept where the credentials cannot be told apart")
	}
}

// TestTheSameServerWrittenOtherwise: a server whose answers are spaced
// (Python's json.dumps writes them so), whose keys come in another order,
// or whose strings hold what encoding/json escapes when it keeps them
// (<, >, &), is the server whose lists were kept, in either era: the
// lists answer, and the file is not written again (not even for a
// list_changed of a list that was not kept).
func TestTheSameServerWrittenOtherwise(t *testing.T) {
	for _, era := range []mcp.State{
		{Version: "2025-11-25", InitializeResult: initOf(`{"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": false}}, "serverInfo": {"version": "1", "name": "s"}, "instructions": "Use <b> & <i>."}`)},
		{Version: mcp.ModernVersion, Modern: true, InitializeResult: initOf("{\n  \"protocolVersion\": \"2026-07-28\",\n  \"serverInfo\": {\"name\": \"s\", \"version\": \"1\"},\n  \"capabilities\": {\"tools\": {}},\n  \"instructions\": \"a < b\"\n}")},
	} {
		t.Run(era.Version, func(t *testing.T) {
			dir, root := place(t)
			clk := &clock{t: time.Unix(1_000_000, 0)}
			open := func() *Store {
				s := Open(dir, root, server, clk.now)
				s.DefaultTTL = 5 * time.Minute
				return s
			}
			s := open()
			s.Opened(era)
			keepIn(t, s, `{"tools": [{"name": "t1", "inputSchema": {"type": "object"}}]}`, era.Modern)
			s.Learnt(era, json.RawMessage(`{"ttlMs": 0}`), true)
			if err := s.Save(); err != nil {
				t.Fatal(err)
			}
			path := pathOf(dir, server.Server)
			first, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			for run := 2; run <= 3; run++ {
				clk.t = clk.t.Add(time.Minute)
				s := open()
				if s.Ignored != "" {
					t.Fatalf("run %d: %s", run, s.Ignored)
				}
				s.Recall()
				s.Opened(era)
				if lookupTool(s) == nil {
					t.Errorf("run %d: the kept list does not answer: the server looks another", run)
				}
				s.Learnt(era, json.RawMessage(`{"ttlMs": 0}`), true)
				s.Notified("notifications/prompts/list_changed")
				if err := s.Save(); err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Stat(path); err != nil || !os.SameFile(first, fi) || !fi.ModTime().Equal(first.ModTime()) {
					t.Errorf("run %d: the file was written again, though what it holds is the same", run)
				}
			}
			// Spaced as ever, but of another version: another server.
			s = open()
			s.Opened(mcp.State{Version: era.Version, Modern: era.Modern, InitializeResult: initOf(strings.Replace(string(era.InitializeResult.Raw()), `"version": "1"`, `"version": "2"`, 1))})
			if lookupTool(s) != nil {
				t.Error("a server of another version answered from what was kept")
			}
		})
	}
}
