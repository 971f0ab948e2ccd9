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
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

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

// Source is a data file's rows, held as read: a JSON Lines row is decoded
// when an iteration takes it, so that a file of 100 MB stays 100 MB. The
// row decoded last is kept, and shared by the iterations that take it
// (jq never changes a value it is given): sessions that take one row at
// once, or one after the other, decode it once, and a file of one large
// row costs that row, decoded, once.
type Source struct {
	Path  string
	Order Order
	Seed  uint64
	Size  int        // the file's bytes
	lines [][]byte   // JSON Lines: each row's text
	recs  [][]string // CSV: each row's fields, under header
	head  []string

	mu   sync.Mutex // guards last, and holds a row's decoding
	last *decoded   // the row decoded last; nil before the first
}

// decoded is a JSON Lines row as jq sees it.
type decoded struct {
	i int
	v any
}

// MaxRows bounds the rows of a data file.
const MaxRows = 10_000_000

// Read reads a data file (its content data; path names it in messages and
// says its format: .csv is CSV with a header line, anything else JSON
// Lines, one JSON value a line, blank lines skipped). Mistakes are usage
// errors naming the line.
func Read(path string, data []byte, order Order, seed uint64) (*Source, error) {
	s := &Source{Path: path, Order: order, Seed: seed, Size: len(data)}
	if order != InOrder && order != Random {
		return nil, errkind.Usagef("--data-order %q: want sequential or random", order)
	}
	var err error
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		err = s.readCSV(data)
	} else {
		err = s.readLines(data)
	}
	if err != nil {
		return nil, errkind.Usagef("--data %s%v", path, err)
	}
	if s.Len() == 0 {
		return nil, errkind.Usagef("--data %s: no rows", path)
	}
	return s, nil
}

func (s *Source) readLines(data []byte) error {
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			return fmt.Errorf(":%d: not a JSON value (a JSON Lines file has one a line; a CSV file is named .csv)", n)
		}
		if len(s.lines) == MaxRows {
			return fmt.Errorf(": more than %d rows", MaxRows)
		}
		s.lines = append(s.lines, line)
	}
	return nil
}

func (s *Source) readCSV(data []byte) error {
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = false
	head, err := r.Read()
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
	s.head = head
	for {
		rec, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf(":%v", strings.TrimPrefix(err.Error(), "record on "))
		}
		if len(s.recs) == MaxRows {
			return fmt.Errorf(": more than %d rows", MaxRows)
		}
		s.recs = append(s.recs, rec)
	}
}

// Len is the number of rows.
func (s *Source) Len() int { return len(s.lines) + len(s.recs) }

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
	if s.recs != nil {
		row := make(map[string]any, len(s.head))
		for j, h := range s.head {
			row[h] = s.recs[i][j]
		}
		return row, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.last; d != nil && d.i == i {
		return d.v, nil
	}
	v, err := jq.DecodeJSON(s.lines[i])
	if err != nil {
		return nil, err
	}
	s.last = &decoded{i, v}
	return v, nil
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
