package commands

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// readJSONObject reads a JSON object flag value: literal JSON, @FILE, or
// - for stdin (the only way mcpv reads its stdin); a mistake is a usage
// error.
func readJSONObject(flag, v string, out *console) (json.RawMessage, error) {
	var data []byte
	switch {
	case v == "-":
		b, err := io.ReadAll(out.ios.In)
		if err != nil {
			return nil, usageErrorf("%s -: read stdin: %w", flag, err)
		}
		data = b
	case strings.HasPrefix(v, "@"):
		b, err := out.readFile(v[1:])
		if err != nil {
			return nil, usageErrorf("%s: %w", flag, err)
		}
		data = b
	default:
		data = []byte(v)
	}
	if !json.Valid(data) {
		return nil, usageErrorf("%s: not valid JSON", flag)
	}
	raw := compactJSON(data)
	if !rawjson.IsObject(raw) {
		return nil, usageErrorf("%s: want a JSON object", flag)
	}
	return raw, nil
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
