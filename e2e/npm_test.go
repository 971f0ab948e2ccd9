//go:build unix && e2e

package e2e

import (
	"debug/buildinfo"
	"debug/elf"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The npm packages, installed from their tarballs by npm's own client
// (scripts/npm-e2e.sh packs them and installs them into an empty prefix,
// which MCPV_NPM_PREFIX names): the launcher passes arguments, streams,
// exit codes and signals through to the platform package's binary.

// npmPrefix is the prefix the packages are installed into, and the
// installed launcher's command.
func npmPrefix(t *testing.T) (prefix, launcher string) {
	t.Helper()
	prefix = os.Getenv("MCPV_NPM_PREFIX")
	if prefix == "" {
		t.Skip("MCPV_NPM_PREFIX names no npm prefix: bash scripts/npm-e2e.sh packs, installs and runs these tests")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	return prefix, filepath.Join(prefix, "node_modules", ".bin", "mcpv")
}

// npmRun runs the installed mcpv to its end.
func npmRun(t *testing.T, name string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	r := &run{cmd: exec.Command(name, args...)}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	code, _ = r.wait(t, time.Minute)
	return code, r.stdout.String(), r.stderr.String()
}

// npx runs the installed package as npx runs it, and the release's
// version is what it says.
func TestNpmVersionThroughNpx(t *testing.T) {
	t.Parallel()
	prefix, _ := npmPrefix(t)
	raw, err := os.ReadFile(filepath.Join(prefix, "node_modules", "mcpv", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := npmRun(t, "npx", "--prefix", prefix, "--offline", "mcpv", "--version")
	want := regexp.MustCompile(`^mcpv v` + regexp.QuoteMeta(pkg.Version) + ` \(commit [0-9a-f]{12}, built 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ, go`)
	if code != 0 || !want.MatchString(stdout) {
		t.Errorf("npx mcpv --version: exit %d, stdout %q, want it to match %s; stderr:\n%s", code, stdout, want, stderr)
	}
}

// The platform package's binary is built as .goreleaser.yaml builds a
// release's: CGO_ENABLED=0, -trimpath, and -ldflags "-s -w ..." (no
// symbol table, no DWARF).
func TestNpmBinaryIsAReleaseBuild(t *testing.T) {
	t.Parallel()
	prefix, _ := npmPrefix(t)
	arch := strings.Replace(runtime.GOARCH, "amd64", "x64", 1)
	bin := filepath.Join(prefix, "node_modules", "@mcpv", runtime.GOOS+"-"+arch, "bin", "mcpv")
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if settings["-trimpath"] != "true" || settings["CGO_ENABLED"] != "0" {
		t.Errorf("built with -trimpath=%q CGO_ENABLED=%q, want true and 0", settings["-trimpath"], settings["CGO_ENABLED"])
	}
	if runtime.GOOS != "linux" {
		return
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Symbols(); !errors.Is(err, elf.ErrNoSymbols) {
		t.Errorf("the binary has a symbol table (%v): not linked with -s", err)
	}
	if f.Section(".debug_info") != nil || f.Section(".zdebug_info") != nil {
		t.Error("the binary has DWARF: not linked with -w")
	}
}

// A call to the demo server, and the exit codes of a tool error and a
// usage error, come through the launcher as they are.
func TestNpmCallsAndExitCodes(t *testing.T) {
	t.Parallel()
	_, launcher := npmPrefix(t)
	demo := demoBin(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"a call", []string{"call", "echo", "message=hello", "-q", ".content[0].text", "-r", "--", demo}, 0, "hello\n"},
		{"a tool error", []string{"call", "fail", "--", demo}, 1, `"isError":true`},
		{"a usage error", []string{"call", "echo", "a:={", "--", demo}, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := npmRun(t, launcher, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.out) {
				t.Errorf("exit %d, stdout %q; want %d and %q; stderr:\n%s", code, stdout, tc.code, tc.out, stderr)
			}
		})
	}
}

// Installed without its optional dependencies, the launcher says which
// package it misses, in one line, and exits with 2.
func TestNpmMissingPlatformPackage(t *testing.T) {
	t.Parallel()
	prefix, _ := npmPrefix(t)
	// The launcher's package alone, where no platform package is found.
	dir := filepath.Join(t.TempDir(), "mcpv")
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"package.json", "bin/mcpv.js"} {
		b, err := os.ReadFile(filepath.Join(prefix, "node_modules", "mcpv", f))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, f), b, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	r := &run{cmd: exec.Command("node", filepath.Join(dir, "bin", "mcpv.js"), "--version")}
	r.cmd.Env = append(os.Environ(), "NODE_PATH=")
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	code, _ := r.wait(t, time.Minute)
	stderr := r.stderr.String()
	arch := strings.Replace(runtime.GOARCH, "amd64", "x64", 1)
	want := "mcpv: the package @mcpv/" + runtime.GOOS + "-" + arch + " "
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, want) || r.stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and one line on stderr starting %q", code, r.stdout.String(), stderr, want)
	}
}

