//go:build unix

package commands

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// outsideFile is a file beside the test files' directory, standing for
// the user's ~/.bashrc: no test file may write it or read it.
func outsideFile(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-home")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(out, ".bashrc")
	if err := os.WriteFile(path, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	return path
}

func unchanged(t *testing.T, path string) {
	t.Helper()
	if data, err := os.ReadFile(path); err != nil || string(data) != "keep me\n" {
		t.Errorf("%s now holds %q (%v)", path, data, err)
	}
}

const plainServer = "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": plain}\n"

// Paths a test file names resolve inside its directory's tree, and are
// refused before any server starts, with their line and column, when they
// lead out of it: by "..", as absolute paths, or through a link.
func TestTestFilePathsStayInTheTree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
	}{
		{"events outside", plainServer + "  events: OUTSIDE\nsteps:\n  - ping:\n", "t.yaml:4:11: events: OUTSIDE leads out of DIR"},
		{"events by ..", plainServer + "  events: ../NAME-home/.bashrc\nsteps:\n  - ping:\n", "t.yaml:4:11: events: ../NAME-home/.bashrc leads out of DIR"},
		{"events through a link", plainServer + "  events: link\nsteps:\n  - ping:\n", "t.yaml:4:11: events: link is a symbolic link, which is not followed"},
		{"answers through a linked directory", plainServer + "  answers: home/.bashrc\nsteps:\n  - ping:\n", "t.yaml:4:12: answers: home/.bashrc leads out of DIR through a symbolic link"},
		{"header @FILE outside", "server:\n  url: http://127.0.0.1:1/\n  header: ['@OUTSIDE']\nsteps:\n  - ping:\n", "t.yaml:3:11: header: OUTSIDE leads out of DIR"},
		{"snapshot by ..", plainServer + "steps:\n  - snapshot: ../NAME-home/.bashrc\n", "t.yaml:5:15: snapshot: ../NAME-home/.bashrc leads out of DIR"},
		{"snapshot a link", plainServer + "steps:\n  - snapshot: link\n", "t.yaml:5:15: snapshot: link is a symbolic link, which is not followed"},
		{"equals-file outside", plainServer + "steps:\n  - ping:\n    expect: {equals-file: OUTSIDE}\n", "t.yaml:6:27: equals-file: OUTSIDE leads out of DIR"},
		{"schema-file a link", plainServer + "steps:\n  - ping:\n    expect: {schema-file: link}\n", "t.yaml:6:27: schema-file: link is a symbolic link, which is not followed"},
		{"skills pull", plainServer + "steps:\n  - run: skills pull s ../x --force\n", "t.yaml:5:5: skills pull writes files: not in a test step"},
		{"save-dir", plainServer + "steps:\n  - call: x --save-dir out\n", "t.yaml:5:5: --save-dir writes files: not in a test step"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, dir := testWorld(t, nil)
			outside := outsideFile(t, dir)
			os.Symlink(outside, filepath.Join(dir, "link"))
			os.Symlink(filepath.Dir(outside), filepath.Join(dir, "home"))
			r := strings.NewReplacer("OUTSIDE", outside, "NAME", filepath.Base(dir), "DIR", dir)
			os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(r.Replace(tt.file)), 0o644)
			got := w.mcpv(t, "", "test", "t.yaml")
			if want := "mcpv: " + r.Replace(tt.want); got.code != exitcode.Usage || got.stdout != "" || !strings.HasPrefix(got.stderr, want) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and: %s", got.code, got.stdout, got.stderr, want)
			}
			unchanged(t, outside)
		})
	}
}

