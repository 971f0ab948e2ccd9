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
	// NoANSI: stdout is a terminal that shows escape sequences as text.
	NoANSI bool
	// OutWidth is the number of columns of the terminal stdout is, asked
	// when called; nil, or 0 from it, when unknown.
	OutWidth func() int
}

// System returns the process's own streams. A terminal that cannot show
// escape sequences (TERM=dumb, or a Windows console where virtual-terminal
// processing cannot be turned on) gets no redrawn progress line, and its
// stdout counts as no terminal for colour.
func System() *Streams {
	term := os.Getenv("TERM")
	errTTY := isTerminal(os.Stderr)
	outTTY := isTerminal(os.Stdout)
	status := NewStatusLine(os.Stderr, showsEscapes(errTTY, term, func() bool { return enableVT(os.Stderr) }))
	status.SetWidth(func() int { return terminalWidth(os.Stderr) })
	return &Streams{
		In:       os.Stdin,
		Out:      os.Stdout,
		Err:      status,
		Status:   status,
		InTTY:    isTerminal(os.Stdin),
		OutTTY:   outTTY,
		ErrTTY:   errTTY,
		NoANSI:   outTTY && !showsEscapes(outTTY, term, func() bool { return enableVT(os.Stdout) }),
		OutWidth: func() int { return terminalWidth(os.Stdout) },
	}
}

// showsEscapes decides whether a stream shows escape sequences (colours, a
// redrawn progress line) rather than printing them as text: it must be a
// terminal, TERM must not be dumb, and virtual-terminal processing must be
// on (enableVT turns it on for a Windows console and is true elsewhere; it
// is asked only when the rest holds, so a pipe's mode is never touched).
func showsEscapes(tty bool, term string, enableVT func() bool) bool {
	return tty && term != "dumb" && enableVT()
}

// NewStreams returns streams over the given readers and writers, none a terminal.
func NewStreams(in io.Reader, out, err io.Writer) *Streams {
	status := NewStatusLine(err, false)
	return &Streams{In: in, Out: out, Err: status, Status: status}
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// UseColor decides colour as gh does: the --color flag; then NO_COLOR
// (set: never); CLICOLOR_FORCE or FORCE_COLOR (set and not 0: always, even
// into a pipe); CLICOLOR=0 (never); TERM=dumb (never); else whether stdout
// is a terminal that shows colours. getenv is os.Getenv outside tests.
func UseColor(flag string, outTTY bool, getenv func(string) string) bool {
	switch flag {
	case "always":
		return true
	case "never":
		return false
	}
	forced := func(k string) bool { v := getenv(k); return v != "" && v != "0" }
	switch {
	case getenv("NO_COLOR") != "":
		return false
	case forced("CLICOLOR_FORCE") || forced("FORCE_COLOR"):
		return true
	case getenv("CLICOLOR") == "0", getenv("TERM") == "dumb":
		return false
	}
	return outTTY
}
