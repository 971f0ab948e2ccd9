package pin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// ParseError is a pin file that cannot be used; a pin that cannot be read
// lets nothing through.
type ParseError struct{ Reason string }

func (e *ParseError) Error() string { return "not a usable pin file: " + e.Reason }

func parseErrorf(format string, args ...any) error {
	return &ParseError{fmt.Sprintf(format, args...)}
}

// invalidJSON says why raw, which rawjson.Valid refused, is no JSON
// value: the decoder's words.
func invalidJSON(raw []byte) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	var v json.RawMessage
	if err := d.Decode(&v); err != nil {
		return err
	}
	return errors.New("more than one JSON value")
}

// Parse reads a pin file. It refuses a file larger than MaxFileSize, a
// member it does not know or finds twice, a format it does not read, a
// server or an item named twice, an item whose key is not its
// definition's, and an item whose digest is not that of its definition
// (a hand edit of one without the other): a pin is used whole or not at
// all.
//
// The file is read where it lies: each definition is made canonical from
// its bytes in the file, so that reading a file costs about twice its
// size, whatever its shape.
func Parse(data []byte) (*File, error) {
	if len(data) > MaxFileSize {
		return nil, parseErrorf("it is larger than %d MiB", MaxFileSize>>20)
	}
	if !rawjson.Valid(data) {
		return nil, parseErrorf("%v", invalidJSON(data))
	}
	var version *int
	var servers []byte
	err := eachMember(data, "the file", func(key string, v []byte) error {
		switch key {
		case "mcpvPin":
			n, err := integer(v, "mcpvPin")
			version = &n
			return err
		case "servers":
			servers = v
			return want(v, '[', "servers", "an array")
		}
		return fmt.Errorf("unknown field %q", key)
	})
	switch {
	case err != nil:
		return nil, parseErrorf("%v", err)
	case version == nil:
		return nil, parseErrorf(`it has no "mcpvPin" version`)
	case *version != Version && *version != 1:
		return nil, parseErrorf("format %d: this mcpv reads formats 1 and %d", *version, Version)
	}
	f := &File{}
	seen := map[string]bool{}
	var perr error
	rawjson.ForEachElement(servers, func(i int, v []byte) {
		if perr != nil {
			return
		}
		var s *Server
		if s, perr = parseServer(v, i); perr != nil {
			return
		}
		if seen[s.Name] {
			perr = parseErrorf("server %q is pinned twice", s.Name)
			return
		}
		seen[s.Name] = true
		f.Servers = append(f.Servers, s)
	})
	return f, perr
}

// parseServer reads the i-th server of a file.
func parseServer(v []byte, i int) (*Server, error) {
	s := &Server{Items: map[Kind][]Item{}}
	lists := map[string]Kind{"tools": Tool, "prompts": Prompt, "resources": Resource, "resourceTemplates": Template}
	raw := map[string][]byte{}
	err := eachMember(v, fmt.Sprintf("server %d", i+1), func(key string, v []byte) error {
		switch key {
		case "name", "protocolVersion":
			if err := want(v, '"', key, "a string"); err != nil {
				return err
			}
		case "serverInfo", "instructions", "apps":
		default:
			if _, ok := lists[key]; !ok {
				return fmt.Errorf("unknown field %q", key)
			}
		}
		raw[key] = v
		return nil
	})
	if err != nil {
		return nil, parseErrorf("%v", err)
	}
	s.Name, _ = rawjson.String(raw["name"])
	s.ProtocolVersion, _ = rawjson.String(raw["protocolVersion"])
	if s.Name == "" {
		return nil, parseErrorf("server %d has no name", i+1)
	}
	if err := s.parseParts(raw, lists); err != nil {
		return nil, parseErrorf("server %q: %v", s.Name, err)
	}
	return s, nil
}

// parseParts reads a server's identity, instructions, lists and apps.
func (s *Server) parseParts(raw map[string][]byte, lists map[string]Kind) error {
	if v := raw["serverInfo"]; v != nil && string(v) != "null" {
		s.Info = rawjson.ValidCanonical(v)
	}
	if v := raw["instructions"]; v != nil && string(v) != "null" {
		var text, digest string
		err := eachMember(v, "instructions", func(key string, v []byte) (err error) {
			switch key {
			case "text":
				text, err = stringOf(v, key)
			case "digest":
				digest, err = stringOf(v, key)
			default:
				err = fmt.Errorf("unknown field %q", key)
			}
			return err
		})
		if err != nil {
			return err
		}
		if digest != instructionsDigest(text) {
			return errors.New("the instructions' digest is not that of their text")
		}
		s.Instructions = &Instructions{digest, text}
	}
	for name, kind := range lists {
		items, err := parseList(raw[name], name, func(v []byte) (Item, error) { return parseItem(kind, v) })
		if err != nil {
			return err
		}
		s.Items[kind] = items
	}
	if v := raw["apps"]; v != nil && string(v) != "null" {
		apps, err := parseList(v, "apps", parseApp)
		if err != nil {
			return err
		}
		s.Apps, s.HasApps = apps, true
	}
	return nil
}

