//go:build unix

package commands

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// The launcher's pipe: its end closing is the launcher gone; the variable
// that names it leaves the environment, so that no process mcpv starts
// takes it; a descriptor that is no pipe (a file, /dev/null, which would
// read as an end at once) is not watched.
func TestLauncherGone(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	t.Setenv("MCPV_LAUNCHER_FD", strconv.Itoa(int(r.Fd())))
	gone := LauncherGone()
	if _, set := os.LookupEnv("MCPV_LAUNCHER_FD"); gone == nil || set {
		t.Fatalf("a pipe named: watched %v, the variable still set %v", gone != nil, set)
	}
	select {
	case <-gone:
		t.Fatal("gone while the launcher's end is open")
	default:
	}
	w.Close()
	select {
	case <-gone:
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("the launcher's end closed, and it was not seen")
	}

	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, v := range []string{strconv.Itoa(int(null.Fd())), "2", "x", "99999"} {
		t.Setenv("MCPV_LAUNCHER_FD", v)
		if LauncherGone() != nil {
			t.Errorf("MCPV_LAUNCHER_FD=%s (no pipe) is watched", v)
		}
	}
}
