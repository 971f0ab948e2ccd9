package testkit

// Collector is an OTLP/HTTP collector for tests: it keeps the
// spans (decoded from their ResourceSpans) and the metrics posted to it,
// and the headers each post came with. It listens on 127.0.0.1.

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Collector keeps what was posted to it. It is safe for concurrent use.
type Collector struct {
	// URL is where it listens: the OTLP endpoint, or the traces' or
	// metrics' own (a path ending in /v1/metrics is taken as metrics).
	URL string

	mu      sync.Mutex // guards the fields below
	spans   []map[string]any
	metrics []string      // each metrics post's body
	headers []http.Header // each post's, in order
}

// New starts a collector, closed when the test ends.
func NewCollector(t testing.TB) *Collector {
	c := &Collector{}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

func (c *Collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.headers = append(c.headers, r.Header.Clone())
	if strings.HasSuffix(r.URL.Path, "/v1/metrics") {
		c.metrics = append(c.metrics, string(body))
		return
	}
	var req struct {
		ResourceSpans []struct {
			ScopeSpans []struct {
				Spans []map[string]any `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	if json.Unmarshal(body, &req) != nil {
		http.Error(w, "the body is no OTLP JSON", http.StatusBadRequest)
		return
	}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
}

// Spans are the spans posted, in order, each as its JSON decodes.
func (c *Collector) Spans() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spans)
}

// Named is the first span posted of that name, or nil.
func (c *Collector) Named(name string) map[string]any {
	for _, s := range c.Spans() {
		if s["name"] == name {
			return s
		}
	}
	return nil
}

// Metrics are the bodies of the metrics posts, in order.
func (c *Collector) Metrics() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.metrics)
}

// Headers are each post's headers, in order.
func (c *Collector) Headers() []http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.headers)
}
