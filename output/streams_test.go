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
	tests := []struct {
		flag string
		env  map[string]string
		tty  bool
		want bool
	}{
		{"auto", nil, true, true},
		{"auto", nil, false, false},
		{"auto", map[string]string{"TERM": "xterm-256color"}, true, true},
		{"auto", map[string]string{"NO_COLOR": "1"}, true, false},
		{"auto", map[string]string{"TERM": "dumb"}, true, false},
		{"auto", map[string]string{"CLICOLOR": "0"}, true, false},
		{"auto", map[string]string{"CLICOLOR": "1"}, false, false}, // CLICOLOR=1 does not force
		{"auto", map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{"auto", map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{"auto", map[string]string{"FORCE_COLOR": "1"}, false, true},
		{"auto", map[string]string{"FORCE_COLOR": "true", "TERM": "dumb"}, false, true},
		{"auto", map[string]string{"FORCE_COLOR": "1", "NO_COLOR": "1"}, true, false}, // NO_COLOR first
		{"auto", map[string]string{"CLICOLOR_FORCE": "1", "CLICOLOR": "0"}, true, true},
		{"always", map[string]string{"NO_COLOR": "1", "TERM": "dumb"}, false, true}, // the flag wins
		{"never", map[string]string{"FORCE_COLOR": "1"}, true, false},
		{"", nil, true, true},
	}
	for _, tt := range tests {
		getenv := func(k string) string { return tt.env[k] }
		if got := UseColor(tt.flag, tt.tty, getenv); got != tt.want {
			t.Errorf("UseColor(%q, tty=%v) with %v = %v, want %v", tt.flag, tt.tty, tt.env, got, tt.want)
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

func TestShowsEscapes(t *testing.T) {
	tests := []struct {
		tty   bool
		term  string
		vt    bool // what enableVT answers: false for a console without virtual-terminal processing
		want  bool
		askVT bool // enableVT is called
	}{
		{tty: true, term: "xterm-256color", vt: true, want: true, askVT: true},
		{tty: true, term: "", vt: true, want: true, askVT: true}, // a Windows console has no TERM
		{tty: true, term: "", vt: false, want: false, askVT: true},
		{tty: true, term: "dumb", vt: true, want: false},
		{tty: false, term: "xterm", vt: true, want: false},
		{tty: false, term: "", vt: false, want: false},
	}
	for _, tt := range tests {
		asked := false
		got := showsEscapes(tt.tty, tt.term, func() bool { asked = true; return tt.vt })
		if got != tt.want || asked != tt.askVT {
			t.Errorf("showsEscapes(tty=%v, TERM=%q, vt=%v) = %v (enableVT called: %v), want %v (%v)", tt.tty, tt.term, tt.vt, got, asked, tt.want, tt.askVT)
		}
	}
}
