package longtest

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

func TestSkipOnlyUnderShort(t *testing.T) {
	ran := false
	t.Run("long", func(t *testing.T) {
		Skip(t, "a test of Skip")
		ran = true
	})
	if ran == testing.Short() {
		t.Errorf("under -short=%v the long test ran=%v", testing.Short(), ran)
	}
}

func TestWaitMoreAtOnceKeepsAnExplicitParallel(t *testing.T) {
	p := flag.Lookup("test.parallel")
	before := p.Value.String()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	WaitMoreAtOnce(64)
	after := p.Value.String()
	t.Cleanup(func() { p.Value.Set(before) })
	if set && after != before {
		t.Errorf("-parallel was given as %s and became %s", before, after)
	}
	if want := strconv.Itoa(max(64, runtime.GOMAXPROCS(0))); !set && after != want {
		t.Errorf("-parallel not given: it is %s, want %s", after, want)
	}
}
