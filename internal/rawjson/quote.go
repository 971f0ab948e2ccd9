package rawjson

import (
	"bytes"
	"encoding/json"
)

// Plain reports whether encoding/json writes s as it is between quotes:
// printable ASCII with nothing it escapes (a quote, a backslash, or <, >
// and & for HTML). Nearly every method, tool name and _meta key is.
func Plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// AppendString appends s as a JSON string, as encoding/json writes it:
// between quotes as it is when it is Plain, else by encoding/json.
func AppendString(b []byte, s string) []byte {
	if !Plain(s) {
		q, _ := json.Marshal(s) // a string always encodes
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// MustMarshal is v as encoding/json writes it, for a value that always
// encodes (strings, maps of them, raw messages): an error is a bug, and
// panics.
func MustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Marshal is v as encoding/json writes it, or nil when v does not
// encode.
func Marshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Encode is v as encoding/json writes it, but with <, > and & left as
// they are, in strings and in raw JSON alike (SetEscapeHTML(false)), and
// no newline after it.
func Encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
