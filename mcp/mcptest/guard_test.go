package mcptest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	if RunIfRequested() {
		return
	}
	GuardSuite()
	os.Exit(m.Run())
}

// guardChild marks the processes TestGuardSuite starts.
const guardChild = "MCPTEST_GUARD_CHILD"

// A test binary that a running one starts as a server without asking for a
// behaviour says so and exits 2, instead of running its whole suite again
// as that server; started with a -test. flag, or as a fake, it does what
// it is asked.
func TestGuardSuite(t *testing.T) {
	if os.Getenv(guardChild) != "" {
		// A child this test started, running the suite: a guard that
		// let it must not start children of its own.
		t.Skip("started by TestGuardSuite")
	}
	if os.Getenv(EnvSuite) == "" {
		t.Fatalf("%s is not set in a running suite", EnvSuite)
	}
	run := func(env []string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
	}
	env := []string{EnvSuite + "=1", guardChild + "=1"}
	if code, out, errOut := run(env); code != 2 || out != "" || !strings.Contains(errOut, "would run its whole suite again") {
		t.Errorf("started as a server with no behaviour: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut := run(env, "-test.run=^$"); code != 0 || !strings.Contains(out, "PASS") {
		t.Errorf("started with -test.run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut := run(append(env, EnvVar+"=plain")); code != 0 || !strings.Contains(out, `"id":1`) {
		t.Errorf("started as a fake: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
