package loaddata

// A large row's values read from the file where they are, not decoded:
// a template that is a path into the row (.row.text, .row.a["b c"]) takes
// the value there, and a long string there is sent as the file holds it
// (mcp.Streamed), read as its request is written.

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// StreamFrom is the length from which a string a row path finds is
// streamed rather than read.
const StreamFrom = 64 << 10

// Path is the template's keys into the row when its expression is a
// path into it and nothing more (.row.a.b, .row["a"]); nil otherwise.
func (t Template) Path() []string { return t.path }

// RowFree reports whether the template does not read the row.
func (t Template) RowFree() bool { return !strings.Contains(t.Expr, "row") }

// rowPath reads expr as .row followed by keys: .name or ["name"].
func rowPath(expr string) []string {
	rest, ok := strings.CutPrefix(strings.TrimSpace(expr), ".row")
	if !ok {
		return nil
	}
	var path []string
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "."):
			n := 1
			for n < len(rest) && (rest[n] == '_' || rest[n] >= 'a' && rest[n] <= 'z' || rest[n] >= 'A' && rest[n] <= 'Z' || n > 1 && rest[n] >= '0' && rest[n] <= '9') {
				n++
			}
			if n == 1 {
				return nil
			}
			path, rest = append(path, rest[1:n]), rest[n:]
		case strings.HasPrefix(rest, `["`):
			end := strings.Index(rest, `"]`)
			var key string
			if end < 0 || json.Unmarshal([]byte(rest[1:end+1]), &key) != nil {
				return nil
			}
			path, rest = append(path, key), rest[end+2:]
		default:
			return nil
		}
	}
	return path
}

// Found is what a row path finds in a large row: a long string's place
// in the file (Streamed), or any other value, decoded.
type Found struct {
	Streamed bool
	Off, N   int64 // the string's place, quotes included, when Streamed
	Value    any   // else the value (nil: none there, as jq's null)
}

// Large reports whether the k-th iteration's row is one whose values a
// row path reads where they are (Lookup).
func (s *Source) Large(k int64) bool {
	return s.head == nil && s.rows[s.Index(k)].n >= 1<<20
}

// File is the data file the rows are read from.
func (s *Source) File() io.ReaderAt { return s.file }

// Lookup finds path in the k-th iteration's row, a JSON Lines row, reading
// the file as far as it, and then no further than a scalar or a string;
// ok is false when what it finds is no string of StreamFrom bytes or more
// and is no scalar, or the row is not the object path needs: the row is
// then to be read whole (Row).
func (s *Source) Lookup(k int64, path []string) (f Found, ok bool, err error) {
	row := s.rows[s.Index(k)]
	w := &walker{r: bufio.NewReaderSize(io.NewSectionReader(s.file, row.off, row.n), 32<<10), off: row.off}
	for _, key := range path {
		if found, err := w.member(key); err != nil || !found {
			return Found{}, false, err
		}
	}
	c, err := w.peek()
	if err != nil {
		return Found{}, false, err
	}
	start := w.off
	if c == '"' {
		streams, err := w.string(nil)
		if err != nil {
			return Found{}, false, err
		}
		if n := w.off - start; streams && n-2 >= StreamFrom {
			return Found{Streamed: true, Off: start, N: n}, true, nil
		}
	} else if c == '{' || c == '[' {
		return Found{}, false, nil
	} else {
		w.skipScalar()
	}
	if w.off-start > StreamFrom {
		return Found{}, false, nil
	}
	text := make([]byte, w.off-start)
	if _, err := s.file.ReadAt(text, start); err != nil {
		return Found{}, false, err
	}
	v, err := jq.DecodeString(string(text))
	return Found{Value: v}, err == nil, err
}

// walker reads a row's JSON, already checked, as far as it must.
type walker struct {
	r   *bufio.Reader
	off int64 // the file's offset of the next byte
}

var errWalk = errors.New("the row changed since it was read")

// peek is the next byte past white space.
func (w *walker) peek() (byte, error) {
	for {
		b, err := w.r.Peek(1)
		if err != nil {
			return 0, errWalk
		}
		if c := b[0]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, nil
		}
		w.next()
	}
}

func (w *walker) next() byte {
	c, _ := w.r.ReadByte()
	w.off++
	return c
}

// member moves to the value of the object member key: false, with no
// error, when the value there is no object, or has no such member.
func (w *walker) member(key string) (bool, error) {
	if c, err := w.peek(); err != nil || c != '{' {
		return false, err
	}
	w.next()
	for {
		c, err := w.peek()
		if err != nil || c != '"' {
			return false, err // '}': no such member
		}
		var name []byte
		if _, err := w.string(&name); err != nil {
			return false, err
		}
		var k string
		match := json.Unmarshal(name, &k) == nil && k == key
		if c, err := w.peek(); err != nil || c != ':' {
			return false, errWalk
		}
		w.next()
		if match {
			_, err := w.peek()
			return err == nil, err
		}
		if err := w.skipValue(); err != nil {
			return false, err
		}
		if c, err := w.peek(); err != nil || c != ',' {
			return false, err
		}
		w.next()
	}
}

// maxKey bounds the member names member reads.
const maxKey = 4 << 10

// string reads past a string, keeping it in keep, when not nil, up to
// maxKey bytes (past them it keeps nothing); streams says that its bytes
// are valid UTF-8, to be sent as they are (what is not is read whole, as
// encoding/json reads it).
func (w *walker) string(keep *[]byte) (streams bool, err error) {
	if keep != nil {
		*keep = make([]byte, 0, 64)
	}
	var scan rawjson.StringScan
	for !scan.Done() {
		b, _ := w.r.Peek(max(1, w.r.Buffered()))
		n, ok := scan.Scan(b)
		if len(b) == 0 || !ok {
			return false, errWalk
		}
		if keep != nil && *keep != nil {
			if *keep = append(*keep, b[:n]...); len(*keep) > maxKey {
				*keep = nil
			}
		}
		w.r.Discard(n)
		w.off += int64(n)
	}
	return !scan.BadUTF8, nil
}

// skipValue reads past a value of any kind.
func (w *walker) skipValue() error {
	depth := 0
	for {
		c, err := w.peek()
		if err != nil {
			return err
		}
		switch c {
		case '"':
			if _, err := w.string(nil); err != nil {
				return err
			}
		case '{', '[':
			w.next()
			depth++
			continue
		case '}', ']':
			w.next()
			depth--
		case ',', ':':
			w.next()
			continue
		default:
			w.skipScalar()
		}
		if depth == 0 {
			return nil
		}
	}
}

// skipScalar reads past a number, true, false or null, up to the row's
// end or what follows the scalar.
func (w *walker) skipScalar() {
	for {
		if b, err := w.r.Peek(1); err != nil || strings.IndexByte(" \t\r\n,:]}", b[0]) >= 0 {
			return
		}
		w.next()
	}
}
