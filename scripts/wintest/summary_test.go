package main

import (
	"strings"
	"testing"
)

// A run's events become one line per top-level result: a failure whose
// only complaint is wine's cleanup is "cleanup", one whose every complaint
// is wine's failure to start a process is "start", and any other failure is
// "fail"; a start and a fail are followed by what the test said.
func TestSummary(t *testing.T) {
	events := strings.Join([]string{
		`{"Action":"output","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"pass","Test":"TestOK"}`,
		`{"Action":"output","Test":"TestBroken/sub","Output":"    x_test.go:9: Write = <nil>, want the cause\n"}`,
		`{"Action":"fail","Test":"TestBroken/sub"}`,
		`{"Action":"fail","Test":"TestBroken"}`,
		`{"Action":"output","Test":"TestTemp","Output":"    testing.go:1464: TempDir RemoveAll cleanup: unlinkat C:\\x: Invalid function.\n"}`,
		`{"Action":"fail","Test":"TestTemp"}`,
		`{"Action":"output","Test":"TestStart","Output":"    y_test.go:3: start server \"Z:\\\\t.exe\": fork/exec Z:\\t.exe: Internal error.\n"}`,
		`{"Action":"fail","Test":"TestStart"}`,
		`{"Action":"output","Test":"TestStartAndMore","Output":"    y_test.go:3: start server \"Z:\\\\t.exe\": fork/exec Z:\\t.exe: Internal error.\n"}`,
		`{"Action":"output","Test":"TestStartAndMore","Output":"    y_test.go:4: and the other server's answer was wrong\n"}`,
		`{"Action":"fail","Test":"TestStartAndMore"}`,
		`{"Action":"skip","Test":"TestSkipped"}`,
		`not JSON`,
	}, "\n")
	var out strings.Builder
	summary(strings.NewReader(events), &out)
	want := "pass TestOK\nfail TestBroken\nsaid TestBroken x_test.go:9: Write = <nil>, want the cause\ncleanup TestTemp\nstart TestStart\nsaid TestStart y_test.go:3: start server \"Z:\\\\t.exe\": fork/exec Z:\\t.exe: Internal error.\n" +
		"fail TestStartAndMore\nsaid TestStartAndMore y_test.go:3: start server \"Z:\\\\t.exe\": fork/exec Z:\\t.exe: Internal error.\nsaid TestStartAndMore y_test.go:4: and the other server's answer was wrong\nskip TestSkipped\n"
	if out.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", out.String(), want)
	}
}
