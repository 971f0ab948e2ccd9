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
	meta, err := Retoken(p["_meta"], token) // _meta's progressToken, as a notification's
	if err != nil {
		return nil, err
	}
	p["_meta"] = meta
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
	return appendWithMeta(make([]byte, 0, len(params)+metaSize(entries)), params, entries)
}

// stamped is params with meta added to its _meta, or as it is when they
// cannot take it (no object).
func stamped(params json.RawMessage, meta []metaEntry) json.RawMessage {
	if len(meta) == 0 {
		return params
	}
	if p, err := withMeta(params, meta); err == nil {
		return p
	}
	return params
}

// noParams reports whether params is absent: empty, blank or null.
func noParams(params json.RawMessage) bool {
	return len(bytes.TrimSpace(params)) == 0 || string(params) == "null"
}

// metaSize is what entries add to params at most.
func metaSize(entries []metaEntry) int {
	size := len(`{"_meta":{}}`)
	for _, e := range entries {
		size += len(e.key) + len(e.value) + 4
	}
	return size
}

// appendWithMeta appends params to b with entries added to its _meta,
// reading params' members once.
func appendWithMeta(b []byte, params json.RawMessage, entries []metaEntry) ([]byte, error) {
	var buf [8]rawjson.Field
	var fields []rawjson.Field
	if !noParams(params) {
		var err error
		if fields, err = rawjson.Fields(buf[:0], params); err != nil {
			return nil, fmt.Errorf("params: %w", err)
		}
	}
	// sep writes a comma unless b's last byte opens what is written.
	sep := func() {
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
	}
	// appendEntries writes the entries whose keys are not in meta.
	appendEntries := func(meta []rawjson.Field) {
		for _, e := range entries {
			if slices.ContainsFunc(meta, func(f rawjson.Field) bool { return f.KeyIs(e.key) }) {
				continue
			}
			sep()
			b = append(rawjson.AppendString(b, e.key), ':')
			b = append(b, e.value...)
		}
	}
	b = append(b, '{')
	hasMeta := false
	for _, f := range fields {
		sep()
		b = append(append(b, f.RawKey...), ':')
		if !f.KeyIs("_meta") {
			b = append(b, f.Value...)
			continue
		}
		hasMeta = true
		if !rawjson.IsObject(f.Value) {
			return nil, errors.New("params: params._meta is not an object")
		}
		b = append(b, '{')
		var mbuf [8]rawjson.Field
		meta := rawjson.ValidFields(mbuf[:0], f.Value)
		for _, m := range meta {
			sep()
			b = append(append(b, m.RawKey...), ':')
			b = append(b, m.Value...)
		}
		appendEntries(meta)
		b = append(b, '}')
	}
	if !hasMeta {
		sep()
		b = append(b, `"_meta":{`...)
		appendEntries(nil)
		b = append(b, '}')
	}
	return append(b, '}'), nil
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
