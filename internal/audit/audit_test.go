package audit

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/surface"
)

// server is a surface of the tools given as JSON, named name.
func server(name string, tools ...string) surface.Server {
	s := surface.Server{Name: name, HasIdentity: true, Info: json.RawMessage(`{"name":"` + name + `","version":"1.0.0"}`)}
	for _, t := range tools {
		s.Tools = append(s.Tools, json.RawMessage(t))
	}
	return s
}

// tool is a tool's JSON with a description and an inputSchema's
// properties (name -> description).
func tool(name, description string, params ...string) string {
	props := map[string]any{}
	for i := 0; i+1 < len(params); i += 2 {
		props[params[i]] = map[string]any{"type": "string", "description": params[i+1]}
	}
	b, _ := json.Marshal(map[string]any{"name": name, "description": description,
		"inputSchema": map[string]any{"type": "object", "properties": props}})
	return string(b)
}

func auditOf(servers ...surface.Server) []Finding {
	var targets []Target
	for _, s := range servers {
		targets = append(targets, Target{Surface: s})
	}
	return Audit(targets)
}

func describe(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s %s %s %s: %s | %s | %s\n", f.Severity, f.Rule, f.Item(), f.Field, f.Message, f.Excerpt, f.Decoded)
	}
	return b.String()
}

// has reports a finding of rule at sev or above.
func has(fs []Finding, rule string, sev Severity) bool {
	for _, f := range fs {
		if f.Rule == rule && f.Severity >= sev {
			return true
		}
	}
	return false
}

var _ = testing.Verbose
