// Package pin is mcpv's answer to "is this still the server I approved?":
// a pin file records a server's surface as approved (who it says it is,
// its instructions, and every tool, prompt, resource and template with
// the members a model reads), one entry per item with a digest of each,
// in a stable order a repository can commit and review; Compare tells
// how a live surface moved from it (an item changed, new, gone, renamed,
// or named like a pinned one); Check decides, item by item, whether a
// command may use what the server offers now; Approve writes the moves
// into the pin, and nothing else.
//
// A pin file is data from wherever the user got it: it is read bounded,
// checked whole (every digest against its definition) and never runs or
// names anything but the servers it pins.
package pin

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// Version is the format of the pin files this mcpv writes. It reads
// this one and the one before, which pinned no apps.
const Version = 2

// MaxFileSize bounds a pin file: one larger is refused, read or written.
// It holds a surface of 100,000 tools with real descriptions.
const MaxFileSize = 64 << 20

// A Kind is a kind of item a server offers.
type Kind string

// The kinds of item, in the order a pin file lists them.
const (
	Tool     Kind = "tool"
	Prompt   Kind = "prompt"
	Resource Kind = "resource"
	Template Kind = "resource template"
)

// Kinds are the kinds of item, in the order of a pin file.
var Kinds = []Kind{Tool, Prompt, Resource, Template}

