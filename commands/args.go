package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// member is one key and its raw JSON value, kept in the order given.
type member struct {
	key   string
	value json.RawMessage
}

// parseStringPairs turns key=value words into members whose values are
// strings (prompt arguments, completion context, named by what); key:= is refused.
func parseStringPairs(words []string, what string) ([]member, error) {
	var out []member
	seen := map[string]bool{}
	for _, w := range words {
		key, val, ok := strings.Cut(w, "=")
		if !ok || key == "" || key == ":" {
			return nil, fmt.Errorf("argument %q: want key=value", w)
		}
		if name, isJSON := strings.CutSuffix(key, ":"); isJSON {
			return nil, fmt.Errorf("argument %q: %s are strings; use %s=VALUE", w, what, name)
		}
		raw, _ := json.Marshal(val)
		if seen[key] {
			return nil, fmt.Errorf("argument %q given twice", key)
		}
		seen[key] = true
		out = append(out, member{key, raw})
	}
	return out, nil
}

// readJSONArg reads a JSON flag value: literal JSON, @FILE, or - for stdin
// (the only way mcpv reads its stdin).
func readJSONArg(flag, v string, out *console) (json.RawMessage, error) {
	var data []byte
	switch {
	case v == "-":
		b, err := io.ReadAll(out.ios.In)
		if err != nil {
			return nil, fmt.Errorf("%s -: read stdin: %w", flag, err)
		}
		data = b
	case strings.HasPrefix(v, "@"):
		b, err := out.readFile(v[1:])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		data = b
	default:
		data = []byte(v)
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("%s: not valid JSON", flag)
	}
	return compactJSON(data), nil
}

// encodeObject writes members as a JSON object, in order.
func encodeObject(ms []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func compactJSON(data []byte) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return data
	}
	return b.Bytes()
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
