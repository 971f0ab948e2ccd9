// Package loaddata is what varies from one iteration of mcpv load to the
// next: rows of a data file (JSON Lines or CSV), taken in order or at
// random with a seed, and arguments written as jq templates (key~=EXPR)
// evaluated for each iteration over {iteration, session, row, random}.
//
// Everything random is a function of the seed and the iteration's number
// alone, never of which session runs it or when: a run with the same seed
// sends the same values, in the same order of iterations, every time.
package loaddata

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"
	"weak"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/jq"
)

// Order is how rows are taken: in order (the k-th iteration the row
// k mod N) or at random (a row drawn from the seed and k).
type Order string

const (
	InOrder Order = "sequential"
	Random  Order = "random"
)

// Source is a data file's rows, read from the file as iterations take
// them: what it holds is where each row is, so that a file of any size
// costs its rows' count, and a row of 100 MiB is read into memory only
// while an iteration takes it. The row taken last is kept, decoded, and
// shared by the iterations that take it (jq never changes a value it is
// given): sessions that take one row while one holds it read it once (one
// of 1 MiB or more is not kept past that: its call is sent without it).
type Source struct {
	Path    string
	Order   Order
	Seed    uint64
	Largest int64 // the longest row's bytes

	file io.ReaderAt
	rows []span   // where each row's text is
	head []string // CSV: the header's names; nil for JSON Lines

	mu   sync.Mutex // guards last and buf, and holds a row's reading
	last *decoded   // the row decoded last; nil before the first
	buf  [32 << 10]byte
}

// span is where a row's text is in the file.
type span struct{ off, n int64 }

// decoded is a row as jq sees it, or a large row's text, weakly, to decode.
type decoded struct {
	i, n int
	v    any
	text weak.Pointer[byte]
}

// MaxRows bounds the rows of a data file.
const MaxRows = 10_000_000

// MaxRow bounds a row's bytes: what an iteration holds of the file.
const MaxRow = 128 << 20

// Read reads the data file file of size bytes through once, checking it
// (path names it in messages and says its format: .csv is CSV with a
// header line, anything else JSON Lines, one JSON value a line, blank
// lines skipped), and keeps where its rows are; iterations read them from
// file, which must stay open and unchanged while they do. Mistakes are
// usage errors naming the line.
func Read(path string, file io.ReaderAt, size int64, order Order, seed uint64) (*Source, error) {
	s := &Source{Path: path, Order: order, Seed: seed, file: file}
	if order != InOrder && order != Random {
		return nil, errkind.Usagef("--data-order %q: want sequential or random", order)
	}
	index := s.indexLines
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		index = s.indexCSV
	}
	if err := index(io.NewSectionReader(file, 0, size)); err != nil {
		return nil, errkind.Usagef("--data %s%v", path, err)
	}
	if len(s.rows) == 0 {
		return nil, errkind.Usagef("--data %s: no rows", path)
	}
	return s, nil
}

// add notes a row's place.
func (s *Source) add(off, n int64, line int) error {
	if len(s.rows) == MaxRows {
		return fmt.Errorf(": more than %d rows", MaxRows)
	}
	if n > MaxRow {
		return fmt.Errorf(":%d: a row of more than %d MiB", line, MaxRow>>20)
	}
	s.rows = append(s.rows, span{off, n})
	s.Largest = max(s.Largest, n)
	return nil
}

