package output

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/tidwall/pretty"
)

// Format says how values are written.
type Format struct {
	Pretty bool // indented; otherwise compact, one value per line
	Color  bool
	Raw    bool // strings from a filter are written without quotes (jq -r)
	// Terminal: stdout is a terminal, where a raw string's escape
	// sequences and controls are shown escaped (TerminalText), not obeyed
	Terminal bool
}

// ErrFalsy is returned by Printer.Print under ExitStatus when the last filter
// output was false or null, or when there was none (jq -e).
var ErrFalsy = errors.New("the last output was false or null")

// Printer writes results to stdout: the server's JSON as received (key order,
// number text, unknown fields), or the outputs of a jq filter.
type Printer struct {
	Out        io.Writer
	Format     Format
	Filter     *jq.Filter // nil prints the value itself
	ExitStatus bool       // jq -e
}

// ClosedError wraps a failed write to stdout: the reader went away (EPIPE)
// or the stream failed. A closed pipe ends mcpv quietly with success.
type ClosedError struct{ Err error }

func (e *ClosedError) Error() string { return "write to stdout: " + e.Err.Error() }
func (e *ClosedError) Unwrap() error { return e.Err }

// stdoutWriter marks write errors as stdout's own.
type stdoutWriter struct{ w io.Writer }

func (s stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = &ClosedError{Err: err}
	}
	return n, err
}

// writers are Print's buffers, reused: a batch prints thousands of values.
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 64<<10) }}

// Print writes one JSON value (or the filter's outputs for it).
func (p *Printer) Print(raw []byte) error { return p.print(context.Background(), raw, nil) }

// PrintWithin is Print with the filter run within b and ctx: for an
// expression someone else wrote (a test file's step).
func (p *Printer) PrintWithin(ctx context.Context, raw []byte, b jq.Bounds) error {
	return p.print(ctx, raw, &b)
}

