package pin

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testkit"
)

// The fuzz targets read pin files, snapshots and recordings as a cloned
// repository may hold them: any bytes are read or refused without a
// panic, within memory in proportion to their size, and what is read
// writes back to a file that reads the same (a pin file is rewritten by
// every approval; a snapshot by every mcpv test --update).
//
//	go test ./internal/pin -run '^$' -fuzz '^FuzzParse$' -fuzztime 1m
//	go test ./internal/pin -run '^$' -fuzz '^FuzzReadSurfaceFile$' -fuzztime 1m

// allocBase and allocPerByte bound what reading a file allocates: a
// decoder's tables, then each byte decoded a few times over (the file, the
// canonical form of each definition, its digest's input).
const (
	allocBase    = 1 << 20
	allocPerByte = 64
)

func FuzzParse(f *testing.F) {
	real, err := Record("demo", demo())
	if err != nil {
		f.Fatal(err)
	}
	other := demo()
	other.Instructions = nil
	two, err := Record("other", other)
	if err != nil {
		f.Fatal(err)
	}
	f.Add((&File{Servers: []*Server{real, two}}).Marshal())
	f.Add((&File{}).Marshal())
	withApps, err := Record("demo", appServer(appUI, eraseUI, appHTML, appCSP))
	if err != nil {
		f.Fatal(err)
	}
	f.Add((&File{Servers: []*Server{withApps}}).Marshal())
	testkit.SeedFuzz(f, []string{
		`{"mcpvPin": 1, "servers": [{"name": "s", "tools": [{"name": "a", "digest": "sha256:00", "definition": {"name": "a"}}]}]}`,
		`{"mcpvPin": 2, "servers": []}`,
		`{"mcpvPin": 1, "servers": [{"name": "s"}, {"name": "s"}]}`,
		`{"mcpvPin": 1, "servers": [{"name": ""}]}`,
		`{"mcpvPin": 1, "servers": [{"name": "s", "instructions": {"digest": "sha256:x", "text": "hi"}}]}`,
		`{"mcpvPin": 1, "servers": [{"name": "s", "resources": [{"name": "n", "uri": "u", "digest": "sha256:", "definition": null}]}]}`,
		`{"mcpvPin": 1, "servers": [{"name": "s", "serverInfo": {"name": "x", "name": "y"}}]}`,
		`{"mcpvPin": 1, "servers": [{"name": "s", "unknown": true}]}`,
		`{"mcpvPin": 1e400}`,
		`{"mcpvPin":2,"servers":[{"name":"s","apps":[{"tool":"a","digest":"sha256:x","definition":{}}]}]}`,
		`{"mcpvPin": "1"}`,
	}, testkit.HostileJSON())
	f.Fuzz(func(t *testing.T, data []byte) {
		var file *File
		var err error
		testkit.AllocBounded(t, len(data), allocBase, allocPerByte, func() { file, err = Parse(data) })
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("an error that is no one-line ParseError: %#v", err)
			}
			return
		}
		checkRewrites(t, file)
	})
}

// checkRewrites checks that file, read or recorded, writes as a pin file
// that reads back as itself and writes the same bytes again.
func checkRewrites(t *testing.T, file *File) {
	t.Helper()
	var back *File
	testkit.Rewrites(t, file.Marshal(), func(text []byte) (again []byte, err error) {
		if back, err = Parse(text); err != nil {
			return nil, err
		}
		return back.Marshal(), nil
	})
	if len(back.Servers) != len(file.Servers) {
		t.Fatalf("%d servers read back as %d", len(file.Servers), len(back.Servers))
	}
}

func FuzzReadSurfaceFile(f *testing.F) {
	real, err := Record("demo", demo())
	if err != nil {
		f.Fatal(err)
	}
	snap := demo().Snapshot
	snap.Unimplemented = []string{"prompts/list"}
	recording := `{"server": {"serverInfo": {"name": "rec", "version": "1"}, "instructions": "Hi."},
	  "resources": [{"uri": "a://1", "resource": {"uri": "a://1", "name": "one"}}, {"uri": "a://2"}]}`
	f.Add((&File{Servers: []*Server{real}}).Marshal(), []byte{})
	f.Add(snap.Marshal(), []byte{})
	f.Add(snap.Marshal(), []byte(recording))
	f.Add([]byte(`{"mcpvSnapshot": 1, "tools": [1, "x", null, {"name": 2}], "prompts": [], "resourceTemplates": [{}]}`), []byte(`[]`))
	f.Add([]byte(`{"mcpvSnapshot": 1, "unimplemented": ["tools/list"]}`), []byte(`{"server": null, "resources": null}`))
	f.Add([]byte(`{"mcpvSnapshot": 3}`), []byte{})
	f.Add([]byte(`{"mcpvSnapshot": 2, "tools": [{"name": "a"}, {"name": "a"}]}`), []byte(`{"resources": [{"resource": 1}]}`))
	f.Add([]byte(`{"mcpvPin": 1, "mcpvSnapshot": 1}`), []byte{})
	for _, s := range testkit.HostileJSON() {
		f.Add(s, s)
	}
	const path = "/repo/pins/demo.json"
	f.Fuzz(func(t *testing.T, data, responses []byte) {
		read := func(p string) ([]byte, error) {
			switch {
			case p == path:
				return data, nil
			case p == surface.ResponsesBeside(path) && len(responses) > 0:
				return responses, nil
			}
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
		}
		var sf *SurfaceFile
		var err error
		testkit.AllocBounded(t, len(data)+len(responses), allocBase, allocPerByte, func() { sf, err = ReadSurfaceFile(path, read) })
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("an error of more than one line: %q", err)
			}
			return
		}
		switch sf.Format {
		case "pin":
		case "snapshot", "recording":
			if len(sf.Servers) != 1 || sf.Servers[0].Name != "demo" {
				t.Fatalf("a %s read as %d servers, the first named %q", sf.Format, len(sf.Servers), sf.Servers[0].Name)
			}
			snap, err := surface.ParseSnapshot(data)
			if err != nil {
				t.Fatalf("a %s that ParseSnapshot refuses: %v", sf.Format, err)
			}
			testkit.Rewrites(t, snap.Marshal(), func(text []byte) ([]byte, error) {
				back, err := surface.ParseSnapshot(text)
				return back.Marshal(), err
			})
		default:
			t.Fatalf("format %q", sf.Format)
		}
		// Whatever a file shows can be pinned: each server recorded, the
		// pin written and read back whole.
		pinned := &File{}
		for i, s := range sf.Servers {
			p, err := Record(strings.Repeat("s", i+1), s)
			if err != nil {
				continue // a serverInfo that is no JSON value: nothing to pin
			}
			pinned.Put(p)
			for _, kind := range Kinds {
				for _, it := range p.Items[kind] {
					sf.Lines(string(kind), it.Key) // any line, or 0: never a panic
				}
			}
		}
		checkRewrites(t, pinned)
	})
}
