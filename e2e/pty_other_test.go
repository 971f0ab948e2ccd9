//go:build unix && !linux && e2e

package e2e

import (
	"errors"
	"os"
)

// pty is a pseudo-terminal, opened on Linux alone; elsewhere the tests
// that need one are skipped.
type pty struct{ master, tty *os.File }

func openPTY() (*pty, error) { return nil, errors.New("pseudo-terminals are opened on Linux only") }

func (p *pty) full() bool { return false }

func (p *pty) setColumns(int) error { return nil }

func (p *pty) close() {}
