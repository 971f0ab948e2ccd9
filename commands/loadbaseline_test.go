package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/jsonschema"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// baselineFile writes a report as a baseline whose latency is ms (every
// figure) and whose rate is perSecond.
func baselineFile(t *testing.T, ms, perSecond float64) string {
	t.Helper()
	stats := map[string]any{"count": 100, "min": ms, "mean": ms, "p50": ms, "p90": ms, "p99": ms, "p99.9": ms, "max": ms}
	b, _ := json.Marshal(map[string]any{"version": 1, "started": "2026-11-01T10:00:00Z", "operations": []any{map[string]any{"name": "call x", "weight": 1, "ok": 100, "errors": 0}},
		"latency_ms": stats, "setup_ms": stats, "throughput": perSecond, "cpu": map[string]any{"known": false}})
	path := filepath.Join(t.TempDir(), "baseline.json")
	os.WriteFile(path, b, 0o644)
	return path
}

// Against a server whose calls take 20 ms, a baseline of 1 ms is beaten
// by far (p50<+10% fails, and the report shows how far), and one of a
// thousand seconds is not (it holds): relative thresholds compare with
// the baseline's figures. Both bounds hold however slow the machine:
// no call takes less than the server's 20 ms, and none takes 100 s.
func TestLoadBaseline(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: 20 * time.Millisecond}})
	fast, slow := baselineFile(t, 1, 1e6), baselineFile(t, 1e6, 1e-3)
	r := mcpv(t, "", "load", "call", "x", "-c", "4", "-n", "8", "--baseline", fast, "--threshold", "p50<+10%", "--threshold", "rate>-5%", "-u", srv.URL)
	r.expect(t, 1, "", "beside the baseline "+fast+" (2026-11-01T10:00:00Z)", "threshold not met: p50<+10%")
	if !strings.Contains(r.stdout, "FAILED  p50<+10%") || !strings.Contains(r.stdout, "FAILED  rate>-5%") || !strings.Contains(r.stdout, "(baseline 1.00ms, +") {
		t.Errorf("report:\n%s\nwant both thresholds failed beside the baseline's 1ms", r.stdout)
	}
	r = mcpv(t, "", "load", "call", "x", "-c", "4", "-n", "8", "--baseline", slow, "--threshold", "p50<+10%", "--threshold", "rate>-5%",
		"--format", "json", "-q", "[.thresholds[].ok, (.baseline.figures[0] | .metric, .baseline, .change < -0.9)]", "--compact", "-u", srv.URL)
	r.expect(t, 0, `[true,true,"p50",1000000,true]`+"\n", "", "")

	// A run's own report is a baseline for the next.
	dir := t.TempDir()
	first := filepath.Join(dir, "first.json")
	r = mcpv(t, "", "load", "call", "x", "-n", "4", "--format", "json", "-u", srv.URL)
	r.expect(t, 0, "", "", "")
	os.WriteFile(first, []byte(r.stdout), 0o644)
	r = mcpv(t, "", "load", "call", "x", "-n", "4", "--baseline", first, "--threshold", "p99<+100000%", "--format", "json",
		"-q", "[.baseline.figures[].metric] | index(\"rate\") != null", "-u", srv.URL)
	r.expect(t, 0, "true\n", "", "")
}

func TestLoadBaselineMistakes(t *testing.T) {
	t.Parallel()
	nowhere := []string{"--", "/nonexistent/server"}
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "a.json")
	os.WriteFile(notJSON, []byte("p99 2ms"), 0o644)
	noVersion := filepath.Join(dir, "b.json")
	os.WriteFile(noVersion, []byte(`{"latency_ms":{}}`), 0o644)
	newer := filepath.Join(dir, "c.json")
	os.WriteFile(newer, []byte(`{"version":99}`), 0o644)
	for _, tc := range []struct {
		args   []string
		errHas string
	}{
		{[]string{"--threshold", "p99<+10%"}, "needs --baseline FILE"},
		{[]string{"--threshold", "errors<+10%", "--baseline", notJSON}, "errors are held to a share"},
		{[]string{"--threshold", "p95<+10%", "--baseline", notJSON}, "p50, p90, p99, p99.9"},
		{[]string{"--threshold", "p99<+x%", "--baseline", notJSON}, "want a change from the baseline"},
		{[]string{"--baseline", notJSON}, "not the JSON report"},
		{[]string{"--baseline", noVersion}, "no version"},
		{[]string{"--baseline", newer}, "newer than this mcpv's"},
		{[]string{"--baseline", filepath.Join(dir, "missing.json")}, "no such file"},
	} {
		r := mcpv(t, "", args([]string{"load", "ping"}, tc.args, nowhere)...)
		r.expect(t, 2, "", "", tc.errHas)
	}
}