// What the run writes goes nowhere a link leads: the snapshot beside a
// file (--snapshot), and --output, which may name any path but is not
// written through a link there.
func TestTestWritesFollowNoLink(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, map[string]string{"t.yaml": plainServer + "steps:\n  - ping:\n"})
	outside := outsideFile(t, dir)
	os.Symlink(outside, filepath.Join(dir, "t.snapshot.json"))
	os.Symlink(outside, filepath.Join(dir, "report.xml"))

	r := w.mcpv(t, "", "test", "--snapshot", "t.yaml")
	if r.code != exitcode.ToolError || !strings.Contains(r.stdout, "t.snapshot.json is a symbolic link, which is not followed") {
		t.Errorf("--snapshot through a link: exit %d:\n%s", r.code, r.stdout)
	}
	unchanged(t, outside)

	os.Symlink(outside, filepath.Join(dir, "events.ndjson"))
	r = w.mcpv(t, "", "test", "--events", "events.ndjson", "t.yaml")
	if want := "mcpv: --events: " + filepath.Join(dir, "events.ndjson") + " is a symbolic link"; r.code != exitcode.Usage || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("--events through a link: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	unchanged(t, outside)

	r = w.mcpv(t, "", "test", "--format", "junit", "--output", "report.xml", "t.yaml")
	if want := "mcpv: --output: " + filepath.Join(dir, "report.xml") + " is a symbolic link"; r.code != exitcode.Usage || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("--output through a link: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	unchanged(t, outside)
}

// A one-shot command's --events is not written through a link either (a
// link in a shared directory would have emptied the file it led to, and a
// cloned repository's may lead to a pipe another user reads), but a link
// in /dev to a stream the user gave (the shell's /dev/stderr, >(…)) is.
func TestEventsFollowNoLink(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, nil)
	outside := outsideFile(t, dir)
	os.Symlink(outside, filepath.Join(dir, "events.ndjson"))
	r := w.mcpv(t, "", args([]string{"--events", "events.ndjson", "ping"}, fake("plain"))...)
	if want := "mcpv: --events: " + filepath.Join(dir, "events.ndjson") + " is a symbolic link"; r.code != exitcode.Usage || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("--events through a link: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	unchanged(t, outside)

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	read, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer read.Close()
	os.Symlink(fifo, filepath.Join(dir, "stream"))
	r = w.mcpv(t, "", args([]string{"--events", "stream", "ping"}, fake("plain"))...)
	if want := "mcpv: --events: " + filepath.Join(dir, "stream") + " is a symbolic link"; r.code != exitcode.Usage || !strings.HasPrefix(r.stderr, want) {
		t.Errorf("--events through a link to a pipe outside /dev: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	stream := "/dev/fd/" + strconv.Itoa(int(pw.Fd()))
	r = w.mcpv(t, "", args([]string{"--events", stream, "call", "x", "--no-validate"}, fake("log-flood=3"))...)
	pw.Close()
	if r.code != exitcode.OK {
		t.Fatalf("--events %s (a pipe): exit %d, stderr %q", stream, r.code, r.stderr)
	}
	if got, _ := io.ReadAll(pr); !strings.Contains(string(got), `"method":"notifications/message"`) {
		t.Errorf("the pipe behind %s read %q", stream, got)
	}
}

// What a server sent, kept by --events or a test file's events:, is its
// owner's alone, as a trace is: a new file 0600, the user's own made so.
func TestEventsOwnerOnly(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, nil)
	os.WriteFile(filepath.Join(dir, "had.ndjson"), []byte("before\n"), 0)
	os.Chmod(filepath.Join(dir, "had.ndjson"), 0o644)
	os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(plainServer+"  events: own.ndjson\nsteps:\n  - ping:\n"), 0o644)
	for _, run := range [][]string{
		args([]string{"--events", "new.ndjson", "ping"}, fake("plain")),
		args([]string{"--events", "had.ndjson", "ping"}, fake("plain")),
		{"test", "t.yaml"},
	} {
		if r := w.mcpv(t, "", run...); r.code != exitcode.OK {
			t.Fatalf("mcpv %q: exit %d, stderr %q", run, r.code, r.stderr)
		}
	}
	for _, name := range []string{"new.ndjson", "had.ndjson", "own.ndjson"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if b, _ := os.ReadFile(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != 0o600 || strings.Contains(string(b), "before") {
			t.Errorf("%s: %v, holding %q", name, fi.Mode(), b)
		}
	}
}

// A step's @FILE may be filled from what a server sent: it is read only
// inside the test file's tree.
func TestTestStepFilesStayInTheTree(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, nil)
	outside := outsideFile(t, dir)
	rel := "../" + filepath.Base(filepath.Dir(outside)) + "/.bashrc"
	os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(demoServer+`steps:
  - call: echo message=`+rel+`
    capture: {p: .structuredContent.message}
  - call: echo message=@{{p}}
    expect: {jq: .structuredContent.message == "x"}
`), 0o644)
	r := w.mcpv(t, "", "test", "t.yaml")
	if r.code != exitcode.ToolError || strings.Contains(r.stdout, "keep me") || !strings.Contains(r.stdout, rel+" leads out of "+dir) {
		t.Errorf("exit %d:\n%s", r.code, r.stdout)
	}
}

