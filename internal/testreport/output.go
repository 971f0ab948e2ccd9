package testreport

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
)

// Output is where the reports go: stdout, and the --output file. A
// closed stdout (| head) is written no more, and the run goes on.
type Output struct {
	Stdout io.Writer
	File   *os.File // --output, or nil
	closed bool     // stdout's reader went away
}

// Text is where the text report goes, if anywhere, and whether that is
// stdout: the --output file when the format is text, else stdout.
func (o *Output) Text(format string) (io.Writer, bool) {
	switch {
	case format == "text" && o.File != nil:
		return o.File, false
	case format == "text" || o.File != nil:
		return o, true
	}
	return nil, false
}

// Report is where the report of the chosen format goes.
func (o *Output) Report() io.Writer {
	if o.File != nil {
		return o.File
	}
	return o
}

// Write writes to stdout until its reader goes away.
func (o *Output) Write(p []byte) (int, error) {
	if o.closed {
		return len(p), nil
	}
	n, err := o.Stdout.Write(p)
	if err != nil && errkind.BrokenPipe(err) {
		o.closed = true
		return len(p), nil
	}
	return n, err
}

// WriteError is what a report that could not be written ends the run
// with (a closed stdout is no error: see Output).
func WriteError(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("writing the report: %w", err)
}

// Write writes s's report of a format other than text.
func (s Suite) Write(w io.Writer, format string, files []File, took time.Duration) error {
	switch format {
	case "junit":
		return s.JUnit(w, files, took)
	case "tap":
		return s.TAP(w, files)
	case "json":
		return s.JSON(w, files, took)
	}
	return nil
}

// Finish writes what follows the files' blocks: the text report's summary
// when there is a text report (text, else nil), and the report of format
// when it is not text.
func Finish(dest *Output, text *Text, format string, files []File, took time.Duration) error {
	return Tests.Finish(dest, text, format, files, took)
}

// Finish is Finish for s's report.
func (s Suite) Finish(dest *Output, text *Text, format string, files []File, took time.Duration) error {
	if text != nil {
		if err := WriteError(text.Summary(files, took)); err != nil {
			return err
		}
	}
	if format != "text" {
		return WriteError(s.Write(dest.Report(), format, files, took))
	}
	return nil
}
