//go:build unix

package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command through a session is held to the pin as one of its own:
// the keeper's kept lists answer, the command checks.
func TestPinHoldsCommandsThroughASession(t *testing.T) {
	t.Parallel()
	w := sessionWorld(t)
	w.env.Cwd = t.TempDir()
	srv := newPinnedServer(t, w, calcV1)
	srv.set(t, calcV2)
	if r := w.mcpv(t, "", args([]string{"session", "start", "s"}, srv.cmd)...); r.code != 0 {
		t.Fatalf("session start: %s", r.stderr)
	}
	w.mcpv(t, "", "--session", "s", "--pin", "pins.json", "call", "add", "a:=1", "b:=2").expect(t, 7, "", "", `tool "add" moved since it was pinned`)
	w.mcpv(t, "", "--session", "s", "--pin", "pins.json", "call", "echo", "text=hi").expect(t, 0, "", "called echo", "")
	w.mcpv(t, "", "--session", "s", "call", "add", "a:=1", "b:=2").expect(t, 0, "", "called add", "")
}

// A pin file every user may write is refused: another user could swap
// what was approved. (A file of another user is refused alike; the test
// cannot make one without privileges.)
func TestPinFileOthersMayWriteIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.env.Cwd = t.TempDir()
	srv := newPinnedServer(t, w, calcV1)
	if err := os.Chmod(filepath.Join(w.env.Cwd, "pins.json"), 0o666); err != nil {
		t.Fatal(err)
	}
	w.mcpv(t, "", args([]string{"--pin", "pins.json", "call", "echo"}, srv.cmd)...).expect(t, 2, "", "", "writable by every user of the machine")
	w.mcpv(t, "", args([]string{"pin", "--check", "pins.json"}, srv.cmd)...).expect(t, 2, "", "", "writable by every user of the machine")
}

// A named pipe where the pin file should be is refused, not read: a
// cloned repository cannot make a command wait on it.
func TestPinFileThatIsANamedPipe(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := t.TempDir()
	w.env.Cwd = dir
	srv := newMovingServer(t, calcV1)
	feedFIFO(t, filepath.Join(dir, "fifo.json"), "{}")
	r := w.mcpv(t, "", args([]string{"--pin", "fifo.json", "call", "echo"}, srv.cmd)...)
	r.expect(t, 2, "", "", "not a regular file but a named pipe")
}

// Through a session, a server whose two names differ is held to the
// entry of either, and instructions that moved are said once a command.
func TestPinThroughASessionOfAServerWhoseNamesDiffer(t *testing.T) {
	t.Parallel()
	w, srv := namesDiffer(t)
	withSessions(t, w.world)
	w.mcpv(t, "", "pin", "pins.json", "-s", "calc").expect(t, 0, "", `"name":"calc"`, "")
	srv.set(t, strings.Replace(calcNamed(calcV1, "mcpv-calc"), `"instructions":"Use add."`, `"instructions":"Use add, always."`, 1))
	if r := w.mcpv(t, "", "session", "start", "s", "-s", "calc"); r.code != 0 {
		t.Fatalf("session start: %s", r.stderr)
	}
	r := w.mcpv(t, "", "--session", "s", "--pin", "pins.json", "call", "echo", "text=hi")
	r.expect(t, 0, "", "called echo", `pins.json: it pins server "mcpv-calc" under its config name "calc"; held to that entry`)
	if n := strings.Count(r.stderr, "instructions moved"); n != 1 {
		t.Errorf("the instructions said %d times:\n%s", n, r.stderr)
	}
	w.mcpv(t, "", "--session", "s", "--pin", "pins.json", "--pin-strict", "call", "echo", "text=hi").expect(t, 7, "", "", "instructions moved since it was pinned")
}

// A pin file that is a link is read through it when it leads to a pin
// file, and refused when it leads to a device that never ends or to a
// directory, in one line; a pin is written beside a link, never through
// it (TestPinNeverWritesThroughALink).
func TestPinFileThatIsALink(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	dir := t.TempDir()
	w.env.Cwd = dir
	srv := newPinnedServer(t, w, calcV1)
	for name, target := range map[string]string{"good.json": filepath.Join(dir, "pins.json"), "zero.json": "/dev/zero", "dir.json": dir} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	w.mcpv(t, "", args([]string{"--pin", "good.json", "call", "echo", "text=hi"}, srv.cmd)...).expect(t, 0, "", "called echo", "")
	for _, cmd := range [][]string{{"--pin", "zero.json", "call", "echo"}, {"--pin", "dir.json", "call", "echo"}, {"diff", "zero.json"}} {
		r := w.mcpv(t, "", args(cmd, srv.cmd)...)
		r.expect(t, 2, "", "", "mcpv: ")
		if strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("%v: more than a line:\n%s", cmd, r.stderr)
		}
	}
}
