package otel

import (
	"context"
	"encoding/json"
	"time"
)

// Gauge is one figure of a run, as an OTLP gauge: its name, unit
// (UCUM: "ms", "1", "{iteration}/s") and value, and its attributes.
type Gauge struct {
	Name, Unit string
	Value      float64
	Attrs      []Attr
}

// Metrics posts a run's figures (mcpv load's) as OTLP gauges at the
// time given, each carrying the run's trace id as mcpv.trace_id so that
// the figures and the spans of the run can be found together; it
// returns the failure, also told to Failed.
func (r *Run) Metrics(at time.Time, figures []Gauge) error {
	type point struct {
		Attributes []otlpAttr `json:"attributes,omitempty"`
		Time       string     `json:"timeUnixNano"`
		Value      float64    `json:"asDouble"`
	}
	var metrics []any
	for _, g := range figures {
		p := point{Attributes: r.Exporter.attrs(append(g.Attrs, String("mcpv.trace_id", r.ctx.Trace.String()))), Time: nanos(at), Value: g.Value}
		metrics = append(metrics, map[string]any{"name": g.Name, "unit": g.Unit, "gauge": map[string]any{"dataPoints": []point{p}}})
	}
	body, _ := json.Marshal(map[string]any{"resourceMetrics": []any{map[string]any{
		"resource":     r.Exporter.resource(),
		"scopeMetrics": []any{map[string]any{"scope": scope, "metrics": metrics}},
	}}})
	ctx, cancel := context.WithTimeout(context.Background(), r.Exporter.cfg.Timeout)
	defer cancel()
	err := r.Exporter.post(ctx, r.Exporter.cfg.Metrics, body)
	r.Exporter.report(err)
	return err
}
