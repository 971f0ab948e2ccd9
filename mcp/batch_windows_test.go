package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/windows"
)

const batchArgvHelperEnv = "MCPV_BATCH_ARGV_HELPER"

// TestBatchArgvHelper is not a test: run by a batch file with
// MCPV_BATCH_ARGV_HELPER=1, it prints what follows -- on its command line,
// split by the C runtime's rule (crtSplit, as node and Python read it) and
// by Go's (os.Args), and exits.
func TestBatchArgvHelper(t *testing.T) {
	if os.Getenv(batchArgvHelperEnv) != "1" {
		t.Skip("a helper process for TestBatchServerGetsArgumentsLiterally")
	}
	after := func(argv []string) []string {
		if i := slices.Index(argv, "--"); i >= 0 {
			return argv[i+1:]
		}
		return nil
	}
	json.NewEncoder(os.Stdout).Encode(map[string][]string{
		"crt": after(crtSplit(windows.UTF16PtrToString(windows.GetCommandLine()))),
		"go":  after(os.Args),
	})
	os.Exit(0)
}

// batchShim writes a batch file, in a directory whose name cmd.exe would
// misread unquoted, that runs this test binary with its own arguments
// (%*) after those given, as npm's shims run node.
func batchShim(t *testing.T, args string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "Program Files & (x86)")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shim := filepath.Join(dir, "server.cmd")
	body := `@"` + self + `" ` + args + ` %*` + "\r\n"
	if err := os.WriteFile(shim, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return shim
}

// argvShim is a batchShim that runs TestBatchArgvHelper.
func argvShim(t *testing.T) string {
	return batchShim(t, `"-test.run=^TestBatchArgvHelper$" --`)
}

// A server starts suspended and runs only once its Job Object holds it:
// the "tree" helper, whose child writes a file at once, has written
// nothing before afterStart, and its child writes once afterStart has run.
func TestStartCommandSuspendsTheServerUntilItsJobHoldsIt(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	beat := filepath.Join(t.TempDir(), "beat")
	cmd := exec.Command(self, beat)
	cmd.Env = append(os.Environ(), helperEnv+"=tree")
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	time.Sleep(300 * time.Millisecond) // a server that ran would start its child in this time; a busy machine can only make this pass
	if _, err := os.Stat(beat); err == nil {
		cmd.Process.Kill()
		t.Fatal("the server ran before its job held it")
	}
	if err := afterStart(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	defer killGroup(cmd.Process.Pid, syscall.SIGKILL) // the server and its child
	for deadline := time.Now().Add(testWait); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(beat); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never ran once its job held it")
		}
	}
}

// runShim runs the shim the way StartCommand does and returns the
// arguments the program behind it got, by the C runtime's rule and Go's.
func runShim(t *testing.T, shim string, args []string) (crt, goArgs []string) {
	t.Helper()
	cmd := exec.Command(strings.TrimSuffix(shim, ".cmd"), args...) // found through PATHEXT
	cmd.Env = append(os.Environ(), batchArgvHelperEnv+"=1")
	cmd.SysProcAttr = sysProcAttr()
	if err := prepareCommand(cmd); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", cmd.SysProcAttr.CmdLine, err)
	}
	if err := afterStart(cmd.Process.Pid); err != nil { // it starts suspended
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal(err)
	}
	defer killGroup(cmd.Process.Pid, syscall.SIGKILL) // its job, once it has ended
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v: %s", cmd.SysProcAttr.CmdLine, err, stderr.Bytes())
	}
	out := stdout.Bytes()
	var got struct{ CRT, Go []string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s: %v in %q", cmd.SysProcAttr.CmdLine, err, out)
	}
	return got.CRT, got.Go
}

