package audit

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpv/mcpv/internal/surface"
)

// thousand is a server of 1,000 tools, each with a description of about
// 200 characters and three parameters, as scripts/bench-trust.sh serves.
func thousand() surface.Server {
	s := surface.Server{Name: "thousand", HasIdentity: true, Info: json.RawMessage(`{"name":"thousand","version":"1"}`)}
	for i := range 1000 {
		s.Tools = append(s.Tools, json.RawMessage(fmt.Sprintf(`{"name":"tool_%04d","description":"Returns the records of collection %d that match a query, newest first. Use the limit to page through large collections; the cursor comes from the previous answer.","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"What to look for."},"limit":{"type":"integer","minimum":1,"maximum":100},"cursor":{"type":"string"}},"required":["query"]},"annotations":{"readOnlyHint":true}}`, i, i)))
	}
	return s
}

func BenchmarkAuditThousandTools(b *testing.B) {
	targets := []Target{{Surface: thousand()}}
	for b.Loop() {
		if f := Audit(targets); len(f) != 0 {
			b.Fatalf("findings in an honest server: %+v", f[0])
		}
	}
}
