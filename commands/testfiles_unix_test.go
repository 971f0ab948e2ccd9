//go:build unix

package commands

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/exitcode"
)

// feedFIFO writes data to the FIFO at path whenever a reader has it open,
// until the test ends: a read that blocks on the FIFO then ends, so that a
// test of code that should not block fails instead of hanging.
func feedFIFO(t *testing.T, path, data string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	t.Cleanup(func() { close(done); <-stopped })
	go func() { // stopped by the test's end
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
			f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				continue // no reader yet
			}
			f.WriteString(data)
			f.Close()
		}
	}()
}

// A test file, and a file a test file names, is read as a config file
// is: a regular file, opened without blocking. A FIFO would hang mcpv
// and /dev/zero fill its memory.
func TestTestFilesMustBeRegular(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, fifo, arg, want string
	}{
		{"test file a FIFO", "", "f.yaml", "f.yaml", "mcpv: f.yaml:1:1: not a regular file but a named pipe\n"},
		{"test file in a directory a FIFO", "", "d/f.yaml", "d", "mcpv: d/f.yaml:1:1: not a regular file but a named pipe\n"},
		{"equals-file a FIFO", demoServer + "steps:\n  - ping:\n    expect: {equals-file: v.json}\n", "v.json", "t.yaml",
			"mcpv: t.yaml:6:27: equals-file: not a regular file but a named pipe\n"},
		{"schema-file a FIFO", demoServer + "steps:\n  - ping:\n    expect: {schema-file: s.json}\n", "s.json", "t.yaml",
			"mcpv: t.yaml:6:27: schema-file: not a regular file but a named pipe\n"},
		{"test file /dev/zero", "", "", "/dev/zero", "mcpv: /dev/zero:1:1: not a regular file but a character device\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, dir := testWorld(t, map[string]string{"t.yaml": tt.file})
			os.Mkdir(filepath.Join(dir, "d"), 0o755)
			if tt.fifo != "" {
				feedFIFO(t, filepath.Join(dir, tt.fifo), demoServer+"steps:\n  - ping:\n")
			}
			r := w.mcpv(t, "", "test", tt.arg)
			if r.code != exitcode.Usage || r.stderr != tt.want {
				t.Errorf("exit %d, stderr %q; want exit 2, %q", r.code, r.stderr, tt.want)
			}
			if strings.Contains(r.stdout, "passed") {
				t.Errorf("steps ran: %s", r.stdout)
			}
		})
	}
}

// The files a test file's server section names are read when its session
// opens, as the file was checked: a regular file, opened without
// blocking, and never through a link put in its place since. Here the
// first file's server swaps the second's answers for a link out of the
// tree before the second opens its session.
func TestTestServerFilesReadSafely(t *testing.T) {
	t.Parallel()
	t.Run("answers a FIFO", func(t *testing.T) {
		t.Parallel()
		w, dir := testWorld(t, map[string]string{"t.yaml": demoServer + "  answers: a.json\nsteps:\n  - ping:\n"})
		feedFIFO(t, filepath.Join(dir, "a.json"), "{}")
		r := w.mcpv(t, "", "test", "t.yaml")
		if r.code != exitcode.Usage || !strings.Contains(r.stdout+r.stderr, "--answers: not a regular file but a named pipe") {
			t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("answers swapped for a link", func(t *testing.T) {
		t.Parallel()
		outside := filepath.Join(t.TempDir(), "answers.json")
		os.WriteFile(outside, []byte(`{"secret":"from outside"}`), 0o644)
		swap := "server:\n  command: [sh, -c, 'rm -f a.json && ln -s " + outside + " a.json && exec \"$0\"', \"${TEST_BINARY}\"]\n  env: {MCPV_DEMO: \"1\"}\nsteps:\n  - ping:\n"
		w, dir := testWorld(t, map[string]string{"1.yaml": swap, "2.yaml": demoServer + "  answers: a.json\nsteps:\n  - ping:\n", "a.json": "{}"})
		r := w.mcpv(t, "", "test", "--parallel=1", "1.yaml", "2.yaml")
		if fi, err := os.Lstat(filepath.Join(dir, "a.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("the first file's server did not swap a.json: %v", err)
		}
		if r.code != exitcode.Usage || !strings.Contains(r.stdout+r.stderr, "a.json is a symbolic link, which is not followed") {
			t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("header @FIFO on the command line", func(t *testing.T) {
		t.Parallel()
		w, dir := testWorld(t, nil)
		feedFIFO(t, filepath.Join(dir, "h.txt"), "X-A: b\n")
		r := w.mcpv(t, "", "ping", "--header", "@h.txt", "--url", "http://127.0.0.1:1/")
		if want := "mcpv: --header: not a regular file but a named pipe (see mcpv help flags)\n"; r.code != exitcode.Usage || r.stderr != want {
			t.Errorf("exit %d, stderr %q; want exit 2, %q", r.code, r.stderr, want)
		}
	})
}