func (p *Printer) print(ctx context.Context, raw []byte, b *jq.Bounds) error {
	w := writers.Get().(*bufio.Writer)
	w.Reset(stdoutWriter{p.Out})
	defer func() {
		w.Reset(nil)
		writers.Put(w)
	}()
	var err error
	if p.Filter == nil {
		err = p.writeRaw(w, raw)
	} else {
		err = p.runFilter(ctx, w, raw, b)
	}
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

func (p *Printer) writeRaw(w *bufio.Writer, raw []byte) error {
	if p.Format.Pretty || p.Format.Color {
		out := raw
		if p.Format.Pretty {
			out = pretty.PrettyOptions(raw, &pretty.Options{Width: 80, Indent: "  "})
		} else {
			var b bytes.Buffer
			rawjson.WriteCompact(&b, raw)
			out = append(b.Bytes(), '\n')
		}
		if p.Format.Color {
			out = pretty.Color(terminalSafe(out), nil)
		}
		_, err := w.Write(out)
		return err
	}
	if err := rawjson.WriteCompact(w, raw); err != nil {
		return err
	}
	return w.WriteByte('\n')
}

// ValueWriter prints one JSON value that comes in pieces, as Print prints
// it whole (compact, then a newline), without holding it: a list of any
// length in the memory of one page. Each piece is a run of whole JSON
// tokens (no string cut in two).
type ValueWriter struct {
	w     *bufio.Writer
	wrote bool // a piece was written: Close ends the value
}

// StreamValue starts a ValueWriter, when the printer prints values as they
// are: no filter, compact, no colour. ok is false otherwise: the value must
// be whole to be printed.
func (p *Printer) StreamValue() (v *ValueWriter, ok bool) {
	if p.Filter != nil || p.Format.Pretty || p.Format.Color {
		return nil, false
	}
	w := writers.Get().(*bufio.Writer)
	w.Reset(stdoutWriter{p.Out})
	return &ValueWriter{w: w}, true
}

// Write prints a piece of the value.
func (v *ValueWriter) Write(piece []byte) error {
	v.wrote = true
	return rawjson.WriteCompact(v.w, piece)
}

// Flush writes what is buffered: a page is out.
func (v *ValueWriter) Flush() error { return v.w.Flush() }

// Close ends the value, as Print ends one, and lets go of the writer. A
// value of which nothing was written (the list failed before its first
// page) leaves stdout empty, not a lone newline.
func (v *ValueWriter) Close() error {
	var err error
	if v.wrote {
		err = v.w.WriteByte('\n')
	}
	if ferr := v.w.Flush(); err == nil {
		err = ferr
	}
	v.w.Reset(nil)
	writers.Put(v.w)
	return err
}

// collectBefore is the size of a result from which a filter collects
// garbage before decoding it (see runFilter).
const collectBefore = 32 << 20

func (p *Printer) runFilter(ctx context.Context, w *bufio.Writer, raw []byte, b *jq.Bounds) error {
	if len(raw) >= collectBefore {
		// Reading a large result left about as much garbage behind (the
		// pieces a stdio line was read in, a body's buffer as it grew).
		// Collected and handed back to the system now, it is not still
		// held when the decoded copy is made: a 100 MB result's peak is
		// then about twice its size, not three times. (A collection alone
		// is not enough: the copy cannot always reuse the garbage's
		// memory, which is in pieces.) Both cost little next to decoding
		// such a result.
		debug.FreeOSMemory()
	}
	v, err := jq.Decode(raw)
	if err != nil {
		return fmt.Errorf("decode result for --jq: %w", err)
	}
	outs := p.Filter.Run(v)
	if b != nil {
		outs = p.Filter.RunWithin(ctx, v, *b)
	}
	var last any
	got := false
	for out, err := range outs {
		if err != nil {
			return err
		}
		last, got = out, true
		if err := p.writeValue(w, out); err != nil {
			return err
		}
	}
	if p.ExitStatus && (!got || last == nil || last == false) {
		return ErrFalsy
	}
	return nil
}

func (p *Printer) writeValue(w *bufio.Writer, v any) error {
	if s, ok := v.(string); ok && p.Format.Raw {
		if p.Format.Terminal {
			s = TerminalText(s)
		}
		if _, err := w.WriteString(s); err != nil {
			return err
		}
		return w.WriteByte('\n')
	}
	b, err := jq.Marshal(v)
	if err != nil {
		return err
	}
	return p.writeRaw(w, b)
}

// TerminalText is a server's text as a terminal is to show it: its lines
// and tabs kept, every escape sequence, control and bidirectional control
// shown escaped (safetext.Text), so that it cannot clear the screen, set
// the clipboard (OSC 52) or rewrite what was printed. Elsewhere (a pipe, a
// file) the text is written as it came.
func TerminalText(s string) string { return safetext.Text(strings.ReplaceAll(s, "\r\n", "\n")) }

// terminalSafe escapes, inside JSON strings, the characters a terminal may
// act on or that change how text reads: C1 controls (U+0080-U+009F, which
// some terminals obey as escape sequences) and bidirectional controls. JSON
// allows them raw; written as \uXXXX they are the same string, and coloured
// output goes to a terminal. (C0 controls are always escaped in JSON.)
// Plain output is left byte for byte as the server sent it.
func terminalSafe(b []byte) []byte {
	if !hasUnsafeRune(b) {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if unsafeRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func hasUnsafeRune(b []byte) bool {
	// Every such character is encoded starting with 0xC2 (C1), 0xD8
	// (U+061C) or 0xE2 (the U+20xx marks): a quick scan first.
	if bytes.IndexByte(b, 0xc2) < 0 && bytes.IndexByte(b, 0xe2) < 0 && bytes.IndexByte(b, 0xd8) < 0 {
		return false
	}
	return bytes.ContainsFunc(b, unsafeRune)
}

func unsafeRune(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r == 0x061c || r == 0x200e || r == 0x200f ||
		r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
