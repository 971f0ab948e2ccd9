package loaddata

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// Rows drawn at random cover the file evenly, and are the same for the
// same seed and iteration.
func TestRandomRows(t *testing.T) {
	var lines []byte
	for range 10 {
		lines = append(lines, "{}\n"...)
	}
	s, err := Read("rows.jsonl", bytes.NewReader(lines), int64(len(lines)), Random, 42)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Read("rows.jsonl", bytes.NewReader(lines), int64(len(lines)), Random, 42)
	counts := make([]int, 10)
	for k := range int64(100000) {
		counts[s.Index(k)]++
		if s.Index(k) != again.Index(k) {
			t.Fatal("the same seed and iteration drew two rows")
		}
	}
	for i, n := range counts {
		if n < 9000 || n > 11000 {
			t.Errorf("row %d drawn %d times in 100,000; want about 10,000", i, n)
		}
	}
	sum := 0.0
	for k := range int64(100000) {
		u := Uniform(42, k)
		if u < 0 || u >= 1 {
			t.Fatalf("Uniform = %v", u)
		}
		sum += u
	}
	if mean := sum / 100000; mean < 0.49 || mean > 0.51 {
		t.Errorf("the mean of .random is %v; want about 0.5", mean)
	}
}

func TestSplit(t *testing.T) {
	rest, ts, err := Split([]string{"a=1", "b~=.iteration", `c=x~=y`, "d:=2"})
	if err != nil || len(rest) != 3 || len(ts) != 1 || ts[0].Key != "b" {
		t.Fatalf("Split = %q, %+v, %v", rest, ts, err)
	}
	v, err := ts[0].Eval(context.Background(), Input{Iteration: 7}.Value())
	if err != nil || string(v) != "7" {
		t.Errorf("Eval = %s, %v", v, err)
	}
}

// The cost of one template's evaluation, which each iteration pays for
// each of its templates.
func BenchmarkTemplate(b *testing.B) {
	_, ts, err := Split([]string{`q~="item-\(.iteration % 100)"`})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for k := 0; b.Loop(); k++ {
		if _, err := ts[0].Eval(ctx, Input{Iteration: int64(k), Random: Uniform(1, int64(k))}.Value()); err != nil {
			b.Fatal(err)
		}
	}
}

// A file of one large row costs that row decoded once, not once an
// iteration: eight sessions that take it at once, and eight iterations
// after them while they hold it, share one decoding (counted in bytes
// allocated, which no machine's speed changes). The row shared is never
// changed by a template that sets a member of it.
func TestLargeRowDecodedOnce(t *testing.T) {
	const size = 8 << 20
	s := oneRow(t, size)
	_, set, err := Split([]string{`s~=.row | .s = "changed" | .s`})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	held := make([]any, 16)
	for k := range int64(8) {
		wg.Go(func() {
			var err error
			if held[k], err = s.Row(k); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for k := range int64(8) {
		if held[8+k], err = s.Row(8 + k); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(held)
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*size {
		t.Errorf("16 iterations of one %d MiB row allocated %d MiB; want it decoded once", size>>20, got>>20)
	}
	row, _ := s.Row(0)
	if v, err := set[0].Eval(t.Context(), Input{Row: row}.Value()); err != nil || string(v) != `"changed"` {
		t.Fatalf("the template: %s, %v", v, err)
	}
	if row, _ := s.Row(1); len(row.(map[string]any)["s"].(string)) != size {
		t.Error("a template changed the row the iterations share")
	}
}

// A data file is read through once and not kept: a run holds a row of
// it while iterations take that row, read once however many take it, and
// decoded where it lies (its strings parts of its text). All a file of an
// 8 MiB row between two small ones costs, from its opening to sixteen
// iterations of that row while one holds it, is the row once (counted in
// bytes allocated, which no machine's speed changes).
func TestLargeRowReadOnce(t *testing.T) {
	const size = 8 << 20
	path := filepath.Join(t.TempDir(), "rows.jsonl")
	big := `{"s":"` + strings.Repeat("x", size) + `"}`
	if err := os.WriteFile(path, []byte("{\"n\":1}\n"+big+"\n\r\n{\"n\":2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var s *Source
	got := testkit.Allocated(func() {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st, _ := f.Stat()
		if s, err = Read(path, f, st.Size(), InOrder, 1); err != nil {
			t.Fatal(err)
		}
		var held any
		for k := range int64(16) {
			row, err := s.Row(1 + 3*k) // the second row, every third iteration
			if err != nil || len(row.(map[string]any)["s"].(string)) != size {
				t.Fatalf("iteration %d: %v", k, err)
			}
			held = row
		}
		runtime.KeepAlive(held)
	})
	if got > size+size/8 {
		t.Errorf("a file of one %d MiB row and sixteen iterations of it allocated %.1f MiB; want the row once", size>>20, float64(got)/(1<<20))
	}
	if s.Len() != 3 || s.Largest != int64(len(big)) {
		t.Errorf("%d rows, the largest of %d bytes", s.Len(), s.Largest)
	}
}

// A large row is not held once no iteration holds it: a call whose
// arguments are written from it is sent without it, so that a run sending
// a 100 MiB row holds its message, not the row beside it as well. Taken
// again, it is read again, whole. (Counted in bytes live after a
// collection, which no machine's speed changes.)
func TestLargeRowNotHeldOnceTaken(t *testing.T) {
	const size = 8 << 20
	s := oneRow(t, size)
	live := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for k := range int64(2) {
		before := live()
		row, err := s.Row(k)
		if err != nil || len(row.(map[string]any)["s"].(string)) != size {
			t.Fatalf("iteration %d: %v", k, err)
		}
		if after := live(); after > before+size/4 {
			t.Fatalf("iteration %d: %.1f MiB live once the row was taken; want it freed", k, float64(after-before)/(1<<20))
		}
	}
}

// oneRow is a source of one row, {"s": "xxx..."}, of a string of size.
func oneRow(t *testing.T, size int) *Source {
	line := []byte(`{"s":"` + strings.Repeat("x", size) + `"}` + "\n")
	s, err := Read("big.jsonl", bytes.NewReader(line), int64(len(line)), InOrder, 1)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// endless is a file of one row that never ends: a JSON string, or a CSV
// field, "xxx...
type endless struct{ csv bool }

func (e endless) ReadAt(p []byte, off int64) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	if head := "a,b\n"; e.csv && off < int64(len(head)) {
		copy(p, head[off:])
	} else if off == 0 && len(p) > 0 {
		p[0] = '"'
	}
	return len(p), nil
}

// A row past MaxRow is refused as it is read: a JSON Lines row holding
// none of it, a CSV record holding what encoding/csv reads of it (a few
// times the bound, in the long tier, as it takes seconds).
func TestRowPastItsBound(t *testing.T) {
	var err error
	if got := testkit.Allocated(func() { _, err = Read("rows.jsonl", endless{}, 1<<40, InOrder, 1) }); got > 1<<20 {
		t.Errorf("reading an endless row allocated %d MiB", got>>20)
	}
	if err == nil || err.Error() != "--data rows.jsonl:1: a row of more than 128 MiB" {
		t.Errorf("%v", err)
	}
	testkit.SkipLong(t, "reads 128 MiB through encoding/csv")
	if _, err := Read("rows.csv", endless{csv: true}, 1<<40, InOrder, 1); err == nil || err.Error() != "--data rows.csv:2: a row of more than 128 MiB" {
		t.Errorf("%v", err)
	}
}
