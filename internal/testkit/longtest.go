package testkit

// What mcpv's tests share about time: which of them
// the quick tier (go test ./...) leaves out, and how many of a package's
// tests that wait on processes run at once.
//
// A long test waits by design (a server that starts late, a grace period,
// a timeout that must pass), runs alone, floods, or builds what the quick
// tier need not build. The tier is chosen by the build tag "e2e", not by
// hand: go test -tags e2e ./... (CI's run) runs the long tests, and the
// packages whose every test is long (e2e, the built binary) build no test
// without it; go test ./... skips each long test with the reason it
// gives. -short skips them in either tier.

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

// Skip skips t in the quick tier (or under -short), saying why it is long.
func SkipLong(t testing.TB, why string) {
	t.Helper()
	if !LongTier || testing.Short() {
		t.Skip("long (" + why + "): runs with -tags e2e")
	}
}

// WaitMoreAtOnce raises -parallel to n (or the number of CPUs, if more)
// when the command line does not set it. It is for a package whose
// parallel tests spend their time waiting for processes, not on the CPU:
// go test's default, the number of CPUs, would leave a two-core machine
// idle while two of them wait. Call it from TestMain, before m.Run.
func WaitMoreAtOnce(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if p := flag.Lookup("test.parallel"); !set && p != nil {
		p.Value.Set(strconv.Itoa(max(n, runtime.GOMAXPROCS(0))))
	}
}
