package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// The stdio transport on every OS, Windows included: the servers here are
// this test binary itself, started again in a helper role (TestMain), so
// the tests need no shell.

const helperEnv = "MCPV_MCP_TEST_HELPER"

func TestMain(m *testing.M) {
	if role := os.Getenv(helperEnv); role != "" {
		helper(role, os.Args[len(os.Args)-1])
		os.Exit(0)
	}
	// The parallel tests wait on processes and servers (a grace period,
	// a stalled stream), not on the CPU.
	testkit.WaitMoreAtOnce(4)
	os.Exit(m.Run())
}

// helper plays a server: echo (each stdin line back), deaf (never reads),
// tree (starts a child that writes its heartbeat to file, then echoes), beat
// (that child).
func helper(role, file string) {
	switch role {
	case "echo":
		echo()
	case "deaf":
		time.Sleep(time.Minute)
	case "tree":
		self, _ := os.Executable()
		cmd := exec.Command(self, file)
		cmd.Env = append(os.Environ(), helperEnv+"=beat")
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		echo()
		time.Sleep(time.Minute) // stdin's end does not end the tree
	case "beat":
		for {
			os.WriteFile(file, []byte(time.Now().Format(time.RFC3339Nano)), 0o644)
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func echo() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		os.Stdout.Write(append(in.Bytes(), '\n'))
	}
}

func startHelper(t *testing.T, role string, args ...string) *CommandTransport {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := StartCommand(CommandOptions{Path: self, Args: args, Env: append(os.Environ(), helperEnv+"="+role), Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close(context.Background()) })
	return tr
}

func TestPortableRoundTrip(t *testing.T) {
	t.Parallel()
	tr := startHelper(t, "echo", "-")
	if err := tr.Write(testCtx(t), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); err != nil {
		t.Fatal(err)
	}
	msg, err := tr.Read()
	if err != nil || string(msg) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("Read = %s, %v", msg, err)
	}
	if err := tr.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A write to a server that never reads is abandoned when its context ends
// (on Windows this needs mcpv's end of the pipe to take deadlines).
func TestPortableWriteHonoursContext(t *testing.T) {
	t.Parallel()
	tr := startHelper(t, "deaf", "-")
	cause := errors.New("write took too long")
	ctx, cancel := context.WithTimeoutCause(context.Background(), 200*time.Millisecond, cause)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- tr.Write(ctx, bytes.Repeat([]byte("x"), 8<<20)) }()
	select {
	case err := <-done:
		if err != cause {
			t.Errorf("Write = %v, want the context's cause", err)
		}
	case <-time.After(testWait):
		t.Fatal("the write to a server that does not read never returned")
	}
}

// Close ends the server's whole tree: its child too (a process group on
// Unix, the Job Object on Windows).
func TestPortableCloseEndsTheTree(t *testing.T) {
	t.Parallel()
	beat := filepath.Join(t.TempDir(), "beat")
	closeEndsTheTree(t, startHelper(t, "tree", beat), beat)
}

// closeEndsTheTree waits for the child of a "tree" server to beat, closes
// the transport and checks that the beat stops.
func closeEndsTheTree(t *testing.T, tr *CommandTransport, beat string) {
	t.Helper()
	for deadline := time.Now().Add(testWait); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(beat); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's child never wrote %s", beat)
		}
	}
	if err := tr.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // a write under way finishes
	first, _ := os.ReadFile(beat)
	time.Sleep(500 * time.Millisecond)
	if second, _ := os.ReadFile(beat); !bytes.Equal(first, second) {
		t.Errorf("the server's child outlived Close (heartbeat %s, then %s)", first, second)
	}
}
