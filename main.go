// Command mcpv is a scriptable command-line client for the Model Context Protocol.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpv/mcpv/commands"
	"github.com/mcpv/mcpv/internal/gcstart"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// startHeap is how large the heap grows before the first collection (see
// gcstart): more than a short run allocates, little beside a large result.
const startHeap = 32 << 20

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
	go func() { // lives as long as the process
		sigs := make(chan os.Signal, 2)
		// SIGHUP: the terminal was closed; the same orderly shutdown.
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		// A write to a closed stdout must return EPIPE, not kill mcpv;
		// unlike signal.Ignore, this does not pass SIG_IGN on to the server.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
		close(handled)
		<-sigs
		ios.Status.Stop()
		cancel(commands.ErrInterrupted) // first: cancel on the wire, shut down in order
		<-sigs
		servers.Kill() // second: at once, every process of every server's group
		os.Exit(130)
	}()
	os.Exit(commands.Main(ctx, os.Args[1:], ios, &servers, handled))
}
