// Package xk6mcp is a k6 extension that gives k6 scripts an MCP client,
// mcpv's own (github.com/mcpv/mcpv/mcp): connect to a server over
// Streamable HTTP in either era of the protocol, call its tools, list
// them, read resources, get prompts, each timed into k6's metrics, so
// that a load test of an MCP server runs on k6's executors and
// distributed execution when one machine cannot generate enough load.
//
//	import mcp from 'k6/x/mcp';
//
//	export default function () {
//	  const client = mcp.connect('http://127.0.0.1:8080/mcp');
//	  const r = client.call('echo', { message: 'hi' });
//	  check(r, { ok: (r) => r.ok });
//	  client.close();
//	}
//
// A session outlives the iteration that opened it (hold one per VU, as
// above, or open and close one per iteration); one a script never closes
// ends with k6's process, without the HTTP DELETE that close() sends.
//
// Metrics: mcp_setup_duration (a session's connect and initialize or
// discover), mcp_duration (each operation, tagged op and name), mcp_reqs
// and mcp_failed (a rate: a JSON-RPC error, a tool's isError, a transport
// failure or a timeout), mcp_server_logs (the server's log messages,
// tagged level). Inside a k6 group() every sample also carries the
// group's tag, so that a scenario's steps have metrics of their own.
package xk6mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"go.k6.io/k6/js/modules"
	"go.k6.io/k6/metrics"

	"github.com/mcpv/mcpv/mcp"
)

func init() {
	modules.Register("k6/x/mcp", new(rootModule))
}

type rootModule struct{}

// instance is the module in one VU.
type instance struct {
	vu modules.VU
	m  *mcpMetrics
}

type mcpMetrics struct {
	setup, duration, reqs, failed, logs *metrics.Metric
}

func (*rootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	r := vu.InitEnv().Registry
	return &instance{vu: vu, m: &mcpMetrics{
		setup:    r.MustNewMetric("mcp_setup_duration", metrics.Trend, metrics.Time),
		duration: r.MustNewMetric("mcp_duration", metrics.Trend, metrics.Time),
		reqs:     r.MustNewMetric("mcp_reqs", metrics.Counter),
		failed:   r.MustNewMetric("mcp_failed", metrics.Rate),
		logs:     r.MustNewMetric("mcp_server_logs", metrics.Counter),
	}}
}

func (mi *instance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{"connect": mi.connect}}
}

// Options shape a connection.
type Options struct {
	// Era is auto (server/discover, then initialize), legacy (initialize
	// only) or modern (2026-07-28 only).
	Era string `js:"era"`
	// Headers are sent with every request.
	Headers map[string]string `js:"headers"`
	// Timeout bounds each request (a Go duration: "10s"); default 60s.
	Timeout string `js:"timeout"`
	// ProtocolVersion, when set, is the only version offered.
	ProtocolVersion string `js:"protocolVersion"`
}

// connect opens a session, timed into mcp_setup_duration. It throws
// when the session cannot be opened.
func (mi *instance) connect(url string, opts *Options) (*Client, error) {
	if opts == nil {
		opts = &Options{}
	}
	state := mi.vu.State()
	if state == nil {
		return nil, errors.New("mcp.connect: call it in a VU's code (the default function or setup), not in the init context")
	}
	timeout := 60 * time.Second
	if opts.Timeout != "" {
		d, err := time.ParseDuration(opts.Timeout)
		if err != nil {
			return nil, fmt.Errorf("mcp.connect: timeout %q: %w", opts.Timeout, err)
		}
		timeout = d
	}
	header := http.Header{}
	for k, v := range opts.Headers {
		header.Set(k, v)
	}
	// k6's own transport: its dialer counts data_sent and data_received
	// and keeps its blocked hostnames and TLS settings.
	t, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: url, Client: &http.Client{Transport: state.Transport}, Header: header})
	if err != nil {
		return nil, fmt.Errorf("mcp.connect: %w", err)
	}
	copts := mcp.ClientOptions{Info: mcp.Implementation{Name: "xk6-mcp", Version: "0"}, Timeout: timeout,
		ProtocolVersion: opts.ProtocolVersion}
	switch opts.Era {
	case "", "auto":
		copts.Probe = true
	case "legacy":
	case "modern":
		if copts.ProtocolVersion == "" {
			copts.ProtocolVersion = mcp.ModernVersion
		}
	default:
		return nil, fmt.Errorf("mcp.connect: era %q: want auto, legacy or modern", opts.Era)
	}
	ctx := mi.vu.Context()
	start := time.Now()
	c := &Client{mi: mi}
	// The server's log messages are counted by level on the session's
	// dispatcher, and reach k6's metrics on the VU's own goroutine, with
	// its next operation (mcp_server_logs, tagged level), rather than
	// printed: a server that logs each call would bury k6's output.
	client, err := mcp.Initialize(ctx, mcp.NewSession(t, mcp.SessionOptions{OnNotification: c.note}), copts)
	mi.push(mi.m.setup, metrics.D(time.Since(start)), "connect", url)
	if err != nil {
		t.Close(context.Background())
		return nil, fmt.Errorf("mcp.connect %s: %w", url, err)
	}
	// k6 gives an extension the context of the iteration only, and no
	// hook at the end of a VU: a session lives until close(), or until
	// k6 exits and its connections with it.
	c.c = client
	return c, nil
}

// push sends one sample tagged op and name, if the VU still runs.
func (mi *instance) push(m *metrics.Metric, v float64, op, name string) {
	tags := map[string]string{"op": op}
	if name != "" {
		tags["name"] = name
	}
	mi.pushTagged(m, v, tags)
}

// pushTagged sends one sample with these tags besides the VU's, if the VU
// still runs.
func (mi *instance) pushTagged(m *metrics.Metric, v float64, with map[string]string) {
	state := mi.vu.State()
	if state == nil {
		return
	}
	tags := state.Tags.GetCurrentValues()
	for k, v := range with {
		tags.SetTag(k, v)
	}
	metrics.PushIfNotDone(mi.vu.Context(), state.Samples, metrics.Sample{
		TimeSeries: metrics.TimeSeries{Metric: m, Tags: tags.Tags}, Metadata: tags.Metadata, Time: time.Now(), Value: v,
	})
}
