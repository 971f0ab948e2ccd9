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
	data := []byte(v)
	var err error
	switch {
	case v == "-":
		if data, err = io.ReadAll(out.ios.In); err != nil {
			return nil, usageErrorf("%s -: read stdin: %w", flag, err)
		}
	case strings.HasPrefix(v, "@"):
		if data, err = out.readFile(v[1:]); err != nil {
			return nil, usageErrorf("%s: %w", flag, err)
		}
	}
	if !json.Valid(data) {
		return nil, usageErrorf("%s: not valid JSON", flag)
	}
	var raw bytes.Buffer
	json.Compact(&raw, data) // valid JSON, as checked: it cannot fail
	if !rawjson.IsObject(raw.Bytes()) {
		return nil, usageErrorf("%s: want a JSON object", flag)
	}
	return raw.Bytes(), nil
}

func mustJSON(v any) []byte { return rawjson.Marshal(v) }
