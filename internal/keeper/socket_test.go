//go:build unix

package keeper

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A name that is not a plain file name is refused by every way in, and
// no file outside the session directory is touched: a NAME.json and
// NAME.sock next to it stay.
func TestBadNamesTouchNothing(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "sessions")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	victims := []string{filepath.Join(base, "x.json"), filepath.Join(base, "x.sock")}
	for _, v := range victims {
		if err := os.WriteFile(v, []byte("keep"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"../x", "a/b", "", ".x", "-x", "x\n", strings.Repeat("a", 65)} {
		if _, err := PathsOf(dir, name); err == nil {
			t.Errorf("PathsOf(%q) accepted", name)
		}
		if _, _, err := Attach(t.Context(), Dir{dir, base}, name); err == nil || !strings.Contains(err.Error(), "session name") {
			t.Errorf("Attach(%q): %v", name, err)
		}
		if _, err := Status(Dir{dir, base}, name); err == nil || !strings.Contains(err.Error(), "session name") {
			t.Errorf("Status(%q): %v", name, err)
		}
		if err := Stop(Dir{dir, base}, name, time.Second); err == nil || !strings.Contains(err.Error(), "session name") {
			t.Errorf("Stop(%q): %v", name, err)
		}
		if ln, err := Listen(dir, name); err == nil {
			ln.Release()
			t.Errorf("Listen(%q) accepted", name)
		}
	}
	for _, v := range victims {
		if _, err := os.Stat(v); err != nil {
			t.Errorf("%s was touched: %v", v, err)
		}
	}
	if err := CheckName("a-b_c.1"); err != nil {
		t.Error(err)
	}
}

// The client checks whose socket it is about to speak to.
func TestOwnSocket(t *testing.T) {
	r := startKeeper(t, echo)
	fi, err := os.Lstat(r.ln.Paths.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if err := ownSocket(r.ln.Paths.Socket, fi); err != nil {
		t.Errorf("own socket: %v", err)
	}
	if os.Getuid() == 0 { // another user's socket: TestSocketOfAnotherUserRefused too
		if err := os.Lchown(r.ln.Paths.Socket, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		theirs, err := os.Lstat(r.ln.Paths.Socket)
		if err != nil {
			t.Fatal(err)
		}
		if err := ownSocket(r.ln.Paths.Socket, theirs); err == nil || !strings.Contains(err.Error(), "belongs to user 65534, not to you (0)") {
			t.Errorf("a socket of another uid: %v", err)
		}
	}
	file, _ := os.Lstat(r.dir)
	if err := ownSocket(r.dir, file); err == nil || !strings.Contains(err.Error(), "is not a socket") {
		t.Errorf("a directory: %v", err)
	}
}

// A socket that belongs to another user is refused before anything is
// sent: the keeper never sees the command.
func TestSocketOfAnotherUserRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a socket to another uid needs root")
	}
	r := startKeeper(t, echo)
	if err := os.Lchown(r.ln.Paths.Socket, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := r.tryAttach(t)
	if err == nil || !isTransport(err) || !strings.Contains(err.Error(), "belongs to user 65534, not to you (0)") {
		t.Fatalf("attach: %v", err)
	}
	if n := r.k.status().Clients; n != 0 {
		t.Errorf("%d commands reached the keeper", n)
	}
	if _, err := Status(r.at(), r.name); err == nil {
		t.Error("status of another user's socket answered")
	}
	if _, err := os.Lstat(r.ln.Paths.Socket); err != nil {
		t.Errorf("the refused socket was removed: %v", err)
	}
}

// A keeper whose socket file is removed ends by itself, with its server.
func TestSocketRemovedEndsKeeper(t *testing.T) {
	r := startKeeper(t, echo, func(k *Keeper) { k.CheckEvery = time.Millisecond })
	r.attach(t)
	if err := os.Remove(r.ln.Paths.Socket); err != nil {
		t.Fatal(err)
	}
	if why := r.stoppedFor(t, "when its socket was removed"); !strings.Contains(why, "was removed") {
		t.Errorf("why: %q", why)
	}
	select {
	case <-r.srv.closed:
	default:
		t.Error("the server was not closed")
	}
	if held(r.ln.Paths.Lock) {
		t.Error("the name is still held")
	}
}

// session stop reaches a keeper whose socket was removed: by the pid in
// the lock it holds, SIGTERM, which the keeper process turns into the end
// of its context.
func TestStopReachesKeeperWithoutSocket(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	defer signal.Stop(sigs)
	r := startKeeper(t, echo, func(k *Keeper) { k.CheckEvery = time.Hour })
	go func() { // stops with the signal, or when the test ends
		select {
		case <-sigs:
			r.cancel()
		case <-r.srv.closed:
		}
	}()
	if err := os.Remove(r.ln.Paths.Socket); err != nil {
		t.Fatal(err)
	}
	if err := Stop(r.at(), r.name, 30*time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if why := r.stopped(); why != "the session keeper was stopped" {
		t.Errorf("why: %q", why)
	}
}

// Two keepers of one name never run: the second is refused while the
// first holds the name, even with its socket gone, and may start once the
// first has ended.
func TestNoTwoKeepers(t *testing.T) {
	r := startKeeper(t, echo, func(k *Keeper) { k.CheckEvery = time.Hour })
	if ln, err := Listen(r.dir, r.name); err == nil || !strings.Contains(err.Error(), `session "s" is already running`) {
		if err == nil {
			ln.Release()
		}
		t.Fatalf("a second keeper: %v", err)
	}
	os.Remove(r.ln.Paths.Socket)
	if ln, err := Listen(r.dir, r.name); err == nil {
		ln.Release()
		t.Fatal("a second keeper started once the first's socket was removed")
	}
	if _, _, err := Attach(t.Context(), r.at(), r.name); !errors.As(err, new(*ErrNoSession)) {
		t.Errorf("attach without a socket: %v", err)
	}
	r.cancel()
	r.stopped()
	ln, err := Listen(r.dir, r.name)
	if err != nil {
		t.Fatalf("after the first ended: %v", err)
	}
	ln.Release()
}

// A keeper that answers status with a line that holds no status is said
// to have answered none, in words, not as a missing error.
func TestStatusAnswerWithoutInfo(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "sessions")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p, err := PathsOf(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", p.Socket)
	if err != nil {
		t.Skipf("no unix socket here: %v", err)
	}
	defer ln.Close()
	go func() { // answers one status with an empty line of JSON; ends with the listener
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "{}\n")
	}()
	_, err = Status(Dir{dir, base}, "s")
	if err == nil || strings.Contains(err.Error(), "<nil>") || !strings.Contains(err.Error(), "holds no status") {
		t.Errorf("status: %v", err)
	}
}