// parseList reads a list of entries (null or absent: none), sorted by
// key, refusing a key twice.
func parseList(v []byte, name string, parse func([]byte) (Item, error)) ([]Item, error) {
	if v == nil || string(v) == "null" {
		return nil, nil
	}
	if err := want(v, '[', name, "an array"); err != nil {
		return nil, err
	}
	var items []Item
	var err error
	rawjson.ForEachElement(v, func(_ int, el []byte) {
		if err == nil {
			var it Item
			it, err = parse(el)
			items = append(items, it)
		}
	})
	if err != nil {
		return nil, err
	}
	sortItems(items)
	for i := 1; i < len(items); i++ {
		if items[i].Key == items[i-1].Key {
			return nil, fmt.Errorf("%s: %q is pinned twice", name, items[i].Key)
		}
	}
	return items, nil
}

// parseItem reads one item of kind.
func parseItem(kind Kind, v []byte) (Item, error) {
	named, key, it, err := parseEntry(v, kind.KeyMember())
	switch {
	case err != nil && key == "":
		return Item{}, fmt.Errorf("%s: %v", kind, err)
	case err != nil:
		return Item{}, fmt.Errorf("%s %q: %v", kind, key, err)
	case named == "":
		return Item{}, fmt.Errorf("%s: an entry without its %s", kind, kind.KeyMember())
	case named != kind.KeyMember():
		return Item{}, fmt.Errorf("%s: a %s is named by its %s, not its %s", kind, kind, kind.KeyMember(), named)
	}
	if defKey, _ := rawjson.String(rawjson.Member(it.Def, kind.KeyMember())); defKey != key {
		return Item{}, fmt.Errorf("%s %q: its definition's %s is not %q", kind, key, kind.KeyMember(), key)
	}
	return it, nil
}

// parseApp reads one app, named by its tool.
func parseApp(v []byte) (Item, error) {
	named, tool, it, err := parseEntry(v, "tool")
	switch {
	case err == nil && (named != "tool" || tool == ""):
		err = errors.New("an app names no tool")
	case err != nil && tool != "":
		err = fmt.Errorf("the app of tool %q: %v", tool, err)
	}
	if err != nil {
		return Item{}, fmt.Errorf("apps: %v", err)
	}
	return it, nil
}

// parseEntry reads an entry of a list: the member that names it (named,
// one of name, uri, uriTemplate and tool), its key, and the entry, whose
// digest must be that of its definition.
func parseEntry(v []byte, keyMember string) (named, key string, it Item, err error) {
	var digest string
	var def []byte
	err = eachMember(v, "an entry", func(k string, v []byte) (err error) {
		switch k {
		case "name", "uri", "uriTemplate", "tool":
			if named == "" && k == keyMember {
				key, err = stringOf(v, k)
			}
			named = k
		case "digest":
			digest, err = stringOf(v, k)
		case "definition":
			def = v
		default:
			err = fmt.Errorf("unknown field %q", k)
		}
		return err
	})
	if err != nil || named != keyMember {
		return named, key, Item{}, err
	}
	it, err = checked(key, digest, def)
	return named, key, it, err
}

// checked is an entry whose digest must be that of its definition.
func checked(key, digest string, def []byte) (Item, error) {
	if !strings.HasPrefix(digest, "sha256:") {
		return Item{}, errors.New(`its digest is not "sha256:..."`)
	}
	if def == nil {
		return Item{}, errors.New("it has no definition")
	}
	canonical := rawjson.ValidCanonical(def) // of a file checked whole
	if Digest(canonical) != digest {
		return Item{}, errors.New("its digest is not that of its definition")
	}
	return Item{Key: key, Digest: digest, Def: canonical}, nil
}

// eachMember calls fn with each member of the object v (what names it,
// for errors), refusing anything but an object and a member given twice.
func eachMember(v []byte, what string, fn func(key string, v []byte) error) error {
	if err := want(v, '{', what, "an object"); err != nil {
		return err
	}
	seen := map[string]bool{}
	return rawjson.ForEachValidMember(v, func(key string, v []byte) error {
		if seen[key] {
			return fmt.Errorf("%s: the member %q is given twice", what, key)
		}
		seen[key] = true
		return fn(key, v)
	})
}

// want refuses a value that does not start with c (what it should be).
func want(v []byte, c byte, name, should string) error {
	if len(v) == 0 || v[0] != c {
		return fmt.Errorf("%s: %s where %s belongs", name, kindOfValue(v), should)
	}
	return nil
}

func kindOfValue(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	if i := strings.IndexByte(`{["tfn`, v[0]); i >= 0 {
		return [...]string{"an object", "an array", "a string", "a boolean", "a boolean", "null"}[i]
	}
	return "a number"
}

func stringOf(v []byte, name string) (string, error) {
	if err := want(v, '"', name, "a string"); err != nil {
		return "", err
	}
	return rawjson.String(v)
}

func integer(v []byte, name string) (int, error) {
	var n int
	if _, err := fmt.Sscanf(string(v), "%d", &n); err != nil || fmt.Sprint(n) != string(v) {
		return 0, fmt.Errorf("%s: %s where a whole number belongs", name, kindOfValue(v))
	}
	return n, nil
}