// Signals through the launcher. A server that ignores the end of its
// stdin shows which way mcpv shut down: one signal takes the orderly way,
// which goes on to SIGTERM the server (logged as {"fake":"SIGTERM"}); a
// second ends mcpv at once, with a SIGKILL, and the server logs no SIGTERM.
func TestNpmSignals(t *testing.T) {
	t.Parallel()
	_, launcher := npmPrefix(t)

	// startSlow starts the installed mcpv on a call that never ends, its
	// terminal (with ctty) a pseudo-terminal whose foreground it is in.
	startSlow := func(t *testing.T, ctty bool) (*run, *server, *terminal) {
		t.Helper()
		s := newServer(t, "hang,ignore-exit")
		r := &run{cmd: exec.Command(launcher, append([]string{"call", "slow", "--no-validate"}, s.args()...)...)}
		r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
		var term *terminal
		if ctty {
			var err error
			if term, err = newTerminal(r.cmd, true); err != nil {
				t.Skip(err)
			}
			t.Cleanup(term.close)
		}
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.cmd.Process.Kill() })
		if term != nil {
			ended := make(chan struct{})
			t.Cleanup(func() { close(ended) })
			go term.read(-1, ended)
		}
		s.waitFor(t, `"tools/call"`)
		return r, s, term
	}
	// orderly checks that mcpv ended with 130 after one signal: the call
	// cancelled on the wire, the server stopped the orderly way.
	orderly := func(t *testing.T, r *run, s *server) {
		t.Helper()
		if code, _ := r.wait(t, time.Minute); code != 130 {
			t.Errorf("exit %d, want 130; stderr:\n%s", code, r.stderr.String())
		}
		s.waitFor(t, `"method":"notifications/cancelled"`)
		if !strings.Contains(s.received(), `{"fake":"SIGTERM"}`) {
			t.Errorf("mcpv did not stop its server the orderly way (it got two signals); the server got:\n%s", s.received())
		}
	}

	// A script's kill -INT (and kill -TERM) to the launcher alone, with no
	// terminal: passed on, one signal.
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run("kill "+sig.String()+" to the launcher", func(t *testing.T) {
			t.Parallel()
			r, s, _ := startSlow(t, false)
			r.signal(sig)
			orderly(t, r, s)
		})
	}

	// Passed on at once, not held: a second kill -INT to the launcher is
	// mcpv's second signal, which ends it at once, before its orderly
	// shutdown would SIGTERM the server.
	t.Run("two kills SIGINT to the launcher", func(t *testing.T) {
		t.Parallel()
		r, s, _ := startSlow(t, false)
		r.signal(syscall.SIGINT)
		s.waitFor(t, `"method":"notifications/cancelled"`)
		r.signal(syscall.SIGINT)
		if code, _ := r.wait(t, time.Minute); code != 130 {
			t.Errorf("exit %d, want 130; stderr:\n%s", code, r.stderr.String())
		}
		if strings.Contains(s.received(), `{"fake":"SIGTERM"}`) {
			t.Errorf("the second signal was not passed on at once: mcpv went the orderly way; the server got:\n%s", s.received())
		}
	})

	// Ctrl-C typed on the terminal reaches the launcher and mcpv both, and
	// npx sends the command it runs a copy of its own: mcpv still gets one.
	t.Run("Ctrl-C on the terminal, and a copy to the launcher", func(t *testing.T) {
		t.Parallel()
		r, s, term := startSlow(t, true)
		term.typing(r)(syscall.SIGINT)
		r.signal(syscall.SIGINT) // npx's copy, as npm forwards it
		orderly(t, r, s)
	})

	// A kill -INT to the launcher alone while it is in the terminal's
	// foreground is taken for the terminal's at first; mcpv, which never
	// got it, still runs when the launcher's hold ends, and gets it then.
	t.Run("kill SIGINT to the launcher in the terminal's foreground", func(t *testing.T) {
		t.Parallel()
		r, s, _ := startSlow(t, true)
		r.signal(syscall.SIGINT)
		orderly(t, r, s)
	})

	// The binary ended by a signal: the launcher ends by the same.
	t.Run("mcpv killed", func(t *testing.T) {
		t.Parallel()
		r, _, _ := startSlow(t, false)
		syscall.Kill(launcherChild(t, r), syscall.SIGKILL)
		r.wait(t, time.Minute)
		ws := r.cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Errorf("the launcher ended with %v, want killed by SIGKILL", r.cmd.ProcessState)
		}
	})
}

// A launcher killed with SIGKILL (a CI step's timeout, an agent host that
// gives up) passes nothing on: the binary sees the pipe the launcher held
// end, and ends as a SIGTERM ends it: the call cancelled on the wire, its
// server stopped the orderly way, nothing left running.
func TestNpmLauncherKilled(t *testing.T) {
	t.Parallel()
	_, launcher := npmPrefix(t)
	s := newServer(t, "hang,ignore-exit")
	r := &run{cmd: exec.Command(launcher, append([]string{"call", "slow", "--no-validate"}, s.args()...)...)}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	s.waitFor(t, `"tools/call"`)
	mcpv := launcherChild(t, r)
	t.Cleanup(func() { syscall.Kill(mcpv, syscall.SIGKILL) })
	r.signal(syscall.SIGKILL)
	if !waitGone(mcpv) {
		t.Fatalf("mcpv (pid %d) still runs after its launcher was killed; the server got:\n%s", mcpv, s.received())
	}
	r.wait(t, time.Minute) // the launcher's stdout, which mcpv held, has closed
	if got := s.received(); !strings.Contains(got, `"method":"notifications/cancelled"`) || !strings.Contains(got, `{"fake":"SIGTERM"}`) {
		t.Errorf("the call was not cancelled on the wire, or the server not stopped the orderly way; the server got:\n%s", got)
	}
	if !s.gone(t) {
		t.Error("the server's process group still runs")
	}
}

// launcherChild is the pid of the binary the launcher of r runs.
func launcherChild(t *testing.T, r *run) int {
	t.Helper()
	pid := strconv.Itoa(r.cmd.Process.Pid)
	raw, err := os.ReadFile("/proc/" + pid + "/task/" + pid + "/children")
	if err != nil {
		t.Skip("the launcher's child is found in /proc on Linux:", err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("the launcher's children: %q", raw)
	}
	return child
}