// kindInfo is how each kind is written: its list in a pin file (as in the
// server's own list result), the member that names an item, and the
// members pinned, which are those a model reads to choose and use it.
var kindInfo = map[Kind]struct {
	list, key string
	members   []string
}{
	Tool:     {mcp.Tools.Key, mcp.Tools.Field, []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"}},
	Prompt:   {mcp.Prompts.Key, mcp.Prompts.Field, []string{"name", "title", "description", "arguments"}},
	Resource: {mcp.Resources.Key, mcp.Resources.Field, []string{"uri", "name", "title", "description", "mimeType"}},
	Template: {mcp.ResourceTemplates.Key, mcp.ResourceTemplates.Field, []string{"uriTemplate", "name", "title", "description", "mimeType"}},
}

// KeyMember is the member that names an item of kind: "name", "uri" or
// "uriTemplate".
func (k Kind) KeyMember() string { return kindInfo[k].key }

// List is the name of kind's list in a pin file and in the server's list
// results: "tools", "prompts", "resources" or "resourceTemplates".
func (k Kind) List() string { return kindInfo[k].list }

// File is a pin file: one entry per server, by name.
type File struct {
	Servers []*Server
}

// Server is what a pin file holds of one server.
type Server struct {
	// Name is the server's config name when it was pinned by one (-s,
	// --all), else the name its serverInfo gave.
	Name string
	// Info is the serverInfo as pinned (canonical JSON); nil when the
	// server gave none.
	Info json.RawMessage
	// ProtocolVersion is the version the session spoke when pinned.
	ProtocolVersion string
	// Instructions are the instructions pinned; nil when the server gave
	// none.
	Instructions *Instructions
	// Items are the pinned items of each kind, in the order of their key.
	Items map[Kind][]Item
	// Apps are the apps of the tools (MCP Apps), in the order of the
	// tools' names; HasApps says whether the entry pins apps at all: one
	// written before mcpv pinned them holds none, and its tools' apps are
	// not held.
	Apps    []Item
	HasApps bool
	// mask is what a live definition goes through before it is compared
	// (Masked); nil: nothing.
	mask func([]byte) []byte
}

// Instructions are a server's pinned instructions.
type Instructions struct {
	Digest string
	Text   string
}

// Item is one pinned item.
type Item struct {
	Key    string          // its name, URI or URI template
	Digest string          // "sha256:" and the hex of the SHA-256 of Def
	Def    json.RawMessage // the pinned members, canonical (compact, keys sorted)
}

// Find is s's item of kind called key.
func (s *Server) Find(kind Kind, key string) (Item, bool) { return find(s.Items[kind], key) }

// find is the item called key of items sorted by key.
func find(items []Item, key string) (Item, bool) {
	i, ok := slices.BinarySearchFunc(items, key, func(it Item, k string) int { return cmp.Compare(it.Key, k) })
	if !ok {
		return Item{}, false
	}
	return items[i], true
}

// sortItems sorts items by key.
func sortItems(items []Item) {
	slices.SortFunc(items, func(a, b Item) int { return cmp.Compare(a.Key, b.Key) })
}

// Server is f's entry called name.
func (f *File) Server(name string) (*Server, bool) {
	for _, s := range f.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return nil, false
}

// Put puts s in f, in the place of the entry of its name.
func (f *File) Put(s *Server) {
	for i, o := range f.Servers {
		if o.Name == s.Name {
			f.Servers[i] = s
			return
		}
	}
	f.Servers = append(f.Servers, s)
	slices.SortFunc(f.Servers, func(a, b *Server) int { return cmp.Compare(a.Name, b.Name) })
}

// Digest is the digest a pin file gives a definition: of its canonical
// form.
func Digest(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// instructionsDigest is the digest of instructions: of their JSON string.
func instructionsDigest(text string) string {
	b, _ := rawjson.Encode(text)
	return Digest(b)
}

// fileJSON is a pin file on disk.
type fileJSON struct {
	Version *int         `json:"mcpvPin"`
	Servers []serverJSON `json:"servers"`
}

type serverJSON struct {
	Name              string            `json:"name"`
	ServerInfo        json.RawMessage   `json:"serverInfo,omitempty"`
	ProtocolVersion   string            `json:"protocolVersion,omitempty"`
	Instructions      *instructionsJSON `json:"instructions,omitempty"`
	Tools             []itemJSON        `json:"tools"`
	Prompts           []itemJSON        `json:"prompts"`
	Resources         []itemJSON        `json:"resources"`
	ResourceTemplates []itemJSON        `json:"resourceTemplates"`
	Apps              *[]appJSON        `json:"apps,omitempty"`
}

// appJSON is a tool's app as written.
type appJSON struct {
	Tool       string          `json:"tool"`
	Digest     string          `json:"digest"`
	Definition json.RawMessage `json:"definition"`
}

type instructionsJSON struct {
	Digest string `json:"digest"`
	Text   string `json:"text"`
}

// itemJSON is an item as written: its key under the member that names
// it, its digest, and its definition.
type itemJSON struct {
	Name        string          `json:"name,omitempty"`
	URI         string          `json:"uri,omitempty"`
	URITemplate string          `json:"uriTemplate,omitempty"`
	Digest      string          `json:"digest"`
	Definition  json.RawMessage `json:"definition"`
}

// Marshal writes f as text to commit and review: the servers by name,
// each server's items by kind and key, one entry per item with its
// digest and its definition (keys sorted), two-space indent, a trailing
// newline. The same file marshals to the same bytes, so that approving
// one item changes that item's lines alone.
func (f *File) Marshal() []byte {
	out := fileJSON{Version: new(Version), Servers: []serverJSON{}}
	servers := slices.Clone(f.Servers)
	slices.SortFunc(servers, func(a, b *Server) int { return cmp.Compare(a.Name, b.Name) })
	for _, s := range servers {
		sj := serverJSON{Name: s.Name, ServerInfo: s.Info, ProtocolVersion: s.ProtocolVersion}
		if s.Instructions != nil {
			sj.Instructions = &instructionsJSON{s.Instructions.Digest, s.Instructions.Text}
		}
		for kind, list := range map[Kind]*[]itemJSON{Tool: &sj.Tools, Prompt: &sj.Prompts, Resource: &sj.Resources, Template: &sj.ResourceTemplates} {
			*list = []itemJSON{}
			for _, it := range s.Items[kind] {
				ij := itemJSON{Digest: it.Digest, Definition: it.Def}
				switch kind.KeyMember() {
				case "uri":
					ij.URI = it.Key
				case "uriTemplate":
					ij.URITemplate = it.Key
				default:
					ij.Name = it.Key
				}
				*list = append(*list, ij)
			}
		}
		if s.HasApps {
			apps := []appJSON{}
			for _, a := range s.Apps {
				apps = append(apps, appJSON{a.Key, a.Digest, a.Def})
			}
			sj.Apps = &apps
		}
		out.Servers = append(out.Servers, sj)
	}
	b, err := rawjson.Encode(out) // without HTML escapes: <IMPORTANT> reads as written in a review
	if err != nil {
		panic(err) // every value is canonical JSON made here or checked by Parse
	}
	return indent(b, maxIndent)
}

// maxIndent is how deep a pin file is indented, a member a line: below
// it, a value is written on one line, so that a schema nested thousands
// deep costs the file its size, not its size times its depth.
const maxIndent = 16

// indent writes the JSON text src indented by two spaces a level, to max
// levels, with a trailing newline.
func indent(src []byte, max int) []byte {
	var b bytes.Buffer
	b.Grow(len(src) * 2)
	depth := 0
	newline := func(d int) {
		b.WriteByte('\n')
		for range d {
			b.WriteString("  ")
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			b.Write(src[i : j+1])
			i = j
		case '{', '[':
			b.WriteByte(c)
			depth++
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				continue // {} and [] stay whole
			}
			if depth <= max {
				newline(depth)
			}
		case '}', ']':
			if depth <= max && !(src[i-1] == '{' || src[i-1] == '[') {
				newline(depth - 1)
			}
			depth--
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			if depth <= max {
				newline(depth)
			}
		case ':':
			b.WriteString(": ")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\n')
	return b.Bytes()
}
