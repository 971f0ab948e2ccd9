//go:build unix && e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// jaeger is a Jaeger v2 started for a test, on loopback ports of its own.
type jaeger struct {
	otlp, query string // the OTLP/HTTP endpoint, the query API's base URL
}

// startJaeger starts the Jaeger that scripts/jaeger.sh built (MCPV_JAEGER
// names it) with scripts/jaeger/config.yaml, and waits for its query API.
func startJaeger(t *testing.T) *jaeger {
	t.Helper()
	bin := os.Getenv("MCPV_JAEGER")
	if bin == "" {
		t.Skip("MCPV_JAEGER names no Jaeger binary: MCPV_JAEGER=$(bash scripts/jaeger.sh) runs this test")
	}
	var ports []string
	for len(ports) < 3 {
		if p := strconv.Itoa(testkit.FreePort(t)); !slices.Contains(ports, p) {
			ports = append(ports, p)
		}
	}
	config, err := filepath.Abs("../scripts/jaeger/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", config)
	cmd.Env = append(os.Environ(), "MCPV_JAEGER_OTLP_PORT="+ports[0], "MCPV_JAEGER_QUERY_PORT="+ports[1], "MCPV_JAEGER_GRPC_PORT="+ports[2])
	logs := filepath.Join(t.TempDir(), "jaeger.log")
	out, _ := os.Create(logs)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); out.Close() })
	j := &jaeger{otlp: "http://127.0.0.1:" + ports[0], query: "http://127.0.0.1:" + ports[1]}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := testkit.HTTP(t).Get(j.query + "/api/services"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return j
			}
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logs)
			t.Fatalf("Jaeger's query API did not come up:\n%s", b)
		}
	}
}

// jaegerSpan is a span as Jaeger's query API shows it.
type jaegerSpan struct {
	TraceID, SpanID, OperationName string
	References                     []struct{ RefType, TraceID, SpanID string }
	Tags                           []struct {
		Key   string
		Value any
	}
}

func (s jaegerSpan) tag(key string) string {
	for _, t := range s.Tags {
		if t.Key == key {
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

func (s jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// traces are the traces Jaeger holds with a span of operation op.
func (j *jaeger) traces(t *testing.T, op string) [][]jaegerSpan {
	t.Helper()
	resp, err := testkit.HTTP(t).Get(j.query + "/api/traces?service=mcpv&limit=50&operation=" + url.QueryEscape(op))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Data []struct{ Spans []jaegerSpan }
	}
	json.NewDecoder(resp.Body).Decode(&got)
	var out [][]jaegerSpan
	for _, tr := range got.Data {
		out = append(out, tr.Spans)
	}
	return out
}

// find is the span of spans named name, of kind, whose parent is parent.
func find(spans []jaegerSpan, name, kind, parent string) (jaegerSpan, bool) {
	for _, s := range spans {
		if s.OperationName == name && s.tag("span.kind") == kind && s.parent() == parent {
			return s, true
		}
	}
	return jaegerSpan{}, false
}

// chain waits for a trace of the command span "mcpv call" with a child
// span call (a client's) with a child relayed (of kind relayKind), and
// returns the three.
func (j *jaeger) chain(t *testing.T, call, relayed, relayKind string) (cmd, c, r jaegerSpan) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		for _, spans := range j.traces(t, "mcpv call") {
			cmd, ok := find(spans, "mcpv call", "internal", "")
			if !ok {
				continue
			}
			if c, ok = find(spans, call, "client", cmd.SpanID); !ok {
				continue
			}
			if r, ok = find(spans, relayed, relayKind, c.SpanID); ok {
				return cmd, c, r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no trace in Jaeger where mcpv call has a child %q with a child %q (%s): %+v", call, relayed, relayKind, j.traces(t, "mcpv call"))
		}
	}
}

// A call through mcpv's gateway, and one through mcpv serve, leave their
// spans in a real collector: the command's, the call's as its child, and
// the relay's as the call's child, with the attributes of the semantic
// conventions for MCP; the context crossed the wire in params._meta.
func TestSpansInJaeger(t *testing.T) {
	j := startJaeger(t)
	dir := t.TempDir()
	gw := filepath.Join(dir, "gateway.yaml")
	os.WriteFile(gw, []byte(fmt.Sprintf("servers:\n  a:\n    command: %s\n    args: [mock, --tool, add=3]\n  b:\n    command: %s\n    args: [mock, --tool, echo=hi]\n", mcpvBin, mcpvBin)), 0o644)
	env := append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+j.otlp, "OTEL_SERVICE_NAME=mcpv")
	for _, c := range []struct {
		name, tool, relayed, relayKind string
		server                         []string
	}{
		{"gateway", "a__add", "tools/call add", "client", []string{"serve", gw}},
		{"serve", "add", "tools/call add", "server", []string{"serve", "--", mcpvBin, "mock", "--tool", "add=3"}},
	} {
		cmd := exec.Command(mcpvBin, append([]string{"call", c.tool, "--", mcpvBin}, c.server...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		cmdSpan, call, relayed := j.chain(t, "tools/call "+c.tool, c.relayed, c.relayKind)
		if call.tag("mcp.method.name") != "tools/call" || call.tag("gen_ai.tool.name") != c.tool || call.tag("jsonrpc.request.id") == "" ||
			call.tag("mcp.protocol.version") == "" || call.tag("network.transport") != "pipe" {
			t.Errorf("%s: the call's span %+v", c.name, call)
		}
		if relayed.TraceID != call.TraceID || relayed.tag("gen_ai.tool.name") != "add" || relayed.tag("mcp.method.name") != "tools/call" {
			t.Errorf("%s: the relayed span %+v", c.name, relayed)
		}
		if cmdSpan.tag("process.exit.code") != "0" || !strings.HasPrefix(cmdSpan.tag("mcpv.command"), "call") {
			t.Errorf("%s: the command's span %+v", c.name, cmdSpan)
		}
	}
}
