package output

import (
	"bytes"
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
