package testkit

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

func TestSkipOutsideTheLongTier(t *testing.T) {
	ran := false
	t.Run("long", func(t *testing.T) {
		SkipLong(t, "a test of SkipLong")
		ran = true
	})
	if want := LongTier && !testing.Short(); ran != want {
		t.Errorf("tier e2e=%v, -short=%v: the long test ran=%v, want %v", LongTier, testing.Short(), ran, want)
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
