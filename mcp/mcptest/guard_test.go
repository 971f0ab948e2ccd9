package mcptest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	if RunIfRequested() {
		return
	}
	os.Exit(GuardSuite(m.Run))
}

// guardChild marks the processes TestGuardSuite starts: a guard that let
// one run the suite must not let it start children of its own.
const guardChild = "MCPTEST_GUARD_CHILD"

// startSelf runs this test binary with args and env added, a ping on its
// stdin: its exit code, stdout and stderr.
func startSelf(t *testing.T, env []string, args ...string) (int, string, string) {
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

// A test binary that a running one starts as a server without asking for a
// behaviour says so, writes its command line where the suite reads it and
// exits 2, instead of running its whole suite again as that server;
// started with a -test. flag, or as a fake, it does what it is asked.
func TestGuardSuite(t *testing.T) {
	if os.Getenv(guardChild) != "" {
		t.Skip("started by TestGuardSuite")
	}
	started := filepath.Join(t.TempDir(), "started")
	if err := os.WriteFile(started, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{EnvSuite + "=" + started, guardChild + "=1"}
	code, out, errOut := startSelf(t, env, "as-a-server")
	if code != 2 || out != "" || !strings.Contains(errOut, "would run its whole suite again") {
		t.Errorf("started as a server with no behaviour: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if got, _ := os.ReadFile(started); !strings.Contains(string(got), `"as-a-server"`) {
		t.Errorf("the suite's file holds %q, not the command line", got)
	}
	if code, out, errOut := startSelf(t, env, "-test.run=^$"); code != 0 || !strings.Contains(out, "PASS") {
		t.Errorf("started with -test.run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, errOut := startSelf(t, append(env, EnvVar+"=plain")); code != 0 || !strings.Contains(out, `"id":1`) {
		t.Errorf("started as a fake: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// A suite one of whose tests started it as a server with no behaviour
// fails, naming the command line, though every test passed.
func TestGuardSuiteFailsTheSuite(t *testing.T) {
	if os.Getenv(guardChild) != "" {
		t.Skip("started by TestGuardSuite")
	}
	code, out, errOut := startSelf(t, []string{guardChild + "=1", "MCPTEST_START_BARE=1"}, "-test.run=^TestStartsItselfBare$")
	if code != 1 || !strings.Contains(out, "PASS") || !strings.Contains(errOut, "a test started this binary as a server with no behaviour") || !strings.Contains(errOut, `"bare"`) {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestStartsItselfBare is the forgetful test TestGuardSuiteFailsTheSuite
// runs: it starts this binary with no behaviour, and passes.
func TestStartsItselfBare(t *testing.T) {
	if os.Getenv("MCPTEST_START_BARE") == "" {
		t.Skip("run by TestGuardSuiteFailsTheSuite")
	}
	startSelf(t, []string{"MCPTEST_START_BARE="}, "bare") // its own run of this test skips
}