func TestBatchServerGetsArgumentsLiterally(t *testing.T) {
	shim := argvShim(t)
	args := []string{"-y", "https://x/mcp?a=1&b=2", "a&b", "x|y", "<in>", "c^d", "(p)", "a,b;c=d",
		"has space", "", "!USERNAME!", `trail\`, `\\server\share`, `say "hi"`, `"&calc&"`, "héllo"}
	crt, goArgs := runShim(t, shim, args)
	if diff := cmp.Diff(args, crt); diff != "" {
		t.Errorf("the program behind the shim got (-want +got):\n%s", diff)
	}
	// Go leaves quoting after "" inside quotes; with an even number of "
	// in each argument it is back in step by the argument's end.
	if diff := cmp.Diff(args, goArgs); diff != "" {
		t.Errorf("os.Args of the program behind the shim (-want +got):\n%s", diff)
	}
	odd := []string{`a\"b`, "c d", `a"b c`, `"`, `x\\"y`, "e f"}
	if crt, _ := runShim(t, shim, odd); !cmp.Equal(odd, crt) {
		t.Errorf("the program behind the shim got (-want +got):\n%s", cmp.Diff(odd, crt))
	}
}

func TestBatchServerGetsPercentLiterally(t *testing.T) {
	args := []string{"%OS%", "50%", "%", "%%", "%PATH:~0,3%", "%cd:~,%", "%~dp0", "%1"}
	crt, _ := runShim(t, argvShim(t), args)
	if diff := cmp.Diff(args, crt); diff != "" {
		t.Errorf("the program behind the shim got (-want +got):\n%s", diff)
	}
}

func TestPrepareCommand(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "node_modules", ".bin")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"server.cmd", "server", "tool.exe"} { // npm puts a sh script beside the .cmd
		if err := os.WriteFile(filepath.Join(sub, name), []byte("@echo off\r\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sys, err := windows.GetSystemDirectory()
	if err != nil {
		t.Fatal(err)
	}
	comspec := filepath.Join(sys, "cmd.exe")
	t.Setenv("PATH", sub)
	t.Setenv("PATHEXT", ".COM;.EXE;.BAT;.CMD")
	tests := []struct {
		name, path, dir string
		bat             string // "" when the program is not run through cmd.exe
	}{
		{"a bare name through PATH and PATHEXT", "server", "", filepath.Join(sub, "server.cmd")},
		{"an absolute path without its extension", filepath.Join(sub, "server"), "", filepath.Join(sub, "server.cmd")},
		{"an absolute path", filepath.Join(sub, "server.cmd"), "", filepath.Join(sub, "server.cmd")},
		{"a path relative to Dir", `node_modules/.bin/server`, dir, `node_modules\.bin\server.cmd`},
		{"trailing dots and spaces", filepath.Join(sub, "SERVER.CMD. "), "", filepath.Join(sub, "SERVER.CMD")},
		{"a program", filepath.Join(sub, "tool.exe"), "", ""},
		{"a program through PATH", "tool", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"a&b", "%OS%"}
			cmd := exec.Command(tt.path, args...)
			cmd.Dir = tt.dir
			cmd.SysProcAttr = sysProcAttr()
			before := cmd.Path
			if err := prepareCommand(cmd); err != nil {
				t.Fatal(err)
			}
			if tt.bat == "" {
				if cmd.Path != before || cmd.SysProcAttr.CmdLine != "" {
					t.Errorf("a program became %s, %s", cmd.Path, cmd.SysProcAttr.CmdLine)
				}
				return
			}
			want, err := batchCommandLine(comspec, tt.bat, args)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.EqualFold(cmd.Path, comspec) || cmd.SysProcAttr.CmdLine != want {
				t.Errorf("got %s with\n  %s\nwant %s with\n  %s", cmd.Path, cmd.SysProcAttr.CmdLine, comspec, want)
			}
		})
	}
}

func TestStartCommandRefusesALineBreakForABatchFile(t *testing.T) {
	_, err := StartCommand(CommandOptions{Path: argvShim(t), Args: []string{"two\nlines"}})
	var te *TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "argument 1") || !strings.Contains(err.Error(), "a line feed") {
		t.Errorf("got %v, want a *TransportError naming argument 1 and its line feed", err)
	}
}

// A batch file server is started, spoken to and shut down like any other,
// with its whole tree: cmd.exe, the program behind the shim and its child.
func TestStartCommandRunsABatchServer(t *testing.T) {
	shim := batchShim(t, "")
	beat := filepath.Join(filepath.Dir(shim), "beat & (1)")
	tr, err := StartCommand(CommandOptions{Path: strings.TrimSuffix(shim, ".cmd"), Args: []string{beat},
		Env: append(os.Environ(), helperEnv+"=tree"), Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close(context.Background()) })
	const msg = `{"jsonrpc":"2.0","id":1,"result":{"a":"&|<>^%OS%"}}`
	if err := tr.Write(testCtx(t), []byte(msg)); err != nil {
		t.Fatal(err)
	}
	if got, err := tr.Read(); err != nil || string(got) != msg {
		t.Fatalf("Read = %s, %v", got, err)
	}
	closeEndsTheTree(t, tr, beat)
}
