package commands

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// With an OTLP endpoint set, a command exports its span and one per
// request, the call's context carried to the server in _meta, the
// headers sent and masked; load posts its figures as metrics.
func TestOtelExport(t *testing.T) {
	t.Parallel()
	sink := testkit.NewCollector(t)
	log := filepath.Join(t.TempDir(), "received")
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	env := with(testEnv(t), "OTEL_EXPORTER_OTLP_ENDPOINT="+sink.URL, "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20otlp-s3cret-42",
		"TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	r := mcpvIn(t, env, "", "-v", "--trace", trace, "call", "x", "--env", mcptest.EnvLog+"="+log, "--env", mcptest.EnvVar+"=rpc-error", "--", os.Args[0])
	if r.code != 3 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	cmd, call := sink.Named("mcpv call"), sink.Named("tools/call x")
	if cmd == nil || call == nil {
		t.Fatalf("spans %v", sink.Spans())
	}
	if cmd["parentSpanId"] != "00f067aa0ba902b7" || call["parentSpanId"] != cmd["spanId"] || call["traceId"] != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("parents: command %v, call %v", cmd, call)
	}
	received, _ := os.ReadFile(log)
	want := `"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-` + call["spanId"].(string) + `-01"`
	if !strings.Contains(string(received), want) {
		t.Errorf("the server did not receive the call's context %s:\n%s", want, received)
	}
	if auth := sink.Headers()[0].Get("Authorization"); auth != "Bearer otlp-s3cret-42" {
		t.Errorf("the header sent: %q", auth)
	}
	data, _ := os.ReadFile(trace)
	if strings.Contains(r.stderr+string(data), "otlp-s3cret-42") {
		t.Errorf("the header's value shows")
	}

	l := mcpvIn(t, env, "", "load", "call", "x", "-n", "3", "--format", "json", "--env", mcptest.EnvVar+"=plain", "--", os.Args[0])
	if metrics := sink.Metrics(); l.code != 0 || len(metrics) != 1 || !strings.Contains(metrics[0], `"name":"mcpv.load.iterations"`) || !strings.Contains(metrics[0], `"asDouble":3`) {
		t.Errorf("load: exit %d, metrics %q\n%s", l.code, metrics, l.stderr)
	}
}

// A collector that answers 500 costs the run nothing but one line: the
// exit code is the command's, and the trace notes it; OTEL_SDK_DISABLED
// exports nothing.
func TestOtelExportFails(t *testing.T) {
	t.Parallel()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 500) }))
	defer failing.Close()
	trace := filepath.Join(t.TempDir(), "t.jsonl")
	env := with(testEnv(t), "OTEL_EXPORTER_OTLP_ENDPOINT="+failing.URL)
	r := mcpvIn(t, env, "", args([]string{"--trace", trace, "call", "x"}, fake("plain"))...)
	if r.code != 0 || strings.Count(r.stderr, "mcpv: otel: spans not exported") != 1 || !strings.Contains(r.stderr, "500") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if data, _ := os.ReadFile(trace); !strings.Contains(string(data), `"event":"otel"`) {
		t.Errorf("the trace does not note it:\n%s", data)
	}
	off := mcpvIn(t, with(env, "OTEL_SDK_DISABLED=true"), "", args([]string{"call", "x"}, fake("plain"))...)
	if off.code != 0 || off.stderr != "" {
		t.Errorf("disabled: exit %d, stderr %q", off.code, off.stderr)
	}
	bad := mcpvIn(t, with(env, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"), "", args([]string{"call", "x"}, fake("plain"))...)
	bad.expect(t, 2, "", "", "mcpv: otel: OTLP over gRPC")
	// A value mcpv cannot read is warned about once and treated as unset:
	// the command runs and its spans still go.
	unread := mcpvIn(t, with(env, "OTEL_EXPORTER_OTLP_TIMEOUT=soon"), "", args([]string{"call", "x"}, fake("plain"))...)
	const warning = `mcpv: warning: otel: OTEL_EXPORTER_OTLP_TIMEOUT="soon" is not a number of milliseconds: treated as unset` + "\n"
	if unread.code != 0 || strings.Count(unread.stderr, warning) != 1 || !strings.Contains(unread.stderr, "mcpv: otel: spans not exported") {
		t.Errorf("an unreadable timeout: exit %d, stderr %q", unread.code, unread.stderr)
	}
}

// A collector that hangs, or a black hole that takes the connection and
// never answers, holds mcpv up no longer than the export's bound (2 s),
// not the hour the collector would take.
func TestOtelExportDoesNotWait(t *testing.T) {
	testkit.SkipLong(t, "waits the export's bound of 2 s")
	t.Parallel()
	hang := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-time.After(time.Hour):
		}
	}))
	defer hanging.Close()
	defer close(hang)
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hole.Close()
	for _, url := range []string{hanging.URL, "http://" + hole.Addr().String()} {
		start := time.Now()
		env := testEnv(t)
		env.ExportWait = 0 // the product's own bound
		r := mcpvIn(t, with(env, "OTEL_EXPORTER_OTLP_ENDPOINT="+url), "", args([]string{"call", "x"}, fake("plain"))...)
		if took := time.Since(start); r.code != 0 || took > 10*time.Minute || !strings.Contains(r.stderr, "did not answer within 2s") {
			t.Errorf("%s: exit %d after %v, stderr %q", url, r.code, took, r.stderr)
		}
	}
}
