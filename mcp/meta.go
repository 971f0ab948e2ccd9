package mcp

// Adding members to a request's _meta (the modern era's stamp, progress
// tokens): params are read once, and written once into a buffer of the
// size they need.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// progressToken returns the token already in params._meta, if any, from
// the members of params.
func progressToken(fields []rawjson.Field) json.RawMessage {
	var token json.RawMessage
	for _, f := range fields {
		if !f.KeyIs("_meta") || !rawjson.IsObject(f.Value) {
			continue
		}
		var buf [8]rawjson.Field
		for _, m := range rawjson.ValidFields(buf[:0], f.Value) {
			if m.KeyIs("progressToken") {
				token = m.Value
			}
		}
	}
	if string(token) == "null" {
		return nil
	}
	return token
}

// ProgressToken returns the token in params._meta.progressToken, or nil.
func ProgressToken(params json.RawMessage) json.RawMessage {
	if noParams(params) {
		return nil
	}
	var buf [8]rawjson.Field
	fields, err := rawjson.Fields(buf[:0], params)
	if err != nil {
		return nil
	}
	return progressToken(fields)
}

// SetProgressToken returns params with _meta.progressToken replaced by
// token (a relay gives each of its clients' requests a token of its own).
func SetProgressToken(params, token json.RawMessage) (json.RawMessage, error) {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(p["_meta"], &meta); err != nil {
		return nil, err
	}
	meta["progressToken"] = token
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	p["_meta"] = b
	return json.Marshal(p)
}

// WithMeta sets params._meta[key] = value in a JSON object (request params
// or a result), keeping everything else as it was; a key _meta already has
// keeps its value.
func WithMeta(params json.RawMessage, key string, value json.RawMessage) (json.RawMessage, error) {
	return withMeta(params, []metaEntry{{key, value}})
}

// metaEntry is one member of params._meta.
type metaEntry struct {
	key   string
	value json.RawMessage
}

// withMeta adds entries to params._meta in one pass over params; an entry
// whose key _meta already has is left out.
func withMeta(params json.RawMessage, entries []metaEntry) (json.RawMessage, error) {
	if noParams(params) {
		return metaWith(params, nil, entries)
	}
	var buf [8]rawjson.Field
	fields, err := rawjson.Fields(buf[:0], params)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	return metaWith(params, fields, entries)
}

// noParams reports whether params is absent: empty, blank or null.
func noParams(params json.RawMessage) bool {
	return len(bytes.TrimSpace(params)) == 0 || string(params) == "null"
}

// metaWith writes params, whose members are fields (none when noParams),
// with entries added to its _meta, in a buffer of the size it needs.
func metaWith(params json.RawMessage, fields []rawjson.Field, entries []metaEntry) (json.RawMessage, error) {
	size := len(params) + len(`{"_meta":{}}`)
	for _, e := range entries {
		size += len(e.key) + len(e.value) + 4
	}
	var b bytes.Buffer
	b.Grow(size)
	// writeEntries writes the entries whose keys are not in meta.
	writeEntries := func(meta []rawjson.Field) {
		for _, e := range entries {
			if slices.ContainsFunc(meta, func(f rawjson.Field) bool { return f.KeyIs(e.key) }) {
				continue
			}
			if b.Len() > 0 && b.Bytes()[b.Len()-1] != '{' {
				b.WriteByte(',')
			}
			b.Write(rawjson.AppendString(b.AvailableBuffer(), e.key))
			b.WriteByte(':')
			b.Write(e.value)
		}
	}
	if noParams(params) {
		b.WriteString(`{"_meta":{`)
		writeEntries(nil)
		b.WriteString("}}")
		return b.Bytes(), nil
	}
	b.WriteByte('{')
	hasMeta := false
	for _, f := range fields {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(f.RawKey)
		b.WriteByte(':')
		if !f.KeyIs("_meta") {
			b.Write(f.Value)
			continue
		}
		hasMeta = true
		if !rawjson.IsObject(f.Value) {
			return nil, errors.New("params: params._meta is not an object")
		}
		b.WriteByte('{')
		var buf [8]rawjson.Field
		meta := rawjson.ValidFields(buf[:0], f.Value)
		for _, m := range meta {
			if b.Bytes()[b.Len()-1] != '{' {
				b.WriteByte(',')
			}
			b.Write(m.RawKey)
			b.WriteByte(':')
			b.Write(m.Value)
		}
		writeEntries(meta)
		b.WriteByte('}')
	}
	if !hasMeta {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"_meta":{`)
		writeEntries(nil)
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// NotifiedToken is the progressToken of a notifications/progress's params.
func NotifiedToken(params json.RawMessage) json.RawMessage {
	var p struct {
		Token json.RawMessage `json:"progressToken"`
	}
	rawjson.DecodeLoose(params, &p)
	return p.Token
}

// Retoken returns a notifications/progress's params with its progressToken
// replaced: a relay gives a progress notification back the token of the
// request it reports on.
func Retoken(params, token json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(params, &m); err != nil {
		return nil, err
	}
	m["progressToken"] = token
	return json.Marshal(m)
}
