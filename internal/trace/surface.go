package trace

import (
	"encoding/json"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// Surface is what a trace shows of its server: who it said it was (its
// initialize or server/discover result), its instructions and every
// item of the lists the run asked for, each page merged, the first time
// an item appears (the lists of the first session that listed it). A list
// page whose items do not decode is an error (mcp.DecodeResult's): a
// surface without them would be a wrong one.
func Surface(lines []Line) (surface.Server, error) {
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
		case "tools/list", "prompts/list", "resources/templates/list", "resources/list":
			l := map[string]struct {
				list, key string
				dest      *[]json.RawMessage
			}{"tools/list": {"tools", "name", &s.Tools}, "prompts/list": {"prompts", "name", &s.Prompts},
				"resources/templates/list": {"resourceTemplates", "uriTemplate", &s.ResourceTemplates}, "resources/list": {"resources", "uri", &s.Resources}}[e.Method]
			if err := items(e.Method, e.Result, l.list, l.key, seen, l.dest); err != nil {
				return s, err
			}
			s.HasResources = s.HasResources || e.Method == "resources/list"
		}
	}
	for _, l := range lines {
		if l.Type == "event" && l.Event == "session" && l.ProtocolVersion != "" {
			s.ProtocolVersion = l.ProtocolVersion // what was spoken, not what was offered
			break
		}
	}
	return s, nil
}

// items adds the items of a list page (method's result) not seen yet to
// dest.
func items(method string, result json.RawMessage, list, key string, seen map[string]bool, dest *[]json.RawMessage) error {
	var page map[string]json.RawMessage
	var its []json.RawMessage
	if err := mcp.DecodeResult(method, result, &page); err != nil {
		return err
	}
	if err := mcp.DecodeResult(method, page[list], &its); page[list] != nil && err != nil {
		return err
	}
	for _, it := range its {
		var m map[string]json.RawMessage
		if err := mcp.DecodeResult(method, it, &m); err != nil {
			return err
		}
		if k := list + "\x00" + string(m[key]); !seen[k] {
			seen[k] = true
			*dest = append(*dest, it)
		}
	}
	return nil
}
