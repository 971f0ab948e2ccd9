package commands

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

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
