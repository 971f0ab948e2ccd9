package loaddata

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/testkit"
)

// FuzzRead reads data files (JSON Lines and CSV) as a cloned repository
// may hold them: any bytes are read or refused with a usage error, within
// memory in proportion to their size, and a file read gives each
// iteration a row, the same one every time it is asked.
//
//	go test ./internal/loaddata -run '^$' -fuzz '^FuzzRead$' -fuzztime 1m
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"city": "Paris", "n": 1}` + "\n" + `{"city": "Oslo", "n": 2}` + "\n\n" + `"a string"` + "\n[1, 2]\n",
		"city,n\nParis,1\nOslo,2\n\"Rio, de\",\"3\"\"\"\n",
		"a,a\n1,2\n",
		",b\n1,2\n",
		"a,b\n1\n",
		"a\n\"unterminated\n",
		"{\"a\": 1}\nnot json\n",
		"\r\n\r\n",
		"1e999999\n-" + strings.Repeat("9", 500) + "\n",
		"a;b\n1;2\n",
	} {
		f.Add([]byte(s), strings.HasPrefix(s, "{") || strings.HasPrefix(s, "1") || strings.HasPrefix(s, "\r"), uint64(7))
	}
	for _, s := range testkit.HostileJSON() {
		f.Add(s, false, uint64(1))
		f.Add(s, true, uint64(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, jsonLines bool, seed uint64) {
		path, order := "rows.csv", Random
		if jsonLines {
			path, order = "rows.jsonl", InOrder
		}
		var s *Source
		var err error
		// A row is its text until an iteration takes it: reading costs
		// the file's size and a slice header a row.
		testkit.AllocBounded(t, len(data), 1<<20, 64, func() { s, err = Read(path, bytes.NewReader(data), int64(len(data)), order, seed) })
		if err != nil {
			var ue *errkind.UsageError
			if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "--data "+path) {
				t.Fatalf("not a usage error naming the file: %v", err)
			}
			return
		}
		if s.Len() < 1 {
			t.Fatalf("a file read with %d rows", s.Len())
		}
		for _, k := range []int64{0, 1, int64(s.Len()), 1 << 40, -1} {
			if i := s.Index(k); i < 0 || i >= s.Len() {
				t.Fatalf("iteration %d takes row %d of %d", k, i, s.Len())
			}
			row, err := s.Row(k)
			if err != nil {
				t.Fatalf("iteration %d: %v", k, err)
			}
			again, _ := s.Row(k)
			if !reflect.DeepEqual(row, again) {
				t.Fatalf("iteration %d took %v, then %v", k, row, again)
			}
			if m, ok := row.(map[string]any); ok && !jsonLines && len(m) != len(s.head) {
				t.Fatalf("a CSV row of %d columns under %d names", len(m), len(s.head))
			}
		}
	})
}
