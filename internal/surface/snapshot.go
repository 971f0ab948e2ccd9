// Package surface reads what an MCP server offers (its tools, prompts and
// resource templates), records it as a snapshot, tells how two snapshots
// differ and which differences break clients, and checks the server
// against the rules of the specification (lint). It serves mcpv test.
//
// Everything works on the server's JSON as sent: a snapshot keeps each
// item's bytes, so that it diffs well under version control and shows
// what the server really said.
package surface

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// Snapshot is a server's surface as listed: every tool, prompt and
// resource template, each item as the server sent it.
type Snapshot struct {
	Tools             []json.RawMessage
	Prompts           []json.RawMessage
	ResourceTemplates []json.RawMessage
	// Unimplemented are the list methods the server declares a capability
	// for but answers "method not found" (many real servers do so for
	// resources/templates/list): their lists are taken as empty.
	Unimplemented []string
}

// SnapshotVersion is the newest format of a snapshot file, which
// ParseSnapshot reads with every older one. Marshal writes format 1, or
// format 2 (which adds "unimplemented") when the server has a list it does
// not implement, so that other snapshots read in any mcpv.
const SnapshotVersion = 2

// Gather lists every page of each list the server declares a capability
// for: tools/list (tools), prompts/list (prompts) and
// resources/templates/list (resources). A list the server declares no
// capability for is empty, and so is a list it declares but answers with
// "method not found" to (recorded in Unimplemented). The client's errors
// come back as they are: a list that does not end (a cursor sent twice,
// pages that bring nothing new: mcp.EndlessListError) or whose page is no
// list page is a *mcp.TransportError for its method. A list l has walked
// already is not asked for again.
func (l *Lister) Gather(ctx context.Context) (Snapshot, error) {
	var s Snapshot
	for _, g := range []struct {
		l    mcp.List
		dest *[]json.RawMessage
	}{{mcp.Tools, &s.Tools}, {mcp.Prompts, &s.Prompts}, {mcp.ResourceTemplates, &s.ResourceTemplates}} {
		if !l.c.HasCapability(g.l.Capability) {
			continue
		}
		items, _, err := l.walk(ctx, g.l)
		if len(items) == 0 && unimplemented(err) {
			s.Unimplemented = append(s.Unimplemented, g.l.Method)
			continue
		}
		if err != nil {
			return Snapshot{}, err
		}
		*g.dest = items
	}
	return s, nil
}

// unimplemented reports a list method answered with "method not found".
func unimplemented(err error) bool {
	var ce *mcp.CallError
	return errors.As(err, &ce) && ce.Err.Code == mcp.CodeMethodNotFound
}

// snapshotFile is a snapshot on disk.
type snapshotFile struct {
	Version           int               `json:"mcpvSnapshot"`
	Tools             []json.RawMessage `json:"tools"`
	Prompts           []json.RawMessage `json:"prompts"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
	Unimplemented     []string          `json:"unimplemented"`
}

// Marshal writes s as a stable, diff-friendly JSON document: the format
// version, then each list with its items sorted by name (templates with
// the same name by uriTemplate; items alike keep their order), two-space
// indent, a trailing newline. Each item keeps its JSON as the server sent
// it (key order, number text, string escapes) apart from indentation.
// The methods not implemented follow, sorted, when there are any. Items
// must be valid JSON, as Gather and ParseSnapshot give them.
func (s Snapshot) Marshal() []byte {
	var b bytes.Buffer
	version := 1
	if len(s.Unimplemented) > 0 {
		version = 2
	}
	fmt.Fprintf(&b, "{\n  \"mcpvSnapshot\": %d,\n", version)
	writeList(&b, "tools", sorted(s.Tools, nameOf))
	b.WriteString(",\n")
	writeList(&b, "prompts", sorted(s.Prompts, nameOf))
	b.WriteString(",\n")
	writeList(&b, "resourceTemplates", sorted(s.ResourceTemplates, func(raw json.RawMessage) string {
		return nameOf(raw) + "\x00" + stringMember(raw, "uriTemplate")
	}))
	if len(s.Unimplemented) > 0 {
		fmt.Fprintf(&b, ",\n  \"unimplemented\": %s", rawjson.Marshal(slices.Sorted(slices.Values(s.Unimplemented))))
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

func writeList(b *bytes.Buffer, key string, items []json.RawMessage) {
	fmt.Fprintf(b, "  %q: [", key)
	if len(items) == 0 {
		b.WriteString("]")
		return
	}
	for i, item := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		if err := json.Indent(b, item, "    ", "  "); err != nil {
			b.Write(bytes.TrimSpace(item))
		}
	}
	b.WriteString("\n  ]")
}

// sorted returns a copy of items in the order of key, stable.
func sorted(items []json.RawMessage, key func(json.RawMessage) string) []json.RawMessage {
	type keyed struct {
		k    string
		item json.RawMessage
	}
	ks := make([]keyed, len(items))
	for i, it := range items {
		ks[i] = keyed{key(it), it}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return cmp.Compare(a.k, b.k) })
	out := make([]json.RawMessage, len(ks))
	for i, k := range ks {
		out[i] = k.item
	}
	return out
}

// ParseSnapshot reads what Marshal wrote. A member it does not know, or a
// format version newer than SnapshotVersion, is an error; so is a list
// that is not an array. Items are kept as they are in data.
func ParseSnapshot(data []byte) (Snapshot, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var f snapshotFile
	if err := d.Decode(&f); err != nil {
		return Snapshot{}, fmt.Errorf("not a snapshot: %w", err)
	}
	if d.More() {
		return Snapshot{}, errors.New("not a snapshot: more than one JSON value")
	}
	if f.Version == 0 {
		return Snapshot{}, errors.New("not a snapshot: it has no mcpvSnapshot version")
	}
	if f.Version < 0 || f.Version > SnapshotVersion {
		return Snapshot{}, fmt.Errorf("snapshot format %d: this mcpv reads format %d", f.Version, SnapshotVersion)
	}
	if f.Version < 2 && f.Unimplemented != nil {
		return Snapshot{}, errors.New(`not a snapshot: "unimplemented" is new in format 2`)
	}
	return Snapshot{Tools: f.Tools, Prompts: f.Prompts, ResourceTemplates: f.ResourceTemplates, Unimplemented: f.Unimplemented}, nil
}

// ResponsesBeside is where the responses file of the snapshot at path is
// when none is named, as mcpv serve --record writes it and mcpv mock
// reads it: beside it, demo.json -> demo.responses.json.
func ResponsesBeside(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".responses.json"
}

// nameOf is an item's name, or "" when it has none.
func nameOf(raw json.RawMessage) string { return stringMember(raw, "name") }

// stringMember is the string member key of a JSON object, or "": the
// last of a key given twice, as a decoder reads it, from the object's
// top level alone.
func stringMember(raw json.RawMessage, key string) string {
	var s string
	err := rawjson.ForEachMember(raw, func(k string, v []byte) error {
		if k == key {
			s = ""
			if len(v) > 0 && v[0] == '"' {
				s, _ = rawjson.String(v)
			}
		}
		return nil
	})
	if err != nil {
		return ""
	}
	return s
}
