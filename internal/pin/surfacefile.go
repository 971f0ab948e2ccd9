package pin

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/trace"
	"github.com/mcpv/mcpv/mcp"
)

// SurfaceFile is a file that holds what servers showed: a pin file (one
// server or several), an mcpv test snapshot, a recording of mcpv serve
// --record (a snapshot with its responses file beside it, which adds who
// the server was, its instructions and its resources), or a trace (mcpv
// --trace: the lists the run asked for).
type SurfaceFile struct {
	Format  string // "pin", "snapshot", "recording" or "trace"
	Servers []surface.Server
	// Pins is the pin file, when the file is one.
	Pins *File
	// Lines finds the line of an item in the file: 0 when it cannot.
	Lines func(kind, name string) int
}

// ReadSurfaceFile reads the surfaces a file holds, by what the file says
// it is ("mcpvPin" or "mcpvSnapshot", or a trace's first line); read reads a file (bounded, as the
// caller confines it), for the file and for the responses file beside a
// snapshot, which makes it a recording when there is one. A snapshot's
// server is named after the file.
func ReadSurfaceFile(path string, read func(string) ([]byte, error)) (*SurfaceFile, error) {
	data, err := read(path)
	if err != nil {
		return nil, err
	}
	if trace.IsTrace(data) {
		lines, err := trace.Read(data)
		if err != nil {
			return nil, err
		}
		s, err := trace.Surface(lines)
		if err != nil {
			return nil, err
		}
		s.Name = cmp.Or(s.Name, strings.TrimSuffix(filepath.Base(path), ".trace.jsonl"))
		return &SurfaceFile{Format: "trace", Servers: []surface.Server{s}, Lines: func(string, string) int { return 0 }}, nil
	}
	switch {
	case !rawjson.Valid(data):
		return nil, fmt.Errorf("not a pin file, snapshot or recording: %v", invalidJSON(data))
	case !rawjson.IsObject(data):
		return nil, errors.New("not a pin file, snapshot or recording: not a JSON object")
	}
	sf := &SurfaceFile{Lines: lineFinder(data)}
	switch {
	case rawjson.Member(data, "mcpvPin") != nil:
		f, err := Parse(data)
		if err != nil {
			return nil, err
		}
		sf.Format, sf.Pins = "pin", f
		for _, s := range f.Servers {
			sf.Servers = append(sf.Servers, s.Surface())
		}
		return sf, nil
	case rawjson.Member(data, "mcpvSnapshot") != nil:
		snap, err := surface.ParseSnapshot(data)
		if err != nil {
			return nil, err
		}
		sf.Format, sf.Servers = "snapshot", []surface.Server{surface.ServerOfSnapshot(snap)}
		responses, err := read(surface.ResponsesBeside(path))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("%s: %v", surface.ResponsesBeside(path), err)
		default:
			s, err := surface.ServerOfRecording(snap, responses)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", surface.ResponsesBeside(path), err)
			}
			sf.Format, sf.Servers[0] = "recording", s
		}
		sf.Servers[0].Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		return sf, nil
	}
	return nil, errors.New(`not a pin file, snapshot or recording: it has neither "mcpvPin" nor "mcpvSnapshot"`)
}

type lineSet struct{ list, key *regexp.Regexp }

// lineRes read the lines of the files mcpv writes: a list's opening, and
// an item's key.
var lineRes = &lazy.Value[lineSet]{New: func() (r lineSet) {
	var keys, fields []string
	for _, l := range mcp.Lists {
		keys = append(keys, l.Key)
		if !slices.Contains(fields, l.Field) {
			fields = append(fields, l.Field)
		}
	}
	r.list = regexp.MustCompile(`^\s*"(` + strings.Join(keys, "|") + `)":\s*\[`)
	r.key = regexp.MustCompile(`^\s*"(?:` + strings.Join(fields, "|") + `)":\s*("(?:[^"\\]|\\.)*")`)
	return r
}}

// lineFinder finds the line where an item of a kind starts, in a file
// mcpv wrote (indented, a member a line): the first line in the kind's
// list that names it.
func lineFinder(data []byte) func(kind, name string) int {
	lists := map[string]string{}
	for _, l := range mcp.Lists {
		lists[l.Key] = l.Item
	}
	at := map[string]int{}
	kind := ""
	for i, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"name"`)) && !bytes.Contains(line, []byte(`"uri`)) && !bytes.Contains(line, []byte("[")) {
			continue // neither a list's opening nor an item's key: most lines
		}
		if m := lineRes.Get().list.FindSubmatch(line); m != nil {
			kind = lists[string(m[1])]
			continue
		}
		if m := lineRes.Get().key.FindSubmatch(line); m != nil && kind != "" {
			var name string
			if json.Unmarshal(m[1], &name) == nil {
				if _, seen := at[kind+"\x00"+name]; !seen {
					at[kind+"\x00"+name] = i + 1
				}
			}
		}
	}
	return func(kind, name string) int { return at[kind+"\x00"+name] }
}
