package ordered

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testWait = 10 * time.Second

// counter yields 1..n, then the end.
func counter(n int) func(context.Context) (int, bool, error) {
	i := 0
	return func(context.Context) (int, bool, error) {
		if i == n {
			return 0, false, nil
		}
		i++
		return i, true, nil
	}
}

// Results come out in input order even when later jobs finish first.
func TestInputOrder(t *testing.T) {
	const n = 200
	release := make([]chan struct{}, n+1)
	for i := range release {
		release[i] = make(chan struct{})
	}
	var got []int
	go func() { // finish the jobs in reverse order of each group of 8
		for base := 1; base <= n; base += 8 {
			for i := min(base+7, n); i >= base; i-- {
				close(release[i])
			}
		}
	}()
	err := Run(t.Context(), Options[int, int]{
		Workers: 8,
		Next:    counter(n),
		Do: func(_ context.Context, job int) int {
			<-release[job]
			return job * 10
		},
		Emit: func(r int) error { got = append(got, r); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int, n)
	for i := range want {
		want[i] = (i + 1) * 10
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// The reader is never more than Workers jobs ahead of the writer (plus the
// one in its hands): a long input runs in bounded memory.
func TestReaderStaysClose(t *testing.T) {
	const workers = 4
	var read, emitted atomic.Int64
	var ahead atomic.Int64
	next := counter(10000)
	err := Run(t.Context(), Options[int, int]{
		Workers: workers,
		Next: func(ctx context.Context) (int, bool, error) {
			if d := read.Add(1) - emitted.Load(); d > ahead.Load() {
				ahead.Store(d)
			}
			return next(ctx)
		},
		Do:   func(_ context.Context, job int) int { return job },
		Emit: func(int) error { emitted.Add(1); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := ahead.Load(); got > 2*workers+2 {
		t.Errorf("the reader ran %d jobs ahead of the writer with %d workers", got, workers)
	}
}

// An Emit error stops the run: the jobs in flight are cancelled and waited
// for, no more input is read, and the error is Run's.
func TestEmitErrorStops(t *testing.T) {
	stopErr := errors.New("a job failed")
	started := make(chan int, 16)
	var cancelled sync.Map
	var reads atomic.Int64
	err := Run(t.Context(), Options[int, error]{
		Workers: 3,
		Next: func(ctx context.Context) (int, bool, error) {
			return int(reads.Add(1)), true, nil // endless input
		},
		Do: func(ctx context.Context, job int) error {
			started <- job
			if job == 1 {
				return stopErr
			}
			<-ctx.Done() // the others run until cancelled
			cancelled.Store(job, true)
			return ctx.Err()
		},
		Emit: func(r error) error { return r },
	})
	if !errors.Is(err, stopErr) {
		t.Fatalf("Run = %v, want the emitted error", err)
	}
	close(started)
	for job := range started {
		if _, ok := cancelled.Load(job); job != 1 && !ok {
			t.Errorf("job %d started but Run returned before it saw the cancellation", job)
		}
	}
	if r := reads.Load(); r > 3+3+2 {
		t.Errorf("%d jobs read after a stop with 3 workers", r)
	}
}

// When ctx ends while the input is silent, Run returns at once with the
// cause: it never waits for more input.
func TestInterruptWhileInputIsSilent(t *testing.T) {
	interrupted := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(t.Context())
	block := make(chan struct{})
	defer close(block)
	emitted := make(chan int, 1)
	done := make(chan error, 1)
	first := true
	go func() {
		done <- Run(ctx, Options[int, int]{
			Workers: 2,
			Next: func(context.Context) (int, bool, error) {
				if first {
					first = false
					return 7, true, nil
				}
				<-block // a silent, open stdin
				return 0, false, nil
			},
			Do:   func(_ context.Context, job int) int { return job },
			Emit: func(r int) error { emitted <- r; return nil },
		})
	}()
	select {
	case <-emitted:
	case <-time.After(testWait):
		t.Fatal("the first result was not emitted while the input stayed open")
	}
	cancel(interrupted)
	select {
	case err := <-done:
		if !errors.Is(err, interrupted) {
			t.Errorf("Run = %v, want the interruption", err)
		}
	case <-time.After(testWait):
		t.Fatal("Run waited for input after the interruption")
	}
}

// A failing Next ends the run with its error, after the results before it.
func TestNextError(t *testing.T) {
	readErr := errors.New("read error")
	next := counter(3)
	var got []int
	err := Run(t.Context(), Options[int, int]{
		Workers: 2,
		Next: func(ctx context.Context) (int, bool, error) {
			job, ok, _ := next(ctx)
			if !ok {
				return 0, false, readErr
			}
			return job, true, nil
		},
		Do:   func(_ context.Context, job int) int { return job },
		Emit: func(r int) error { got = append(got, r); return nil },
	})
	if !errors.Is(err, readErr) || fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("Run = %v after %v", err, got)
	}
}

// Idle is called before Run waits, so that what was emitted can be flushed
// while a slow job runs; its error stops the run.
func TestIdle(t *testing.T) {
	slow := make(chan struct{})
	var log []string
	closed := errors.New("stdout closed")
	err := Run(t.Context(), Options[int, int]{
		Workers: 1,
		Next:    counter(3),
		Do: func(_ context.Context, job int) int {
			if job == 2 {
				<-slow
			}
			return job
		},
		Emit: func(r int) error { log = append(log, fmt.Sprint("emit ", r)); return nil },
		Idle: func() error {
			log = append(log, "idle")
			if len(log) > 1 && log[len(log)-2] == "emit 1" {
				close(slow) // job 2 may finish once job 1 was flushed
			}
			if len(log) > 6 {
				return closed
			}
			return nil
		},
	})
	if err != nil && !errors.Is(err, closed) {
		t.Fatal(err)
	}
	found := false
	for i := 1; i < len(log); i++ {
		if log[i-1] == "emit 1" && log[i] == "idle" {
			found = true
		}
	}
	if !found {
		t.Errorf("no idle between emitting 1 and waiting for 2: %v", log)
	}
}

func TestNoWorkers(t *testing.T) {
	err := Run(t.Context(), Options[int, int]{Next: counter(1), Do: func(context.Context, int) int { return 0 }, Emit: func(int) error { return nil }})
	if !errors.Is(err, ErrWorkers) {
		t.Errorf("Run = %v", err)
	}
}

// When the run stops while the writer waits for a job, Run returns only
// after that job has finished its cancellation (mcpv batch tells the server
// what it cancels before the session closes).
func TestStopWaitsForTheJobInFlight(t *testing.T) {
	interrupted := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(t.Context())
	started := make(chan struct{})
	var finished atomic.Bool
	done := make(chan error, 1)
	n := 0
	go func() {
		done <- Run(ctx, Options[int, int]{
			Workers: 1,
			Next: func(context.Context) (int, bool, error) {
				n++
				return n, n == 1, nil
			},
			Do: func(ctx context.Context, job int) int {
				close(started)
				<-ctx.Done()
				time.Sleep(50 * time.Millisecond) // telling the server takes a while
				finished.Store(true)
				return job
			},
			Emit: func(int) error { return nil },
		})
	}()
	<-started
	cancel(interrupted)
	if err := <-done; !errors.Is(err, interrupted) {
		t.Fatalf("Run = %v", err)
	}
	if !finished.Load() {
		t.Error("Run returned before the job in flight had finished")
	}
}

// A job costs no allocation of its own: its item is used again once its
// result is taken, so that a million-line batch does not allocate a
// million of them. Measured as the allocations of 2,000 more jobs, in
// counts (never times), with room for what the runtime allocates itself.
func TestItemsReused(t *testing.T) {
	run := func(n int) float64 {
		return testing.AllocsPerRun(5, func() {
			err := Run(context.Background(), Options[int, int]{
				Workers: 4,
				Next:    counter(n),
				Do:      func(_ context.Context, job int) int { return job },
				Emit:    func(int) error { return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := run(100), run(2100)
	if perJob := (large - small) / 2000; perJob > 0.5 {
		t.Errorf("%.2f allocations a job (%v for 100 jobs, %v for 2,100), want none", perJob, small, large)
	}
}
