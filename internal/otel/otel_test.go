package otel

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

func TestFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	if c, _, err := FromEnv(env(), false); c != nil || err != nil {
		t.Errorf("nothing asked: %+v, %v", c, err)
	}
	if c, _, err := FromEnv(env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318", "OTEL_SDK_DISABLED", "true"), true); c != nil || err != nil {
		t.Errorf("disabled: %+v, %v", c, err)
	}
	c, warnings, err := FromEnv(env(), true)
	if err != nil || warnings != nil || c.Traces != "http://localhost:4318/v1/traces" || c.Service != "mcpv" || c.Timeout != MaxTimeout {
		t.Errorf("the flag alone: %+v, %v", c, err)
	}
	c, warnings, err = FromEnv(env("OTEL_EXPORTER_OTLP_ENDPOINT", "https://c.example/otlp/", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://t:1/x",
		"OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20s3cret-token,x-team = core", "OTEL_SERVICE_NAME", "ci", "OTEL_EXPORTER_OTLP_TIMEOUT", "500"), false)
	if err != nil || warnings != nil || c.Traces != "http://t:1/x" || c.Metrics != "https://c.example/otlp/v1/metrics" || c.Headers["Authorization"] != "Bearer s3cret-token" ||
		c.Headers["x-team"] != "core" || c.Service != "ci" || c.Timeout != 500*time.Millisecond {
		t.Errorf("every variable: %+v, %v", c, err)
	}
	// more milliseconds than a time.Duration holds is the bound, not a wrapped negative
	for _, long := range []string{"10000000000000", "9223372036854775807"} {
		if c, _, err := FromEnv(env("OTEL_EXPORTER_OTLP_TIMEOUT", long), true); err != nil || c.Timeout != MaxTimeout {
			t.Errorf("a timeout of %s ms: %v, %v; want %v", long, c.Timeout, err, MaxTimeout)
		}
	}
	if s := strings.Join(c.Secrets(), " "); !strings.Contains(s, "s3cret-token") {
		t.Errorf("secrets %q", s)
	}
	if _, _, err := FromEnv(env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"), false); err == nil {
		t.Error("gRPC asked for: no error")
	}
}

// A value mcpv cannot read is warned about and treated as unset, as
// OpenTelemetry's rules for its variables say: a CI job that sets one
// badly loses its spans, not its steps.
func TestFromEnvUnreadable(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		env     []string
		traces  string // "" when nothing is exported
		headers int
		timeout time.Duration
		warning string
	}{
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "c:4318"}, "", 0, 0, "OTEL_EXPORTER_OTLP_ENDPOINT is not an http or https URL: treated as unset"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://u:s3cret@c"}, "", 0, 0, "OTEL_EXPORTER_OTLP_ENDPOINT is not an http or https URL"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "t:1"}, "http://c/v1/traces", 0, MaxTimeout, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c", "OTEL_EXPORTER_OTLP_HEADERS", "a=1,novalue-s3cret"}, "http://c/v1/traces", 0, MaxTimeout, "OTEL_EXPORTER_OTLP_HEADERS: item 2 is not key=value (its text, which may be a secret, is not shown): treated as unset"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "=x", "OTEL_EXPORTER_OTLP_HEADERS", "a=1"}, "http://c/v1/traces", 1, MaxTimeout, "OTEL_EXPORTER_OTLP_TRACES_HEADERS: item 1"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c", "OTEL_EXPORTER_OTLP_TIMEOUT", "soon"}, "http://c/v1/traces", 0, MaxTimeout, `OTEL_EXPORTER_OTLP_TIMEOUT="soon" is not a number of milliseconds: treated as unset`},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c", "OTEL_EXPORTER_OTLP_TIMEOUT", "-5"}, "http://c/v1/traces", 0, MaxTimeout, `OTEL_EXPORTER_OTLP_TIMEOUT="-5"`},
	}
	for _, tt := range tests {
		c, warnings, err := FromEnv(env(tt.env...), false)
		switch {
		case err != nil:
			t.Errorf("%q: %v", tt.env, err)
		case len(warnings) != 1 || !strings.HasPrefix(warnings[0], tt.warning) || strings.Contains(warnings[0], "s3cret"):
			t.Errorf("%q: warnings %q, want one starting %q", tt.env, warnings, tt.warning)
		case tt.traces == "" && c != nil:
			t.Errorf("%q: exported to %s, want nothing exported", tt.env, c.Traces)
		case tt.traces != "" && (c == nil || c.Traces != tt.traces || len(c.Headers) != tt.headers || c.Timeout != tt.timeout):
			t.Errorf("%q: %+v", tt.env, c)
		}
	}
}

