package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest/pipeclient"
)

// BenchmarkBatchPings is a batch of b.N ping lines, 64 at once, against a
// fixture server on pipes in the test process: per line (an op is a line),
// what the batch path costs (reading the line, sending it as it is, the
// answer routed back, the output line written in input order) beside the
// server's share. It checks every output line.
//
//	go test ./commands -run XXX -bench BatchPings -benchmem -count=5
func BenchmarkBatchPings(b *testing.B) {
	c := pipeclient.Client(b, `{}`, mcp.ClientOptions{})
	client := func(context.Context) (*mcp.Client, error) { return c, nil }
	in := bytes.Repeat([]byte(`{"method":"ping"}`+"\n"), b.N)
	out := bytes.NewBuffer(make([]byte, 0, b.N*32))
	b.ReportAllocs()
	b.ResetTimer()
	first, err := runBatch(context.Background(), batchOptions{In: bytes.NewReader(in), Out: out, Workers: 64,
		Do: func(ctx context.Context, op batchOp) batchResult {
			id, res, err := runJSONLine(ctx, op.Text, client)
			code := 0
			if err != nil {
				code = 1
			}
			return batchResult{Out: batchOutputLine(op.Line, id, res, err, code), Code: code}
		}})
	b.StopTimer()
	if first != 0 || err != nil {
		b.Fatalf("runBatch = %d, %v; output:\n%s", first, err, out.Bytes())
	}
	for n := 1; n <= b.N; n++ {
		line, err := out.ReadBytes('\n')
		var got struct {
			Line   int             `json:"line"`
			Result json.RawMessage `json:"result"`
		}
		if err != nil || json.Unmarshal(line, &got) != nil || got.Line != n || string(got.Result) != "{}" {
			b.Fatalf("output line %d is %q (%v), want %s", n, line, err, fmt.Sprintf(`{"line":%d,"result":{}}`, n))
		}
	}
}
