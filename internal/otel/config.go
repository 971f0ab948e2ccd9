// Package otel exports what mcpv does as OpenTelemetry spans (and mcpv
// load's figures as metrics) over OTLP/HTTP in its JSON encoding, set up
// by the standard OTEL_EXPORTER_OTLP_* variables: a span for the command,
// and one per MCP request following OpenTelemetry's semantic conventions
// for MCP (span name "{mcp.method.name} {target}", mcp.method.name,
// mcp.session.id, mcp.protocol.version, jsonrpc.request.id,
// gen_ai.tool.name, error.type, rpc.response.status_code...), each
// request's context passed to the server in params._meta.traceparent as
// the 2026-07-28 specification reserves it. It is mcpv's own small
// exporter rather than OpenTelemetry's Go SDK, whose packages cost every
// run of mcpv their initialisation whether it exports or not; nothing
// here runs unless export is asked for.
package otel

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is where and how spans go.
type Config struct {
	// Traces and Metrics are the URLs spans and metrics are posted to.
	Traces, Metrics string
	// Headers are sent with each export (OTEL_EXPORTER_OTLP_HEADERS);
	// their values are secrets, masked wherever mcpv writes.
	Headers map[string]string
	// Service is the resource's service.name (OTEL_SERVICE_NAME).
	Service string
	// Timeout bounds each export (OTEL_EXPORTER_OTLP_TIMEOUT, at most
	// MaxTimeout).
	Timeout time.Duration
}

// DefaultEndpoint is where spans go when only --otel asks for them.
const DefaultEndpoint = "http://localhost:4318"

// MaxTimeout bounds an export, and so how long mcpv waits for the
// collector at its exit: a collector that hangs or is a black hole does
// not hold a command up longer.
const MaxTimeout = 2 * time.Second

// FromEnv reads the standard variables: it returns nil when nothing asks
// for export (neither flag nor an OTLP endpoint set) or
// OTEL_SDK_DISABLED=true says not to, and an error for a setting it
// cannot follow (gRPC). A value it cannot read is treated as unset, as
// OpenTelemetry's rules for its variables say, and named in a warning
// (the value itself only where it cannot hold a secret).
func FromEnv(getenv func(string) string, flag bool) (c *Config, warnings []string, err error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil, nil
	}
	endpoint := func(name, v string) string {
		if u, err := url.Parse(v); v != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
			warnings = append(warnings, name+" is not an http or https URL: treated as unset")
			return ""
		}
		return v
	}
	base, traces, metrics := endpoint("OTEL_EXPORTER_OTLP_ENDPOINT", getenv("OTEL_EXPORTER_OTLP_ENDPOINT")),
		endpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
		endpoint("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"))
	if !flag && base == "" && traces == "" {
		return nil, warnings, nil
	}
	if getenv("OTEL_EXPORTER_OTLP_PROTOCOL") == "grpc" || getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") == "grpc" {
		return nil, warnings, errors.New("OTLP over gRPC: mcpv exports over OTLP/HTTP only (http/json; a collector takes it on its HTTP port, 4318)")
	}
	base = strings.TrimSuffix(cmp.Or(base, DefaultEndpoint), "/")
	c = &Config{Service: cmp.Or(getenv("OTEL_SERVICE_NAME"), "mcpv"), Timeout: MaxTimeout, Headers: map[string]string{},
		Traces: cmp.Or(traces, base+"/v1/traces"), Metrics: cmp.Or(metrics, base+"/v1/metrics")}
	for _, v := range [][2]string{ // the traces' own last: they win
		{"OTEL_EXPORTER_OTLP_HEADERS", getenv("OTEL_EXPORTER_OTLP_HEADERS")},
		{"OTEL_EXPORTER_OTLP_TRACES_HEADERS", getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS")},
	} {
		if err := headers(v[1], c.Headers); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v: treated as unset", v[0], err))
		}
	}
	if t := getenv("OTEL_EXPORTER_OTLP_TIMEOUT"); t != "" {
		if ms, err := strconv.Atoi(t); err != nil || ms <= 0 {
			warnings = append(warnings, fmt.Sprintf("OTEL_EXPORTER_OTLP_TIMEOUT=%q is not a number of milliseconds: treated as unset", t[:min(len(t), 40)]))
		} else {
			c.Timeout = time.Duration(min(ms, int(MaxTimeout/time.Millisecond))) * time.Millisecond // bounded before it can overflow
		}
	}
	return c, warnings, nil
}

// headers reads a list of key=value pairs (values URL-encoded) into h;
// a list with an item it cannot read adds nothing.
func headers(list string, h map[string]string) error {
	read := map[string]string{}
	defer maps.Copy(h, read)
	n := 0
	for item := range strings.SplitSeq(list, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		n++
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			clear(read)
			return fmt.Errorf("item %d is not key=value (its text, which may be a secret, is not shown)", n)
		}
		dv, err := url.QueryUnescape(strings.TrimSpace(v))
		if err != nil {
			dv = strings.TrimSpace(v)
		}
		read[k] = dv
	}
	return nil
}

// Secrets are the values Config holds that mcpv masks wherever it
// writes: the headers' values, and the credentials of the endpoints.
func (c *Config) Secrets() []string {
	var out []string
	for _, v := range c.Headers {
		out = append(out, v)
		if _, cred, ok := strings.Cut(v, " "); ok {
			out = append(out, cred)
		}
	}
	for _, e := range []string{c.Traces, c.Metrics} {
		if u, err := url.Parse(e); err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok {
				out = append(out, p)
			}
		}
	}
	return out
}
