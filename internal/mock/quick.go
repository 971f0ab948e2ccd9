package mock

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
)

// ToolFlag reads a tool given on the command line (--tool): NAME answers
// every call with no content, NAME=TEXT with TEXT as its text, NAME:=JSON
// with JSON as the result. The tool takes any arguments.
func ToolFlag(spec string) (tool json.RawMessage, e Entry, err error) {
	name, answer, hasAnswer := strings.Cut(spec, "=")
	asJSON := strings.HasSuffix(name, ":") && hasAnswer
	name = strings.TrimSuffix(name, ":")
	if name == "" || strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.") != "" || len(name) > 128 {
		return nil, Entry{}, fmt.Errorf("%q: a tool's name is 1 to 128 letters, digits, _, - and . (then =TEXT or :=JSON)", name)
	}
	e = Entry{Name: name, Result: json.RawMessage(`{"content":[]}`)}
	switch {
	case asJSON:
		if !json.Valid([]byte(answer)) || !rawjson.IsObject([]byte(answer)) {
			return nil, Entry{}, fmt.Errorf("%s: the result after := must be a JSON object", name)
		}
		e.Result = json.RawMessage(answer)
	case hasAnswer:
		e.Result = textResult(answer)
	}
	if err := e.check("tools", "--tool "+name); err != nil {
		return nil, Entry{}, err
	}
	tool, _ = json.Marshal(struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}{name, json.RawMessage(`{"type":"object"}`)})
	return tool, e, nil
}

// textResult is a tool result of one text.
func textResult(text string) json.RawMessage {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	return rawjson.Marshal(struct {
		Content []block `json:"content"`
	}{[]block{{"text", text}}})
}

// WithTools is snap with the tools given on the command line added, each
// unless snap has a tool of that name (whose definition stays).
func WithTools(snap surface.Snapshot, tools []json.RawMessage) surface.Snapshot {
	have := map[string]bool{}
	for _, t := range snap.Tools {
		have[rawjson.Key(t, "name")] = true
	}
	for _, t := range tools {
		if name := rawjson.Key(t, "name"); !have[name] {
			have[name] = true
			snap.Tools = append(snap.Tools, t)
		}
	}
	return snap
}
