// Command mcpv is a scriptable command-line client for the Model Context Protocol.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpv/mcpv/commands"
	"github.com/mcpv/mcpv/internal/gcstart"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// startHeap is how large the heap grows before the first collection (see
// gcstart): more than a short run allocates, little beside a large result.
const startHeap = 32 << 20

// shutdownBound is how long the orderly shutdown after a signal may take
// before mcpv ends as a second signal ends it. The slowest orderly path
// (the cancellation written, a stdio server's stdin closed, SIGTERM and
// SIGKILL each waited for, a task's tasks/cancel) takes under 10 s; what
// can hold it up beyond is a write that never returns: a stderr that
// nobody reads, a terminal that stopped.
const shutdownBound = 10 * time.Second

func main() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		gcstart.Defer(startHeap, 100, nil)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	ios := output.System()
	var servers mcp.ProcessGroups // the stdio servers running, to kill at once on a second signal
	// The signals are set up while the command line is parsed: each takes
	// the runtime a round trip to a thread of its own, a tenth of a short
	// run's start-up. commands.Main starts, reaches or writes nothing
	// before handled is closed.
	handled := make(chan struct{})
	// The npm launcher killed (SIGKILL passes nothing on) is a SIGTERM:
	// its pipe's end is watched from here on, before any child starts.
	launcher := commands.LauncherGone()
	go func() { // signal watcher: lives as long as the process
		sigs := make(chan os.Signal, 2)
		// SIGHUP: the terminal was closed; the same orderly shutdown,
		// unless mcpv was started with it ignored (nohup): then it stays
		// ignored, and mcpv outlives the terminal as it was asked to.
		// SIGINT is handled even when ignored, as a shell ignores it in a
		// script's background job: a script that stops its mcpv with
		// kill -INT gets the orderly end it asks for.
		stop := []os.Signal{os.Interrupt, syscall.SIGTERM}
		if !signal.Ignored(syscall.SIGHUP) {
			stop = append(stop, syscall.SIGHUP)
		}
		signal.Notify(sigs, stop...)
		// A write to a closed stdout must return EPIPE, not kill mcpv;
		// unlike signal.Ignore, this does not pass SIG_IGN on to the server.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		close(handled)
		select {
		case <-sigs:
		case <-launcher:
		}
		cancel(commands.ErrInterrupted) // first: cancel on the wire, shut down in order
		// The progress line goes, but nothing here waits for stderr: a
		// terminal that does not read would hold the signals up.
		go ios.Status.Stop() // progress line stopper: returns once it holds the line: a write in progress has returned
		select {
		case <-sigs: // second: at once
		case <-time.After(shutdownBound):
		}
		servers.Kill() // every process of every server's group
		os.Exit(130)
	}()
	os.Exit(commands.Main(ctx, os.Args[1:], ios, &servers, handled))
}
