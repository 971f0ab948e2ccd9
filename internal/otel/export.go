package otel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// MaxPending bounds the spans an exporter holds before it sends them:
// past it, a batch is sent at once, in the background; past twice it
// while a batch is still on its way, spans are dropped and counted.
const MaxPending = 512

// Exporter sends spans to an OTLP/HTTP collector, in batches: when
// MaxPending are held, and at Close. It is safe for concurrent use.
type Exporter struct {
	cfg    Config
	client *http.Client
	// Failed is told, once, when an export fails (its spans are lost);
	// nil says nothing.
	Failed func(error)
	// Mask, when set, masks every text sent: each span's name, attribute
	// and status message, each figure's attribute. A span quotes what a
	// server answered (an error's message), which may echo a secret.
	Mask func(string) string

	mu      sync.Mutex // guards the fields below
	pending []Span
	dropped int
	told    bool
	sending sync.WaitGroup // batches on their way (the background sender)
}

// NewExporter sends to cfg's collector through client (nil: one of its
// own, bounded by cfg.Timeout).
func NewExporter(cfg Config, client *http.Client) *Exporter {
	if client == nil {
		client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return &Exporter{cfg: cfg, client: client}
}

// Add queues a finished span.
func (e *Exporter) Add(s Span) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.pending) >= 2*MaxPending {
		e.dropped++
		return
	}
	e.pending = append(e.pending, s)
	if len(e.pending) == MaxPending {
		batch := e.pending
		e.pending = nil
		e.sending.Go(func() { // span export batch: ends when its post does, bounded by cfg.Timeout
			ctx, cancel := context.WithTimeout(context.Background(), e.cfg.Timeout)
			defer cancel()
			e.report(e.post(ctx, e.cfg.Traces, e.tracesBody(batch)))
		})
	}
}

// Close sends what is held and waits for the batches on their way, all
// within cfg.Timeout, and returns the first failure (told to Failed).
func (e *Exporter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.Timeout)
	defer cancel()
	e.mu.Lock()
	batch, dropped := e.pending, e.dropped
	e.pending = nil
	e.mu.Unlock()
	var err error
	if len(batch) > 0 {
		err = e.post(ctx, e.cfg.Traces, e.tracesBody(batch))
	}
	if err == nil && dropped > 0 {
		err = fmt.Errorf("%d spans dropped: the collector took them slower than they came", dropped)
	}
	done := make(chan struct{})
	go func() { e.sending.Wait(); close(done) }() // batch waiter: ends when the background senders do, each bounded
	select {
	case <-done:
	case <-ctx.Done():
	}
	e.report(err)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.told { // an earlier export failed, and was told
		return errors.New("an export failed")
	}
	return nil
}

// report tells Failed of err, once.
func (e *Exporter) report(err error) {
	if err == nil {
		return
	}
	e.mu.Lock()
	told := e.told
	e.told = true
	e.mu.Unlock()
	if !told && e.Failed != nil {
		e.Failed(err)
	}
}

// post sends one OTLP/HTTP JSON request and reads its answer.
func (e *Exporter) post(ctx context.Context, url string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range e.cfg.Headers {
		req.Header.Set(k, v)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("the collector did not answer within %v", e.cfg.Timeout)
		}
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) {
			err = ue.Unwrap()
		}
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the collector answered %s", resp.Status)
	}
	return nil
}

// OTLP's JSON encoding: ids in hex, times as nanoseconds in strings,
// attributes as key and typed value.
type (
	otlpAttr struct {
		Key   string    `json:"key"`
		Value otlpValue `json:"value"`
	}
	otlpValue struct {
		String *string `json:"stringValue,omitempty"`
		Int    *string `json:"intValue,omitempty"`
	}
	otlpSpan struct {
		TraceID      string     `json:"traceId"`
		SpanID       string     `json:"spanId"`
		ParentSpanID string     `json:"parentSpanId,omitempty"`
		Flags        int        `json:"flags,omitempty"`
		Name         string     `json:"name"`
		Kind         int        `json:"kind"`
		Start        string     `json:"startTimeUnixNano"`
		End          string     `json:"endTimeUnixNano"`
		Attributes   []otlpAttr `json:"attributes,omitempty"`
		Links        []otlpLink `json:"links,omitempty"`
		Status       otlpStatus `json:"status"`
	}
	otlpLink struct {
		TraceID string `json:"traceId"`
		SpanID  string `json:"spanId"`
	}
	otlpStatus struct {
		Code    int    `json:"code,omitempty"`
		Message string `json:"message,omitempty"`
	}
)

// mask is text as Mask leaves it.
func (e *Exporter) mask(text string) string {
	if e.Mask == nil {
		return text
	}
	return e.Mask(text)
}

func (e *Exporter) attrs(list []Attr) []otlpAttr {
	out := make([]otlpAttr, 0, len(list))
	for _, a := range list {
		var v otlpValue
		switch x := a.Value.(type) {
		case string:
			v.String = new(e.mask(x))
		case int64:
			v.Int = new(strconv.FormatInt(x, 10))
		default:
			continue
		}
		out = append(out, otlpAttr{a.Key, v})
	}
	return out
}

func nanos(t time.Time) string { return strconv.FormatInt(t.UnixNano(), 10) }

// resource is the resource every export names: the service, and mcpv.
func (e *Exporter) resource() map[string]any {
	return map[string]any{"attributes": e.attrs([]Attr{String("service.name", e.cfg.Service), String("telemetry.sdk.name", "mcpv"), String("telemetry.sdk.language", "go")})}
}

// scope is the instrumentation scope of mcpv's spans and metrics.
type scopeName struct {
	Name string `json:"name"`
}

var scope = scopeName{"github.com/mcpv/mcpv"}

// tracesBody is an ExportTraceServiceRequest of spans, as JSON.
func (e *Exporter) tracesBody(spans []Span) []byte {
	out := make([]otlpSpan, 0, len(spans))
	for _, s := range spans {
		o := otlpSpan{TraceID: s.Trace.String(), SpanID: s.Span.String(), Name: e.mask(s.Name), Kind: s.Kind,
			Start: nanos(s.Start), End: nanos(s.End), Attributes: e.attrs(s.Attrs)}
		if s.Sampled {
			o.Flags = 1
		}
		if !s.Parent.IsZero() {
			o.ParentSpanID = s.Parent.String()
		}
		for _, l := range s.Links {
			o.Links = append(o.Links, otlpLink{l.Trace.String(), l.Span.String()})
		}
		if s.Error != "" {
			o.Status = otlpStatus{Code: 2, Message: e.mask(s.Error)}
		}
		out = append(out, o)
	}
	b, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   e.resource(),
		"scopeSpans": []any{map[string]any{"scope": scope, "spans": out}},
	}}})
	return b
}
