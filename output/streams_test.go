package output

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUseColor(t *testing.T) {
	type env struct {
		noColor, term string
	}
	envs := []env{{"", ""}, {"", "xterm-256color"}, {"1", "xterm"}, {"", "dumb"}, {"1", "dumb"}}
	for _, flag := range []string{"always", "never", "auto", ""} {
		for _, e := range envs {
			for _, tty := range []bool{true, false} {
				var want bool
				switch flag {
				case "always":
					want = true
				case "never":
					want = false
				default:
					want = tty && e.noColor == "" && e.term != "dumb"
				}
				getenv := func(k string) string {
					switch k {
					case "NO_COLOR":
						return e.noColor
					case "TERM":
						return e.term
					}
					t.Errorf("UseColor read %s", k)
					return ""
				}
				if got := UseColor(flag, tty, getenv); got != want {
					t.Errorf("UseColor(%q, tty=%v) with NO_COLOR=%q TERM=%q = %v, want %v", flag, tty, e.noColor, e.term, got, want)
				}
			}
		}
	}
}

func TestNewStreams(t *testing.T) {
	in := strings.NewReader("input")
	var out, errb bytes.Buffer
	s := NewStreams(in, &out, &errb)
	if s.In != in || s.Out != &out {
		t.Error("NewStreams does not use the given reader and writer")
	}
	if s.InTTY || s.OutTTY || s.ErrTTY {
		t.Errorf("NewStreams claims a terminal: %+v", s)
	}
	fmt.Fprint(s.Err, "diag")
	if errb.String() != "diag" {
		t.Errorf("Err wrote %q", errb.String())
	}
}

func TestStreamsErrWritesDoNotInterleave(t *testing.T) {
	var buf bytes.Buffer // not safe for concurrent use by itself
	s := NewStreams(strings.NewReader(""), &bytes.Buffer{}, &buf)
	const writers, lines = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			line := []byte(strings.Repeat(string(rune('a'+w)), 100) + "\n")
			for range lines {
				s.Err.Write(line)
			}
		})
	}
	wg.Wait()
	counts := map[string]int{}
	for l := range strings.SplitSeq(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if len(l) != 100 || strings.Count(l, l[:1]) != 100 {
			t.Fatalf("interleaved line %q", l)
		}
		counts[l[:1]]++
	}
	want := map[string]int{}
	for w := range writers {
		want[string(rune('a'+w))] = lines
	}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("lines per writer (-want +got):\n%s", diff)
	}
}

func TestSystemStreams(t *testing.T) {
	s := System()
	if s.Err != io.Writer(s.Status) {
		t.Errorf("System().Err is %T, want its StatusLine", s.Err)
	}
}
