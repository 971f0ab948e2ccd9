package output

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/jq"
)

// heapPeak samples the bytes of heap objects (live, or dead and not yet
// swept) every 100 µs until stop is called, and returns the highest.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var (
		peak uint64
		wg   sync.WaitGroup
	)
	done := make(chan struct{})
	read := func() {
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	wg.Go(func() { // stops when stop is called
		tick := time.NewTicker(100 * time.Microsecond)
		defer tick.Stop()
		for {
			read()
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		read()
		return peak
	}
}

// BenchmarkFilterHugeResult runs --jq '.content[0].text | length' over a
// 100 MB result, as mcpv call -q does, and reports the peak of the heap
// during Print over the result's size (heap-x: the result itself counts 1).
func BenchmarkFilterHugeResult(b *testing.B) {
	const size = 100_000_000
	text := strings.Repeat("x", size)
	raw := []byte(`{"content":[{"type":"text","text":"` + text + `"}]}`)
	text = ""
	filter, err := jq.Compile(`.content[0].text | length`, nil)
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	if err := (&Printer{Out: &out, Filter: filter}).Print(raw); err != nil {
		b.Fatal(err)
	}
	if got, want := out.String(), fmt.Sprintf("%d\n", size); got != want {
		b.Fatalf("printed %q, want %q", got, want)
	}
	p := &Printer{Out: io.Discard, Filter: filter}
	var worst float64
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		stop := heapPeak()
		b.StartTimer()
		if err := p.Print(raw); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		worst = max(worst, float64(stop())/float64(len(raw)))
		b.StartTimer()
	}
	b.ReportMetric(worst, "heap-x")
}
