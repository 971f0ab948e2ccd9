package trace

import (
	"encoding/json"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// Surface is what a trace shows of its server: who it said it was (its
// initialize or server/discover result), its instructions and every
// item of the lists the run asked for, each page merged, the first time
// an item appears (the lists of the first session that listed it).
func Surface(lines []Line) surface.Server {
	var s surface.Server
	seen := map[string]bool{}
	for _, e := range Exchanges(lines) {
		if e.Result == nil {
			continue
		}
		switch e.Method {
		case "initialize", "server/discover":
			var r struct {
				ProtocolVersion string                     `json:"protocolVersion"`
				ServerInfo      json.RawMessage            `json:"serverInfo"`
				Instructions    *string                    `json:"instructions"`
				Capabilities    json.RawMessage            `json:"capabilities"`
				Supported       []string                   `json:"supportedVersions"`
				Meta            map[string]json.RawMessage `json:"_meta"`
			}
			if json.Unmarshal(e.Result, &r) != nil {
				continue
			}
			if r.ServerInfo == nil { // the modern era's, in _meta
				r.ServerInfo = r.Meta[mcp.MetaServerInfo]
			}
			if r.ProtocolVersion == "" && len(r.Supported) > 0 {
				r.ProtocolVersion = r.Supported[len(r.Supported)-1]
			}
			if !s.HasIdentity && r.ServerInfo != nil {
				s.Info, s.Instructions, s.ProtocolVersion, s.HasIdentity = r.ServerInfo, r.Instructions, r.ProtocolVersion, true
				s.Name = s.InfoName()
			}
		case "tools/list":
			items(e.Result, "tools", "name", seen, &s.Tools)
		case "prompts/list":
			items(e.Result, "prompts", "name", seen, &s.Prompts)
		case "resources/templates/list":
			items(e.Result, "resourceTemplates", "uriTemplate", seen, &s.ResourceTemplates)
		case "resources/list":
			items(e.Result, "resources", "uri", seen, &s.Resources)
			s.HasResources = true
		}
	}
	for _, l := range lines {
		if l.Type == "event" && l.Event == "session" && l.ProtocolVersion != "" {
			s.ProtocolVersion = l.ProtocolVersion // what was spoken, not what was offered
			break
		}
	}
	return s
}

// items adds the items of a list page not seen yet to dest.
func items(result json.RawMessage, list, key string, seen map[string]bool, dest *[]json.RawMessage) {
	var page map[string]json.RawMessage
	rawjson.DecodeLoose(result, &page)
	var its []json.RawMessage
	rawjson.DecodeLoose(page[list], &its)
	for _, it := range its {
		var m map[string]json.RawMessage
		rawjson.DecodeLoose(it, &m)
		k := list + "\x00" + string(m[key])
		if !seen[k] {
			seen[k] = true
			*dest = append(*dest, it)
		}
	}
}
