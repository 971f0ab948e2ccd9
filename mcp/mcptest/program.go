package mcptest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
)

// Program is the path of a program that serves as the fake, as the test
// binary does (RunIfRequested): the fake as a program of its own
// (mcp/mcptest/fakeserver), built once per test binary by the go command
// into a directory GuardSuite removes when its run ends. A suite that
// starts hundreds of fakes is the one to use it: a test binary is several
// times the program's size and starts as a server in twice its CPU (7 ms
// against 3; 20 when built with -race, which the program never is). Where
// the program cannot be built (no go command, as when a cross-built test
// binary runs under wine), Program is the test binary itself.
func Program() string { return program.Get() }

// IsProgram reports whether path is the fake a test started: Program as
// built (never building it: a path compared before it is built is not
// it), or the test binary, which serves the fake too.
func IsProgram(path string) bool {
	if path == os.Args[0] {
		return true
	}
	return locked(&programMu, func() bool { return programDir != "" && filepath.Dir(path) == programDir })
}

var (
	programMu  sync.Mutex // guards programDir
	programDir string     // where Program built the program; GuardSuite removes it

	program = &lazy.Value[string]{New: func() string {
		path, err := buildProgram()
		if err != nil {
			if !errors.Is(err, exec.ErrNotFound) {
				fmt.Fprintf(os.Stderr, "mcptest: the fake server as a program of its own: %v; the test binary serves as the fake\n", err)
			}
			return os.Args[0]
		}
		return path
	}}
)

// buildProgram builds mcp/mcptest/fakeserver into a new directory.
func buildProgram() (string, error) {
	gocmd, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "mcptest-program-")
	if err != nil {
		return "", err
	}
	withLock(&programMu, func() { programDir = dir })
	name := "fakeserver"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	bin := filepath.Join(dir, name)
	// A bound that only a machine far past its wits reaches: the go
	// command compiles the package the first time, and links it each.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gocmd, "build", "-buildvcs=false", "-ldflags=-s -w", "-o", bin, "github.com/mcpv/mcpv/mcp/mcptest/fakeserver")
	// Without cgo the program is linked statically: no dynamic loader and
	// C library to start, a third less CPU at each of its hundreds of starts.
	cmd.Env = append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH, "CGO_ENABLED=0")
	if _, file, _, ok := runtime.Caller(0); ok {
		cmd.Dir = filepath.Dir(file) // in the module, wherever a test has moved the process
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return bin, nil
}

// removeProgram removes what Program built, if it built anything.
func removeProgram() {
	programMu.Lock()
	defer programMu.Unlock()
	os.RemoveAll(programDir) // "": nothing built, nothing removed
	programDir = ""
}
