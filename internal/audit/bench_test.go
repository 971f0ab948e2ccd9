package audit

import (
	"encoding/json"
	"fmt"
	"os"
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
	s := thousand()
	for b.Loop() {
		if f := Audit([]Target{{Surface: s}}); len(f) != 0 {
			b.Fatalf("findings in an honest server: %+v", f[0])
		}
	}
}

// BenchmarkAuditRealTools audits the tools of the file
// MCPV_AUDIT_BENCH_TOOLS names (a JSON object whose "tools" are real
// servers' tools, as scripts/bench-trust.sh builds from a field set), and
// is skipped without one.
func BenchmarkAuditRealTools(b *testing.B) {
	path := os.Getenv("MCPV_AUDIT_BENCH_TOOLS")
	if path == "" {
		b.Skip("MCPV_AUDIT_BENCH_TOOLS names no file of real tools")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var spec struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		b.Fatal(err)
	}
	s := surface.Server{Name: "real", Snapshot: surface.Snapshot{Tools: spec.Tools}}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Audit([]Target{{Surface: s}}) // (Audit empties the lists of its targets)
	}
}