// Every kind of run's JSON report is valid against its documented schema,
// docs/mcpv-load.schema.json, which forbids members it does not describe.
func TestLoadJSONSchema(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../docs/mcpv-load.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "rows.jsonl")
	os.WriteFile(data, []byte("{\"n\":1}\n"), 0o644)
	mix := filepath.Join(dir, "mix.yaml")
	os.WriteFile(mix, []byte("operations:\n  - run: call x\n  - run: list-tools\n"), 0o644)
	scenario := writeScenario(t, "steps:\n  - ping:\n  - call: x\n    expect: {jq: 'false'}\n")
	base := baselineFile(t, 1, 1)
	for _, a := range [][]string{
		args([]string{"load", "call", "x", "-n", "3", "--threshold", "p99<1h", "--format", "json"}, fake("plain")),
		args([]string{"load", "call", "x", "n~=.row.n", "--data", data, "-n", "3", "--baseline", base, "--threshold", "p99<+1000000%", "--format", "json"}, fake("log-flood=5")),
		args([]string{"load", "--mix", mix, "-n", "4", "--rate", "1000", "--format", "json"}, fake("plain")),
		args([]string{"load", "--scenario", scenario, "-n", "2", "--format", "json"}, fake("plain")),
		args([]string{"load", "call", "x", "-n", "2", "--format", "json"}, fake("tool-error")),
		args([]string{"load", "ping", "--find-max", "p99<1ms", "--rate", "200", "-d", "20ms", "-c", "2", "--format", "json"}, fake("plain")),
	} {
		r := mcpv(t, "", a...)
		if r.code > 1 {
			t.Fatalf("%q: exit %d: %s", a, r.code, r.stderr)
		}
		if err := schema.Validate([]byte(r.stdout)); err != nil {
			t.Errorf("%q: the report breaks docs/mcpv-load.schema.json: %v\n%s", a, err, r.stdout)
		}
	}
}

// Against a fake whose capacity is known (1 call at once, 100 ms each:
// 10 calls a second), --find-max never finds more than the server holds:
// a step held only where the server achieved 95% of the rate asked, and
// its sleeps hold it to 10 calls a second (a little over, counting the
// call under way as a step ends) however fast or busy the machine. What
// it finds below that is a figure of the machine as much as of the
// server (a busy one adds its own delays to each latency), logged here
// and not asserted; that the search finds a capacity within its
// precision is TestFindMaxFindsTheCapacity, on steps of a test's own.
func TestLoadFindMaxAgainstAKnownCapacity(t *testing.T) {
	testkit.SkipLong(t, "a search of about ten steps of a second each")
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: 100 * time.Millisecond, Capacity: 1}})
	r := mcpv(t, "", "load", "call", "x", "--find-max", "p99<400ms,errors<1%", "--rate", "2", "-d", "3s", "--format", "json",
		"-q", ".search", "-u", srv.URL)
	r.expect(t, 0, "", "", "")
	var s struct {
		MaxRate float64 `json:"max_rate"`
		Curve   []struct {
			Rate     float64
			Achieved float64
			Held     bool
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatal(err)
	}
	t.Logf("found %.1f/s in %d steps: %+v", s.MaxRate, len(s.Curve), s.Curve)
	highest, crossedAbove := 0.0, false
	for _, pt := range s.Curve {
		if pt.Held {
			highest = max(highest, pt.Rate)
			if pt.Achieved < 0.95*pt.Rate {
				t.Errorf("a step of %v/s held at %v/s achieved", pt.Rate, pt.Achieved)
			}
		}
	}
	for _, pt := range s.Curve {
		crossedAbove = crossedAbove || !pt.Held && pt.Rate > highest
	}
	if s.MaxRate != highest || !crossedAbove {
		t.Errorf("found %v/s, the highest rate held %v/s, a rate above it crossed: %v\n%s", s.MaxRate, highest, crossedAbove, r.stdout)
	}
	if s.MaxRate > 11 {
		t.Errorf("found %v/s; the server holds 10/s\n%s", s.MaxRate, r.stdout)
	}
}

func TestLoadFindMaxMistakes(t *testing.T) {
	t.Parallel()
	nowhere := []string{"--", "/nonexistent/server"}
	for _, tc := range []struct {
		args   []string
		errHas string
	}{
		{[]string{"--find-max", ""}, "--find-max \"\": empty"},
		{[]string{"--find-max", "p99<1s", "-n", "10"}, "--stage and -n go without it"},
		{[]string{"--find-max", "p99"}, "want METRIC OP VALUE"},
		{[]string{"--find-max", "p99<+10%", "--baseline", "x.json"}, "a limit is a figure"},
	} {
		r := mcpv(t, "", args([]string{"load", "ping"}, tc.args, nowhere)...)
		r.expect(t, 2, "", "", tc.errHas)
	}
}
