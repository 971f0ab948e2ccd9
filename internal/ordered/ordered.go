// Package ordered runs a stream of jobs on N workers and hands their results
// on in input order, each as soon as it and every earlier one are done. It
// is the engine of mcpv batch: input is streamed, so a million jobs run in
// memory bounded by the number of workers.
//
// Goroutines, and what stops each:
//   - the reader calls next until it reports the end, fails, or the run
//     stops; it hands each job both to the workers and, in input order, to
//     the writer. The order queue holds at most Workers jobs. A reader
//     blocked in next (a silent, open stdin) is not waited for: it is left
//     to return on its own.
//   - Workers worker goroutines run jobs; they stop when the reader has
//     stopped (and so closed the work queue).
//   - the writer is Run's own goroutine: it waits for each job's result in
//     input order and calls emit. When emit fails or the context ends, it
//     stops the run: the context the jobs run under is cancelled with the
//     cause, and Run waits for the jobs already handed to workers (so what
//     they do on cancellation, such as telling a server, is done before
//     Run returns), but never for more input.
package ordered

import (
	"context"
	"errors"
)

// Options describe a run. Next and Do must be set.
type Options[T, R any] struct {
	// Workers is how many jobs run at once; at least 1.
	Workers int
	// Next returns the next job, or false at the end of the input. It runs
	// on the reader goroutine, one call at a time.
	Next func(ctx context.Context) (job T, ok bool, err error)
	// Do runs a job on a worker. ctx ends when the run stops.
	Do func(ctx context.Context, job T) R
	// Emit receives each result in input order, on Run's goroutine. An
	// error stops the run and is Run's result.
	Emit func(R) error
	// Idle, if set, is called whenever Run is about to wait for a job (so
	// that what was emitted so far can be flushed). An error stops the run.
	Idle func() error
}

// ErrWorkers is the error of a run without workers.
var ErrWorkers = errors.New("ordered: Workers must be at least 1")

// item is one job on its way: the writer waits on done for its result.
type item[T, R any] struct {
	job  T
	done chan R // 1-buffered; receives the result, or is closed if the job never ran
}

// Run runs the jobs. It returns nil when the input ended and every result
// was emitted; otherwise what stopped it: Emit's or Idle's error, Next's
// error, or the cause of ctx.
func Run[T, R any](ctx context.Context, o Options[T, R]) error {
	if o.Workers < 1 {
		return ErrWorkers
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)

	order := make(chan *item[T, R], o.Workers)
	work := make(chan *item[T, R])
	readErr := make(chan error, 1)
	// spare holds the items whose result was taken, for the reader to use
	// again: a job then costs no allocation of its own. An item whose done
	// was closed is never reused.
	spare := make(chan *item[T, R], o.Workers)
	go func() { // the batch reader; see the package doc
		readErr <- read(ctx, o.Next, order, work, spare)
		close(order)
		close(work)
	}()
	for range o.Workers {
		go func() { // one of the batch workers; stops when work is closed
			for it := range work {
				it.done <- o.Do(ctx, it.job)
			}
		}()
	}

	idle := func() error {
		if o.Idle != nil {
			return o.Idle()
		}
		return nil
	}
	// end stops the run: it cancels the jobs in flight and waits for those
	// already handed out, never for input.
	end := func(cause error) error {
		stop(cause)
		drainReady(order)
		return cause
	}
	for {
		it, err := next(ctx, order, idle)
		if err != nil {
			return end(err)
		}
		if it == nil {
			return <-readErr
		}
		r, ok, err := result(ctx, it, idle)
		if err != nil {
			stop(err)
			<-it.done // the job being waited for is in flight too
			return end(err)
		}
		if !ok {
			continue // handed out as the run stopped; never ran
		}
		var zero T
		it.job = zero // the item keeps nothing of the job it ran
		select {
		case spare <- it:
		default:
		}
		if err := o.Emit(r); err != nil {
			return end(err)
		}
	}
}

// read feeds the jobs to the writer (in order) and the workers.
// Items come from spare while it has any.
func read[T, R any](ctx context.Context, next func(context.Context) (T, bool, error), order, work chan<- *item[T, R], spare <-chan *item[T, R]) error {
	for {
		job, ok, err := next(ctx)
		if err != nil || !ok {
			return err
		}
		var it *item[T, R]
		select {
		case it = <-spare:
			it.job = job
		default:
			it = &item[T, R]{job: job, done: make(chan R, 1)}
		}
		select {
		case order <- it:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
		// A select with both cases ready picks one at random: a job queued
		// after the run stopped (and so after drainReady looked) must not
		// reach a worker, which would run it after Run returned.
		if ctx.Err() != nil {
			close(it.done)
			return context.Cause(ctx)
		}
		select {
		case work <- it:
		case <-ctx.Done():
			close(it.done) // the writer must not wait for it
			return context.Cause(ctx)
		}
	}
}

// next waits for the next job in input order, calling idle first if it has
// to wait; nil at the end of the input. It gives up when ctx ends.
func next[T, R any](ctx context.Context, order <-chan *item[T, R], idle func() error) (*item[T, R], error) {
	select {
	case it := <-order:
		return it, nil
	default:
	}
	if err := idle(); err != nil {
		return nil, err
	}
	select {
	case it := <-order:
		return it, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// result waits for it's result, calling idle first if it has to wait.
func result[T, R any](ctx context.Context, it *item[T, R], idle func() error) (R, bool, error) {
	select {
	case r, ok := <-it.done:
		return r, ok, nil
	default:
	}
	if err := idle(); err != nil {
		var zero R
		return zero, false, err
	}
	select {
	case r, ok := <-it.done:
		return r, ok, nil
	case <-ctx.Done():
		var zero R
		return zero, false, context.Cause(ctx)
	}
}

// drainReady waits for the jobs already queued (and so handed out, or
// about to be dropped by the stopping reader). It does not wait for input.
func drainReady[T, R any](order <-chan *item[T, R]) {
	for {
		select {
		case it, ok := <-order:
			if !ok {
				return
			}
			<-it.done
		default:
			return
		}
	}
}