func TestTraceparent(t *testing.T) {
	c, ok := ParseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if !ok || !c.Sampled || c.Traceparent() != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Errorf("%+v %v", c, ok)
	}
	for _, bad := range []string{"", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"} {
		if _, ok := ParseTraceparent(bad); ok {
			t.Errorf("%q read", bad)
		}
	}
}

func attr(span map[string]any, key string) string {
	for _, a := range span["attributes"].([]any) {
		m := a.(map[string]any)
		if m["key"] == key {
			v := m["value"].(map[string]any)
			for _, x := range v {
				return strings.Trim(strings.TrimSpace(jsonText(x)), `"`)
			}
		}
	}
	return ""
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

// A client session's requests become spans: named for method and tool,
// children of the run's, with the traceparent mcpv sent as their own
// context, the error's code, a tool's error and a cancellation; the run's
// span ends with the exit code.
func TestClientSpans(t *testing.T) {
	col := testkit.NewCollector(t)
	e := NewExporter(Config{Traces: col.URL, Service: "ci", Timeout: time.Minute, Headers: map[string]string{"X-Key": "k"}}, nil)
	run := Start(e, "mcpv call", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", time.Now())
	s := run.Session(KindClient, "http://127.0.0.1:9/mcp")
	s.Negotiated("2025-11-25", "sid-1")
	tp := run.TraceParent()
	s.Message(true, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","_meta":{"traceparent":"`+tp+`"}}}`))
	s.Message(false, []byte(`{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[]}}`))
	s.Message(true, []byte(`[{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///x"}},{"jsonrpc":"2.0","id":3,"method":"ping"}]`))
	s.Message(false, []byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"no such resource"}}`))
	s.Message(true, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`))
	s.Close()
	if err := run.End(3, "resources/read: no such resource"); err != nil {
		t.Fatal(err)
	}
	spans, headers := col.Spans(), col.Headers()
	if len(spans) != 4 || headers[len(headers)-1].Get("X-Key") != "k" {
		t.Fatalf("%d spans: %v", len(spans), spans)
	}
	byName := map[string]map[string]any{}
	for _, sp := range spans {
		byName[sp["name"].(string)] = sp
		if sp["traceId"] != "4bf92f3577b34da6a3ce929d0e0e4736" {
			t.Errorf("span %s of trace %s", sp["name"], sp["traceId"])
		}
	}
	cmd, call, read, ping := byName["mcpv call"], byName["tools/call add"], byName["resources/read"], byName["ping"]
	if cmd["parentSpanId"] != "00f067aa0ba902b7" || attr(cmd, "process.exit.code") != "3" || attr(cmd, "error.type") != "3" {
		t.Errorf("command span %v", cmd)
	}
	if call["spanId"] != tp[36:52] || call["parentSpanId"] != cmd["spanId"] || attr(call, "gen_ai.tool.name") != "add" || attr(call, "error.type") != "tool_error" ||
		attr(call, "mcp.session.id") != "sid-1" || attr(call, "mcp.protocol.version") != "2025-11-25" || attr(call, "server.port") != "9" || call["kind"] != float64(KindClient) {
		t.Errorf("call span %v", call)
	}
	if attr(read, "rpc.response.status_code") != "-32002" || attr(read, "mcp.resource.uri") != "file:///x" || read["status"].(map[string]any)["message"] != "no such resource" {
		t.Errorf("read span %v", read)
	}
	if attr(ping, "error.type") != "cancelled" {
		t.Errorf("ping span %v", ping)
	}
}