// indexLines reads JSON Lines, each line checked as it goes by.
func (s *Source) indexLines(r io.Reader) error {
	bound := &rowBound{r: r} // its start: where the line starts
	br := bufio.NewReaderSize(bound, 64<<10)
	c := newJSONLine()
	for n := 1; ; n++ {
		var err error
		for { // the line, in pieces
			var piece []byte
			piece, err = br.ReadSlice('\n')
			if c.write(bytes.TrimSuffix(piece, []byte("\n"))); c.bad {
				return notJSON(n)
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		switch {
		case errors.Is(err, errRowTooLong):
			return fmt.Errorf(":%d: %v", n, err)
		case err != nil && !errors.Is(err, io.EOF):
			return fmt.Errorf(": %v", err)
		case c.start < 0: // a blank line
		case !c.valid():
			return notJSON(n)
		default:
			if err := s.add(bound.start+c.start, c.end-c.start, n); err != nil {
				return err
			}
		}
		if err != nil { // io.EOF
			return nil
		}
		bound.start += c.n + 1
		c.reset()
	}
}

func notJSON(line int) error {
	return fmt.Errorf(":%d: not a JSON value (a JSON Lines file has one a line; a CSV file is named .csv)", line)
}

// indexCSV reads CSV, a record at a time, none of more than MaxRow.
func (s *Source) indexCSV(r io.Reader) error {
	bound := &rowBound{r: r}
	cr := csv.NewReader(bound)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return fmt.Errorf(": the header line: %v", err)
	}
	seen := map[string]bool{}
	for _, h := range head {
		if h == "" || seen[h] {
			return fmt.Errorf(":1: the header names each column once, none empty: %q", h)
		}
		seen[h] = true
	}
	s.head = slices.Clone(head)
	line := 1 // where the last record starts
	for {
		off := cr.InputOffset()
		bound.start = off
		_, err := cr.Read()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, errRowTooLong):
			return fmt.Errorf(":%d: %v", line+1, err)
		case err != nil:
			return fmt.Errorf(":%v", strings.TrimPrefix(err.Error(), "record on "))
		}
		line, _ = cr.FieldPos(0)
		if err := s.add(off, cr.InputOffset()-off, line); err != nil {
			return err
		}
	}
}

// rowBound is a data file's reader that fails once a row runs past
// MaxRow: a line is never read further, and a CSV record, which is read
// whole, never held larger.
type rowBound struct {
	r           io.Reader
	read, start int64 // the bytes read; where the row being read starts
}

var errRowTooLong = fmt.Errorf("a row of more than %d MiB", MaxRow>>20)

func (b *rowBound) Read(p []byte) (int, error) {
	if b.read-b.start > MaxRow+64<<10 { // and what is read ahead of it
		return 0, errRowTooLong
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

// Len is the number of rows.
func (s *Source) Len() int { return len(s.rows) }

// Index is the row the k-th iteration (from 0) takes.
func (s *Source) Index(k int64) int {
	n := uint64(s.Len())
	if s.Order == Random {
		return int(mix(s.Seed, uint64(k)) % n)
	}
	return int(uint64(k) % n)
}

// Row is the k-th iteration's row as jq sees it: a JSON Lines row's value,
// a CSV row as an object of its columns' strings.
func (s *Source) Row(k int64) (any, error) {
	i := s.Index(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.last; d != nil && d.i == i {
		if p := d.text.Value(); p != nil {
			return s.decode(unsafe.String(p, d.n))
		} else if d.n == 0 {
			return d.v, nil
		}
	}
	// The row's text, read straight into the string it stays: the value's
	// strings are parts of it.
	var text strings.Builder
	text.Grow(int(s.rows[i].n))
	if _, err := io.CopyBuffer(&text, io.NewSectionReader(s.file, s.rows[i].off, s.rows[i].n), s.buf[:]); err != nil {
		return nil, err
	}
	v, err := s.decode(text.String())
	if err != nil {
		return nil, err
	}
	if s.last = (&decoded{i: i, v: v}); text.Len() >= 1<<20 {
		s.last = &decoded{i: i, n: text.Len(), text: weak.Make(unsafe.StringData(text.String()))}
	}
	return v, nil
}

// decode is a row's text as jq sees it.
func (s *Source) decode(text string) (any, error) {
	if s.head == nil {
		return jq.DecodeString(text)
	}
	cr := csv.NewReader(strings.NewReader(text))
	cr.FieldsPerRecord = len(s.head)
	rec, err := cr.Read()
	if err != nil {
		return nil, err
	}
	row := make(map[string]any, len(s.head))
	for j, h := range s.head {
		row[h] = rec[j]
	}
	return row, nil
}

// mix is splitmix64 of seed and k: well spread, and the same for the same
// seed and iteration on every run.
func mix(seed, k uint64) uint64 {
	z := seed + (k+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uniform is a number in [0, 1) drawn from the seed and the k-th
// iteration: the template's .random.
func Uniform(seed uint64, k int64) float64 {
	return float64(mix(seed^0x5851f42d4c957f2d, uint64(k))>>11) / (1 << 53)
}
