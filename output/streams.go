// Package output owns mcpv's standard streams: what is a terminal, whether to
// colour, and how JSON results and jq filter outputs are printed.
package output

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// Streams are the standard streams of one mcpv run. Tests build their own.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer // safe for concurrent use when built by System or NewStreams

	// Status draws transient progress on stderr when stderr is a terminal;
	// Err writes through it so nothing garbles.
	Status *StatusLine

	InTTY, OutTTY, ErrTTY bool
}

// System returns the process's own streams.
func System() *Streams {
	errTTY := isTerminal(os.Stderr)
	status := NewStatusLine(os.Stderr, errTTY)
	return &Streams{
		In:     os.Stdin,
		Out:    os.Stdout,
		Err:    status,
		Status: status,
		InTTY:  isTerminal(os.Stdin),
		OutTTY: isTerminal(os.Stdout),
		ErrTTY: errTTY,
	}
}

// NewStreams returns streams over the given readers and writers, none a terminal.
func NewStreams(in io.Reader, out, err io.Writer) *Streams {
	status := NewStatusLine(err, false)
	return &Streams{In: in, Out: out, Err: status, Status: status}
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// UseColor decides colour: the --color flag, then NO_COLOR, then TERM=dumb,
// then whether stdout is a terminal. getenv is os.Getenv outside tests.
func UseColor(flag string, outTTY bool, getenv func(string) string) bool {
	switch flag {
	case "always":
		return true
	case "never":
		return false
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	return outTTY
}
