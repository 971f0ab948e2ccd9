package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mcpv/mcpv/internal/elicit"
)

// errNoTerminal is an Ask with no terminal to ask on.
var errNoTerminal = errors.New("no terminal to ask on")

// asker asks the user questions on the terminal, one at a time, each
// answered by a line. The terminal is opened for the first question.
type asker struct {
	open func() (in, out *os.File, err error)

	mu     sync.Mutex // serialises questions; guards the fields below
	tried  bool
	in     *os.File
	out    *os.File
	lines  elicit.Terminal
	closed bool
}

// newAsker asks on the terminal when stderr is one (errTTY); closers
// gathers what must be closed when the run ends.
func newAsker(errTTY bool, closers *[]func() error) *asker {
	a := &asker{open: openConsole}
	if !errTTY {
		a.open = func() (*os.File, *os.File, error) { return nil, nil, errNoTerminal }
	}
	*closers = append(*closers, a.close)
	return a
}

// Ask writes question and reads the answer, a line. Hidden, what is typed
// is not shown (a password): the terminal's echo is off until the line
// ends or ctx does. ErrNoTerminal when there is no terminal.
func (a *asker) Ask(ctx context.Context, question string, hidden bool) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.tried {
		a.tried = true
		if in, out, err := a.open(); err == nil {
			a.in, a.out, a.lines = in, out, elicit.NewTerminal(in, out)
		}
	}
	if a.lines == nil || a.closed {
		return "", errNoTerminal
	}
	if hidden { // before the question is shown, so that nothing typed on seeing it is
		restore, err := hideInput(a.in)
		if err != nil {
			return "", fmt.Errorf("cannot hide what is typed on this terminal: %w", err)
		}
		defer func() {
			restore()
			io.WriteString(a.out, "\n") // the Enter that ended the line was not shown either
		}()
	}
	if _, err := io.WriteString(a.out, question); err != nil {
		return "", err
	}
	return a.lines.ReadLine(ctx)
}

// close closes the terminal, if it was opened.
func (a *asker) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	if a.in == nil {
		return nil
	}
	err := a.in.Close()
	if a.out != a.in {
		a.out.Close()
	}
	return err
}
