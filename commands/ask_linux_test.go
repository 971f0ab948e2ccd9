package commands

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pty opens a pseudo-terminal: the side a terminal emulator holds (what
// it is sent is what the user sees) and the side a program asks on.
func pty(t *testing.T) (emulator, term *os.File) {
	t.Helper()
	emulator, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	t.Cleanup(func() { emulator.Close() })
	conn, err := emulator.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	conn.Control(func(fd uintptr) {
		if err = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); err == nil {
			n, err = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Close() })
	return emulator, term
}

// shown is what the terminal shows the user until it has shown want (or
// ten seconds pass).
func shown(t *testing.T, emulator *os.File, want string) string {
	t.Helper()
	var got strings.Builder
	buf := make([]byte, 256)
	emulator.SetReadDeadline(time.Now().Add(10 * time.Second))
	for !strings.Contains(got.String(), want) {
		n, err := emulator.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			t.Fatalf("the terminal showed %q, then %v; want %q", got.String(), err, want)
		}
	}
	return got.String()
}

// A hidden answer is not shown as it is typed; the echo is back for the
// next question, whose answer is.
func TestAskHidden(t *testing.T) {
	emulator, term := pty(t)
	a := &asker{open: func() (*os.File, *os.File, error) { return term, term, nil }}
	ctx := context.Background()

	done := make(chan string, 1)
	go func() { // ends with Ask: the answer is typed below
		answer, err := a.Ask(ctx, "API key: ", true)
		if err != nil {
			answer = "error: " + err.Error()
		}
		done <- answer
	}()
	shown(t, emulator, "API key: ")
	emulator.WriteString("s3cret-typed\r")
	if answer := <-done; answer != "s3cret-typed" {
		t.Fatalf("the hidden answer: %q", answer)
	}
	go func() {
		answer, _ := a.Ask(ctx, "Region: ", false)
		done <- answer
	}()
	screen := shown(t, emulator, "Region: ")
	emulator.WriteString("eu-west\r")
	screen += shown(t, emulator, "eu-west")
	if answer := <-done; answer != "eu-west" {
		t.Errorf("the visible answer: %q", answer)
	}
	if strings.Contains(screen, "s3cret") {
		t.Errorf("the terminal showed the hidden answer: %q", screen)
	}
}

// A question cut short by its context leaves the terminal's echo on.
func TestAskHiddenInterrupted(t *testing.T) {
	emulator, term := pty(t)
	a := &asker{open: func() (*os.File, *os.File, error) { return term, term, nil }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { // ends when ctx is cancelled below
		_, err := a.Ask(ctx, "Password: ", true)
		done <- err
	}()
	shown(t, emulator, "Password: ")
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("Ask after cancel: %v", err)
	}
	tios, err := unix.IoctlGetTermios(int(term.Fd()), unix.TCGETS)
	if err != nil || tios.Lflag&unix.ECHO == 0 {
		t.Errorf("the echo is still off after an interrupted question (%v)", err)
	}
}

func TestAskWithoutTerminal(t *testing.T) {
	var closers []func() error
	a := newAsker(false, &closers)
	if _, err := a.Ask(context.Background(), "x: ", false); err != errNoTerminal {
		t.Errorf("Ask without a terminal: %v", err)
	}
}
