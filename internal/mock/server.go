package mock

import (
	"encoding/json"
	"slices"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// initResult is the mock's initialize result: the responses' server
// section where it says, else info, no instructions, and the
// capabilities of what the files serve (logging when an entry logs,
// completions when there are completions). Recorded capabilities the
// mock cannot play (tasks: it runs none) are left out, and notes say so.
func initResult(snap surface.Snapshot, resp *Responses, info mcp.Implementation) (mcp.InitializeResult, []string) {
	self, _ := json.Marshal(info) // two strings always encode
	res := struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    *string         `json:"instructions,omitempty"`
	}{ProtocolVersion: Version, ServerInfo: self}
	var notes []string
	if s := resp.Server; s != nil {
		if s.ServerInfo != nil {
			res.ServerInfo = s.ServerInfo
		}
		res.Instructions = s.Instructions
		if s.Capabilities != nil {
			res.Capabilities, notes = playable(s.Capabilities)
		}
	}
	if res.Capabilities == nil {
		res.Capabilities = derived(snap, resp)
	}
	init, _ := mcp.ParseInitializeResult(rawjson.Marshal(res)) // an object, its capabilities one too
	return init, notes
}

// playable are recorded capabilities without those the mock cannot play.
func playable(caps json.RawMessage) (json.RawMessage, []string) {
	var notes []string
	out := []byte{'{'}
	rawjson.ForEachValidRawMember(caps, func(k string, rawKey, v []byte) error {
		if k == "tasks" {
			notes = append(notes, "the recorded server's tasks capability is not offered: a mock runs no tasks")
			return nil
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, rawKey...), ':'), v...)
		return nil
	})
	return append(out, '}'), notes
}

// derived are the capabilities of what the files serve.
func derived(snap surface.Snapshot, resp *Responses) json.RawMessage {
	caps := map[string]any{}
	if len(snap.Tools) > 0 {
		caps["tools"] = map[string]any{}
	}
	if len(snap.Prompts) > 0 {
		caps["prompts"] = map[string]any{}
	}
	if len(snap.ResourceTemplates) > 0 || len(resp.Resources) > 0 {
		caps["resources"] = map[string]any{"subscribe": true}
	}
	if len(resp.Completions) > 0 {
		caps["completions"] = map[string]any{}
	}
	for _, l := range resp.lists() {
		if slices.ContainsFunc(*l, func(e Entry) bool { return e.logs }) {
			caps["logging"] = map[string]any{}
		}
	}
	return rawjson.Marshal(caps)
}
