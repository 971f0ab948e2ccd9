//go:build linux

package keeper

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

const (
	dialEnv = "MCPV_KEEPER_TEST_DIAL"
	waitEnv = "MCPV_KEEPER_TEST_WAIT"
)

// TestMain lets the test binary be a client of another uid: with dialEnv
// set it asks the socket there for the status and prints the answer. With
// waitEnv set it is a process that lives until its stdin closes.
func TestMain(m *testing.M) {
	if os.Getenv(waitEnv) != "" {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	if path := os.Getenv(dialEnv); path != "" {
		c, err := net.Dial("unix", path)
		if err != nil {
			fmt.Println("dial:", err)
			os.Exit(0)
		}
		fmt.Fprintln(c, `{"status":{}}`)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		fmt.Printf("answer [%s] %v\n", strings.TrimSpace(line), err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestSamePeer(t *testing.T) {
	if err := samePeer(1000, 1000); err != nil {
		t.Error(err)
	}
	if err := samePeer(1001, 1000); err == nil || !strings.Contains(err.Error(), "uid 1001, not the session's owner (uid 1000)") {
		t.Errorf("another uid: %v", err)
	}
}

// The keeper answers its own user and closes the connection of another,
// even when the socket's mode would let that user in.
func TestPeerOfAnotherUserRefused(t *testing.T) {
	dir := t.TempDir()
	ln, err := Listen(dir, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Release()
	paths := ln.Paths
	if fi, err := os.Stat(paths.Socket); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, %v", fi.Mode(), err)
	}
	k := &Keeper{Log: slog.New(slog.DiscardHandler), ln: ln, Info: Info{Name: "p", State: "ready"}}
	go k.accept(0)

	self := exec.Command(os.Args[0], "-test.run=^$")
	self.Env = append(os.Environ(), dialEnv+"="+paths.Socket)
	out, err := self.Output()
	if err != nil || !strings.Contains(string(out), `"name":"p"`) {
		t.Fatalf("own user: %s %v", out, err)
	}
	if os.Getuid() != 0 {
		t.Skip("another uid needs root to run a process as one")
	}
	// Let uid 65534 reach the socket, as a careless mode would.
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(paths.Socket, 0o666)
	// A copy of this binary that user may run.
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "client")
	testkit.WriteScript(t, exe, bin, 0o755)
	other := exec.Command(exe, "-test.run=^$")
	other.Env = append(os.Environ(), dialEnv+"="+paths.Socket)
	other.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err = other.Output()
	if err != nil {
		t.Skipf("cannot run a process as uid 65534 here: %v", err)
	}
	if strings.Contains(string(out), `"name"`) || !strings.HasPrefix(string(out), "answer [] ") {
		t.Errorf("another uid got: %s", out)
	}
}
