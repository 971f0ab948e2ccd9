package elicit

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
)

// Terminal is the interactive terminal mcpv asks on (it opens /dev/tty).
// Questions are written to it; ReadLine reads one answer.
type Terminal interface {
	io.Writer
	// ReadLine returns the next line typed, without its line ending, or
	// io.EOF when input ends. It returns ctx.Err() when ctx ends first.
	ReadLine(ctx context.Context) (string, error)
	// Turn waits until no other question is on the terminal (concurrent
	// requests take turns), or returns ctx.Err() when ctx ends first.
	// release gives the terminal back.
	Turn(ctx context.Context) (release func(), err error)
}

// NewTerminal makes a Terminal that reads lines from r and writes to w, for
// example both the opened /dev/tty. A read that ctx abandoned is not lost: its
// line is the answer to the next ReadLine.
func NewTerminal(r io.Reader, w io.Writer) Terminal {
	return &lineTerminal{w: w, r: bufio.NewReader(r), turn: make(chan struct{}, 1)}
}

type lineTerminal struct {
	w    io.Writer
	r    *bufio.Reader
	turn chan struct{} // a 1-slot semaphore: holding it is asking

	mu      sync.Mutex      // guards pending
	pending chan lineResult // the read in flight, if any
}

type lineResult struct {
	line string
	err  error
}

func (t *lineTerminal) Write(p []byte) (int, error) { return t.w.Write(p) }

func (t *lineTerminal) ReadLine(ctx context.Context) (string, error) {
	t.mu.Lock()
	if t.pending == nil {
		ch := make(chan lineResult, 1)
		t.pending = ch
		go func() { // terminal line reader: ends when a line is read
			line, err := t.r.ReadString('\n')
			if err == io.EOF && line != "" {
				err = nil // the last line had no line ending; EOF comes next time
			}
			ch <- lineResult{strings.TrimRight(line, "\r\n"), err}
		}()
	}
	ch := t.pending
	t.mu.Unlock()
	select {
	case r := <-ch:
		t.mu.Lock()
		t.pending = nil
		t.mu.Unlock()
		return r.line, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (t *lineTerminal) Turn(ctx context.Context) (release func(), err error) {
	select {
	case t.turn <- struct{}{}:
		return func() { <-t.turn }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
