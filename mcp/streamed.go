package mcp

// A request whose one long string is read from a file as the request is
// written, never held in memory (a load run's data row of 100 MiB).
//
// The caller builds the request's params as usual, with a short
// stand-in (Streamed.Marker, a JSON string) where the long string goes,
// and gives the Streamed to the call (Client.CallStreamed). Everything that reads the
// message before it goes (its _meta, its headers, the trace hooks) reads
// the small one. The session's write (Session.write) is the one place
// that knows: it gives the trace hooks the message with the string's head
// and a note in its place, and hands the transport the message whose
// stand-in the file's bytes replace as they are written (CommandTransport,
// HTTPTransport); a transport that cannot is given the whole message.
// What goes on the wire is the file's bytes as they are, which are in the
// message what they are in the file: the same JSON value. They are
// checked, as they are read, to be one JSON string of valid UTF-8
// (rawjson.StringScan), quotes included, and of the length they had, so
// that a file changed or cut under the send fails the message
// (errStreamChanged) rather than send another.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Streamed is a JSON string read from a file as the request that holds it
// is written.
type Streamed struct {
	// Marker is the JSON string (quotes included) that stands for it in
	// the params: unique, Plain, found once in the message.
	Marker []byte
	// File holds the string at [Off, Off+N), quotes included: a JSON
	// string of valid UTF-8, its escapes as they are.
	File   io.ReaderAt
	Off, N int64
	// Name says where it comes from, in the trace's note.
	Name string
	// Mask, when set, masks the head the trace shows, before it is cut:
	// a secret that the cut would split shows none of its start.
	Mask func(string) string
}

// streamedMsg is a message whose string is read from its file as it goes.
type streamedMsg struct {
	head, tail []byte // the message before and after the string
	st         *Streamed
}

// size is the message's length on the wire.
func (m *streamedMsg) size() int64 { return int64(len(m.head)+len(m.tail)) + m.st.N }

// reader reads the message from its start, each time anew.
func (m *streamedMsg) reader() io.Reader {
	return io.MultiReader(bytes.NewReader(m.head), &checkedString{r: io.NewSectionReader(m.st.File, m.st.Off, m.st.N), n: m.st.N}, bytes.NewReader(m.tail))
}

// writeTo writes the message to w in chunks of chunk bytes, none held
// past its write.
func (m *streamedMsg) writeTo(w func([]byte) error, chunk int) error {
	buf := make([]byte, chunk)
	r := m.reader()
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if werr := w(buf[:n]); werr != nil {
				return werr
			}
		}
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return nil
		case err != nil:
			return err
		}
	}
}

// whole is the message in one piece, for a transport that takes no stream.
func (m *streamedMsg) whole() ([]byte, error) {
	b := bytes.NewBuffer(make([]byte, 0, m.size()))
	if _, err := b.ReadFrom(m.reader()); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// traceHead is how much of the string the trace hooks are shown.
const traceHead = 4 << 10

// view is the message as the trace hooks see it: the string's head, and
// a note of what follows, in its place.
func (m *streamedMsg) view() ([]byte, error) {
	// The head read past the cut, so that the mask sees a secret the cut
	// splits whole.
	head := make([]byte, min(m.st.N, traceHead+traceMargin))
	if _, err := io.ReadFull(io.NewSectionReader(m.st.File, m.st.Off, m.st.N), head); err != nil {
		return nil, streamChanged(err)
	}
	var scan rawjson.StringScan
	end := 0 // past the head's last byte that splits no escape or rune
	for i := range head {
		if n, ok := scan.Scan(head[i : i+1]); !ok || n == 0 {
			return nil, errStreamChanged
		}
		if scan.Between() {
			end = i + 1
		}
	}
	text := rawjson.Unquote(append(head[:end:end], '"'), true, true)
	if m.st.Mask != nil {
		text = m.st.Mask(text)
	}
	cut := min(len(text), traceHead)
	for cut > 0 && cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut--
	}
	text = text[:cut] + fmt.Sprintf("… (%d bytes in all, streamed from %s)", m.st.N-2, m.st.Name)
	b := append([]byte(nil), m.head...)
	b = rawjson.AppendString(b, text)
	return append(b, m.tail...), nil
}

// traceMargin is how far past the trace's cut the head is masked.
const traceMargin = 1 << 10

// errStreamChanged is a streamed string's file that no longer holds it as
// it did: the message is not sent as if whole.
var errStreamChanged = errors.New("the file changed under the send (a string to stream no longer holds what it did)")

func streamChanged(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: it is shorter", errStreamChanged)
	}
	return err
}

// checkedString reads a JSON string of n bytes from r, failing when r
// ends before n or holds what is not one valid JSON string of valid UTF-8.
type checkedString struct {
	r    io.Reader
	n    int64 // its length
	read int64 // how much was read
	scan rawjson.StringScan
}

func (c *checkedString) Read(p []byte) (int, error) {
	if c.read == c.n {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), c.n-c.read)]
	k, err := c.r.Read(p)
	c.read += int64(k)
	if n, ok := c.scan.Scan(p[:k]); !ok || n < k || c.scan.BadUTF8 || c.scan.Done() != (c.read == c.n) {
		return 0, errStreamChanged
	}
	if errors.Is(err, io.EOF) && c.read < c.n {
		return k, streamChanged(io.ErrUnexpectedEOF)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return k, err
	}
	return k, nil
}

// streamWriter is a transport that writes a streamed message (m) itself.
type streamWriter interface {
	writeStream(ctx context.Context, msg []byte, m *streamedMsg) error
}
