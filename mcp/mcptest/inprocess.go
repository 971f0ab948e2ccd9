package mcptest

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// InProcess is a fake server served in the test process, on the streams
// a test gives it, as Program would serve it started with the same
// environment: no process to start, link or reap. A test keeps Program
// where the process is its subject; NewInProcess says which fakes those
// are.
type InProcess struct {
	c   config
	log io.WriteCloser // EnvLog's file, or one that discards
}

// NewInProcess returns the fake that a program started with environ (in
// dir; "" is this process's) would serve: EnvVar's behaviours, logging to
// EnvLog's file. It returns nil, and no error, where environ names no
// fake, or one whose behaviour only a process of its own shows: its exit,
// signals, children, start-up timing, stderr or its id.
func NewInProcess(environ []string, dir string) (*InProcess, error) {
	if environ == nil {
		environ = os.Environ()
	}
	getenv := func(key string) (string, bool) { return EnvValue(environ, key) }
	behaviours, ok := getenv(EnvVar)
	if pid, _ := getenv(EnvPid); !ok || pid != "" {
		return nil, nil
	}
	if dir == "" {
		dir, _ = os.Getwd()
	}
	c, err := parseConfig(behaviours, environ, dir)
	if err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	// What only a process of its own shows: a behaviour's, or a fault's
	// (its end, die-* and killed-*, or what it reads of its environment).
	if c.process || slices.ContainsFunc(c.spec.Faults, func(f string) bool {
		return strings.HasPrefix(f, "die-") || strings.HasPrefix(f, "killed-") || f == "log-secret"
	}) {
		return nil, nil
	}
	f := &InProcess{c: c}
	path, _ := getenv(EnvLog)
	if f.log, err = openLog(path); err != nil {
		return nil, fmt.Errorf("fake: %w", err)
	}
	return f, nil
}

// openLog opens EnvLog's file to append to; with no path, a log that
// discards.
func openLog(path string) (io.WriteCloser, error) {
	if path == "" {
		return nopCloser{io.Discard}, nil
	}
	return os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// Serve answers what comes on in until it ends, writing to out, and
// then closes the log; a write to out that fails ends it too.
func (f *InProcess) Serve(in io.Reader, out io.Writer) {
	defer f.log.Close()
	f.serve(in, out)
}

// serve is Serve, the log left open (a process logs its end after it).
func (f *InProcess) serve(in io.Reader, out io.Writer) {
	if f.c.framed != "" {
		out = framedWriter{out}
	}
	newServer(f.c, in, out, f.log).serve()
}

// EnvValue is the value of key in environ (KEY=VALUE entries), where a
// later entry wins, as it does for a process started with it.
func EnvValue(environ []string, key string) (string, bool) {
	for _, kv := range slices.Backward(environ) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v, true
		}
	}
	return "", false
}
