package output

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStatusLine(t *testing.T) {
	var b bytes.Buffer
	s := NewStatusLine(&b, true)
	s.Set("1/3")
	s.Write([]byte("log line\n"))
	s.Set("2/3")
	s.Write([]byte("partial"))
	s.Set("3/3") // not drawn over an unfinished line
	s.Write([]byte(" rest\n"))
	s.Clear()
	want := "1/3" + eraseLine + "log line\n1/3" + eraseLine + "2/3" + eraseLine + "partial" + " rest\n3/3" + eraseLine
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestStatusLineDisabled(t *testing.T) {
	var b bytes.Buffer
	s := NewStatusLine(&b, false)
	s.Set("1/3")
	s.Write([]byte("log\n"))
	s.Clear()
	if b.String() != "log\n" {
		t.Errorf("got %q", b.String())
	}
}

// A line wider than the terminal would wrap, and "\r\x1b[K" erases only
// the last row of a wrapped line: it is cut to fit, the width asked anew
// at each draw.
func TestStatusLineFitsTheTerminal(t *testing.T) {
	var b bytes.Buffer
	s := NewStatusLine(&b, true)
	width := 10
	s.SetWidth(func() int { return width })
	s.Set("123456789")  // 9 columns: fits in 10, with the last left free
	s.Set("1234567890") // 10: cut
	width = 5
	s.Set("héllo wörld")
	// Wide characters take two columns each: counted as one, these
	// would take 14 and 10 columns of a terminal 10 wide, and wrap.
	width = 10
	s.Set("日本語テキスト")
	s.Set("👍👍👍 ok!")
	s.Set("e\u0301te\u0301 ok") // combining accents take none
	width = 0                   // unknown: whole
	s.Set("1234567890")
	want := "123456789" + eraseLine + "12345678…" + eraseLine + "hél…" + eraseLine +
		"日本語テ…" + eraseLine + "👍👍👍 o…" + eraseLine + "e\u0301te\u0301 ok" + eraseLine + "1234567890"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// What the line shows is masked as all of stderr is: a server's progress
// message may echo a secret.
func TestStatusLineMasks(t *testing.T) {
	var b bytes.Buffer
	s := NewStatusLine(&b, true)
	s.MaskWith(func(text string) string { return strings.ReplaceAll(text, "s3cret", "***") })
	s.Set("progress: s3cret")
	if want := "progress: ***"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// Replace draws only over the line it expects: a line one part of mcpv
// keeps up is never drawn over another's.
func TestStatusLineReplace(t *testing.T) {
	var b bytes.Buffer
	s := NewStatusLine(&b, true)
	if !s.Replace("", "waiting 1s") || !s.Replace("waiting 1s", "waiting 2s") {
		t.Fatal("Replace refused a line it owned")
	}
	s.Set("progress 1/2")
	if s.Replace("waiting 2s", "waiting 3s") || s.Replace("waiting 2s", "") {
		t.Error("Replace drew over another's line")
	}
	want := "waiting 1s" + eraseLine + "waiting 2s" + eraseLine + "progress 1/2"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	s.Stop()
	if s.Replace("", "after the end") {
		t.Error("Replace drew after Stop")
	}
	if NewStatusLine(&b, false).Replace("", "x") {
		t.Error("Replace drew on a writer that is not a terminal")
	}
}
