package oauth

import (
	"net"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// A login is taken for still waited for only while its process is alive
// and this user's, and its port answers: a port another process took
// after the login's process died hands out no link.
func TestPendingWaiting(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	later := time.Now().Add(time.Hour)
	if p := (Pending{PID: os.Getpid(), Port: port, Expires: later}); !p.waiting() {
		t.Error("a live login of this process, listening: not waiting")
	}
	exe := "true"
	if runtime.GOOS == "windows" {
		exe = "cmd"
	}
	gone := exec.Command(exe)
	if runtime.GOOS == "windows" {
		gone.Args = append(gone.Args, "/c", "exit")
	}
	if err := gone.Run(); err != nil {
		t.Skip("no program to start and end:", err)
	}
	for name, p := range map[string]Pending{
		"its process gone":  {PID: gone.Process.Pid, Port: port, Expires: later},
		"expired":           {PID: os.Getpid(), Port: port, Expires: time.Now().Add(-time.Second)},
		"done":              {PID: os.Getpid(), Port: port, Expires: later, Done: true},
		"failed":            {PID: os.Getpid(), Port: port, Expires: later, Error: "denied"},
		"nothing listening": {PID: os.Getpid(), Port: "1", Expires: later},
	} {
		if p.waiting() {
			t.Errorf("%s: waiting", name)
		}
	}
}
