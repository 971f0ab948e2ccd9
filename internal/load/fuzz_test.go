package load

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/testkit"
)

// The fuzz targets read what mcpv load is given as files a cloned
// repository may hold: a baseline (an earlier run's JSON report) and a
// mix. Any bytes are read or refused with a usage error naming the file,
// within memory in proportion to their size; a baseline read is compared
// with, checked against and written beside a run without a panic, and
// nothing of it reaches the terminal unmade safe.
//
//	go test ./internal/load -run '^$' -fuzz '^FuzzReadBaseline$' -fuzztime 1m
//	go test ./internal/load -run '^$' -fuzz '^FuzzParseMix$' -fuzztime 1m

// sampleReport is a run's JSON report, as --format json writes one.
func sampleReport() []byte {
	lat := Stats{Count: 1000, Min: 0.4, Mean: 1.2, P50: 1.1, P90: 1.9, P99: 3.5, P999: 7.25, Max: 9}
	res := Result{Version: Version, Started: "2026-11-25T10:00:00Z", Schedule: "200/s", Sessions: "held open", Concurrency: 4,
		Elapsed: 5, Iterations: 1000, OK: 990, Errors: 10, ErrorRate: 0.01, Throughput: 200, OKRate: 198,
		Operations: []OpResult{{Name: "call echo", Latency: &lat}},
		Latency:    lat, Setup: Stats{Count: 4, P99: 20}, Close: Stats{Count: 4, P99: 2},
		ErrorKinds: []Error{{Phase: "call", Kind: "timeout", Count: 10, Example: "timed out"}},
		CPU:        CPU{Known: true, PerOp: 150}, Histogram: []Bucket{{From: 1, To: 2, Count: 1000}},
		Timeline: []TimePoint{{T: 1, Span: 1, OK: 200, P50: 1.1, P99: 3.5}}}
	b, err := json.Marshal(res)
	if err != nil {
		panic(err)
	}
	return b
}

func FuzzReadBaseline(f *testing.F) {
	f.Add(sampleReport())
	testkit.SeedFuzz(f, []string{
		`{"version": 1, "started": "x", "operations": [], "latency_ms": {}, "throughput": 0}`,
		`{"version": 1}`,
		`{"version": 2, "started": "x", "operations": [], "latency_ms": {}, "throughput": 1}`,
		`{"version": 1, "started": "\u001b]0;owned\u0007", "operations": [{"name": "call echo", "latency_ms": {"count": 1, "p99": 1e308}}], "latency_ms": {"count": 1, "p50": -1, "p99": 1e308}, "throughput": 1e308, "error_rate": -5, "cpu": {"known": true, "per_iteration_us": 0}}`,
		`{"version": 1, "started": null, "operations": null, "latency_ms": null, "throughput": null}`,
		`{"version": 1.5}`,
		`[]`,
	}, testkit.HostileJSON())
	thresholds := []Threshold{}
	for _, s := range []string{"p99<+10%", "rate>-20%", "setup.p99<+50%", "mean<+1%", "max<+0%", "p50<+5%", "p90<+5%", "p99.9<+5%"} {
		th, err := ParseThreshold(s)
		if err != nil {
			f.Fatalf("%s: %v", s, err)
		}
		thresholds = append(thresholds, th)
	}
	now, err := ReadBaseline("now.json", sampleReport())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var base *Result
		var err error
		testkit.AllocBounded(t, len(data), 1<<20, 64, func() { base, err = ReadBaseline("base.json", data) })
		if err != nil {
			checkUsage(t, err, "--baseline base.json")
			return
		}
		if base.Version < 1 || base.Version > Version {
			t.Fatalf("a baseline of version %d", base.Version)
		}
		res := *now
		res.Baseline, res.Checks = nil, nil
		res.Compare(base)
		res.Check(thresholds)
		var text strings.Builder
		if err := res.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if i := strings.IndexFunc(text.String(), func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' || r == 0x7f }); i >= 0 {
			t.Fatalf("the report holds a control character at %d:\n%q", i, text.String())
		}
		if _, err := json.Marshal(&res); err != nil && !strings.Contains(err.Error(), "unsupported value") {
			t.Fatalf("the report beside the baseline: %v", err)
		}
	})
}

func FuzzParseMix(f *testing.F) {
	testkit.SeedFuzz(f, []string{
		"operations:\n  - run: call echo 'message=hello world'\n    weight: 3\n  - run: list-tools\n  - run: read 'file:///x'\n  - run: get greet who=me\n",
		"operations:\n  - run: call echo @args.json\n  - run: call echo n~=.iteration\n",
		`{"operations": [{"run": "ping", "weight": 10000}]}`,
		"operations:\n  - run: ping\n    weight: 6000\n  - run: ping\n    weight: 6000\n",
		"operations:\n  - run: ping\n    weight: 1e9\n",
		"operations:\n  - run: \"call 'x\"\n",
		"operations: []\n",
		"x: &x {run: ping}\noperations: [*x, *x, *x]\n",
	}, testkit.HostileYAML())
	readFile := func(name string) ([]byte, error) {
		if name == "args.json" {
			return []byte(`{"message": "from a file"}`), nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var ops []Op
		var err error
		testkit.AllocBounded(t, len(data), 1<<20, 1024, func() { ops, err = ParseMix("mix.yaml", data, readFile) })
		if err != nil {
			checkUsage(t, err, "mix.yaml:")
			return
		}
		total := 0
		for _, op := range ops {
			if op.Weight < 1 || op.Name == "" {
				t.Errorf("operation %q of weight %d", op.Name, op.Weight)
			}
			total += op.Weight
		}
		if len(ops) == 0 || total > MaxWeight {
			t.Errorf("%d operations weighing %d", len(ops), total)
		}
		if p := newPicker(ops); len(p) != total {
			t.Errorf("a picker of %d for weights adding up to %d", len(p), total)
		}
	})
}

// checkUsage checks that err is a usage error of one line that begins
// with prefix.
func checkUsage(t *testing.T, err error, prefix string) {
	t.Helper()
	var ue *errkind.UsageError
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), prefix) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("not a one-line usage error beginning %q: %q", prefix, err)
	}
}