// A step's @FILE that no capture makes is checked as the file is read:
// one out of the tree, a link (to a device) or a named pipe is refused
// with its line and column before any server starts, whatever the step
// expects.
func TestTestStepFilesCheckedBeforeTheServer(t *testing.T) {
	t.Parallel()
	const server = "server:\n  command: [sh, -c, 'touch started']\nsteps:\n"
	tests := []struct {
		name, step, want string
	}{
		{"pair outside", "  - call: echo a=@OUTSIDE\n    expect: {exit: 2}\n", "t.yaml:4:11: @OUTSIDE: OUTSIDE leads out of DIR"},
		{"args a named pipe", "  - call: echo --args @fifo.json\n    expect: {exit: 2}\n", "t.yaml:4:11: @fifo.json: fifo.json is not a regular file"},
		{"pair a link to a device", "  - call: [echo, 'a:=@zero.json']\n", "t.yaml:4:18: @zero.json: zero.json is a symbolic link, which is not followed"},
		{"flags", "  - call: {tool: echo, flags: [--args, '@../NAME-home/.bashrc']}\n", "t.yaml:4:40: @../NAME-home/.bashrc: ../NAME-home/.bashrc leads out of DIR"},
		{"request params", "  - request: x/y @OUTSIDE\n", "t.yaml:4:14: @OUTSIDE: OUTSIDE leads out of DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, dir := testWorld(t, nil)
			outside := outsideFile(t, dir)
			os.Symlink("/dev/zero", filepath.Join(dir, "zero.json"))
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := strings.NewReplacer("OUTSIDE", outside, "NAME", filepath.Base(dir), "DIR", dir)
			os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(server+r.Replace(tt.step)), 0o644)
			got := w.mcpv(t, "", "test", "t.yaml")
			if want := "mcpv: " + r.Replace(tt.want); got.code != exitcode.Usage || got.stdout != "" || !strings.HasPrefix(got.stderr, want) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 and: %s", got.code, got.stdout, got.stderr, want)
			}
			if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
				t.Error("the server started")
			}
		})
	}
}

// mcpv test --events is one log for every file's session, written a line
// at a time: files run in parallel add to it, and none empties it.
func TestTestEventsOneLogForAllFiles(t *testing.T) {
	t.Parallel()
	file := "server:\n  command: [\"${TEST_BINARY}\"]\n  env: {" + mcptest.EnvVar + ": log-flood=100}\nsteps:\n  - call: x message=FILE\n"
	w, dir := testWorld(t, map[string]string{
		"a.yaml": strings.ReplaceAll(file, "FILE", "a"),
		"b.yaml": strings.ReplaceAll(file, "FILE", "b"),
	})
	r := w.mcpv(t, "", "test", "--parallel", "2", "--events", "events.ndjson", "a.yaml", "b.yaml")
	if r.code != exitcode.OK {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "events.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	logs := 0
	for line := range strings.Lines(string(data)) {
		var ev struct{ Method string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if ev.Method == "notifications/message" {
			logs++
		}
	}
	if logs != 200 {
		t.Errorf("%d log messages in the log, want 100 of each file's", logs)
	}
}