// The era's probe answered as a server of the initialize era answers it
// is no failure: its span carries the code and the era, no error; a
// modern server's refusal of it stays an error.
func TestProbeSpan(t *testing.T) {
	col := testkit.NewCollector(t)
	e := NewExporter(Config{Traces: col.URL, Timeout: time.Minute}, nil)
	run := Start(e, "mcpv ping", "", time.Now())
	s := run.Session(KindClient, "http://127.0.0.1:9/mcp")
	s.Message(true, []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`))
	s.Message(false, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`))
	s.Message(true, []byte(`{"jsonrpc":"2.0","id":2,"method":"server/discover"}`))
	s.Message(false, []byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32022,"message":"Unsupported protocol version"}}`))
	s.Close()
	if err := run.End(0, ""); err != nil {
		t.Fatal(err)
	}
	var probes []map[string]any
	for _, sp := range col.Spans() {
		if sp["name"] == "server/discover" {
			probes = append(probes, sp)
		}
	}
	if len(probes) != 2 {
		t.Fatalf("probe spans %v", probes)
	}
	for _, sp := range probes {
		code, failed := attr(sp, "rpc.response.status_code"), attr(sp, "error.type") != ""
		if code == "-32601" && (failed || attr(sp, "mcp.era") != "initialize") || code == "-32022" && !failed {
			t.Errorf("probe span %v", sp)
		}
	}
}

// A server's span is a child of the client's that its request names; a
// request relayed with a client's traceparent is a child of it too.
func TestServedAndRelayedSpans(t *testing.T) {
	col := testkit.NewCollector(t)
	run := Start(NewExporter(Config{Traces: col.URL, Timeout: time.Minute}, nil), "mcpv serve", "", time.Now())
	client := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	params := []byte(`{"name":"add","_meta":{"traceparent":"` + client + `"}}`)
	run.Served("tools/call", []byte("7"), params, []byte(`{"content":[]}`), "", "", time.Now(), time.Millisecond)
	up := run.Session(KindClient, "")
	up.Message(true, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+string(params)+`}`))
	up.Message(false, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	run.End(0, "")
	for _, sp := range col.Spans()[:2] {
		if sp["parentSpanId"] != "00f067aa0ba902b7" || sp["traceId"] != "4bf92f3577b34da6a3ce929d0e0e4736" || sp["spanId"] == "00f067aa0ba902b7" {
			t.Errorf("span %v is not a child of the client's", sp)
		}
	}
}

// A collector that answers 500, hangs or takes the connection and says
// nothing: Close returns within the bound, and the failure is told once.
func TestExportFailures(t *testing.T) {
	hang := make(chan struct{})
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 500) }))
	defer failing.Close()
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer hanging.Close()
	defer close(hang) // before the server's Close, which waits for its handlers
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hole.Close() // accepts into its backlog, never reads
	for _, c := range []struct {
		url, says string
		bound     time.Duration
	}{
		// The collector that answers is given a minute: on a busy machine
		// its 500 may take longer than a bound that is to run out.
		{failing.URL, "500", time.Minute},
		{hanging.URL, "did not answer within", 200 * time.Millisecond},
		{"http://" + hole.Addr().String(), "did not answer within", 200 * time.Millisecond},
	} {
		e := NewExporter(Config{Traces: c.url, Timeout: c.bound}, nil)
		var told atomic.Int32
		e.Failed = func(error) { told.Add(1) }
		run := Start(e, "mcpv ping", "", time.Now())
		for range MaxPending + 10 { // one batch in the background, the rest at Close
			e.Add(Span{Context: run.Context(), Name: "x", Start: time.Now(), End: time.Now()})
		}
		done := make(chan error, 1)
		go func() { done <- run.End(0, "") }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.says) || told.Load() != 1 {
				t.Errorf("%s: End = %v, told %d times", c.url, err, told.Load())
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: End still waiting after a minute, past its bound", c.url)
		}
	}
}

// Every text an export sends goes through the exporter's mask: each
// span's name, attributes and status message (a server's error that
// echoes a secret, a resource's URI, the command's last line), the
// resource's, and each figure's attributes; a secret learned after a
// span ended is masked in it too, as export happens later.
func TestExportMasksEveryText(t *testing.T) {
	const secret = "s3cret-echoed-9"
	col := testkit.NewCollector(t)
	e := NewExporter(Config{Traces: col.URL, Metrics: col.URL + "/v1/metrics", Service: "svc-" + secret, Timeout: time.Minute}, nil)
	var known []string
	e.Mask = func(s string) string {
		for _, k := range known {
			s = strings.ReplaceAll(s, k, "***")
		}
		return s
	}
	run := Start(e, "mcpv call", "", time.Now(), String("mcpv.command", "call "+secret))
	s := run.Session(KindClient, "")
	s.Message(true, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login-`+secret+`"}}`))
	s.Message(false, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"bad password `+secret+`"}}`))
	s.Message(true, []byte(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"db://u:`+secret+`@h"}}`))
	s.Close()
	run.Served("tools/call", []byte("7"), []byte(`{"name":"x"}`), nil, "-32000", "refused "+secret, time.Now(), time.Millisecond)
	known = append(known, secret)
	if err := run.Metrics(time.Now(), []Gauge{{Name: "g", Value: 1, Attrs: []Attr{String("k", secret)}}}); err != nil {
		t.Fatal(err)
	}
	if err := run.End(3, "tools/call: bad password "+secret); err != nil {
		t.Fatal(err)
	}
	spans := col.Spans()
	if len(spans) != 4 {
		t.Fatalf("%d spans: %v", len(spans), spans)
	}
	for _, sp := range spans {
		if b, _ := json.Marshal(sp); strings.Contains(string(b), secret) {
			t.Errorf("span %s", b)
		}
	}
	for _, m := range col.Metrics() {
		if strings.Contains(m, secret) {
			t.Errorf("metrics %s", m)
		}
	}
}
